/**
 * Views of a customer's credits and usage shared by the operator's customer page and the customer
 * portal, so both show the same figures from the same code: the usage table (used against the
 * limit this period) and a pool's burndown (ledger balance per day, then the projection to the
 * depletion date).
 */
import { useMemo, type ReactNode } from 'react';
import type { Schemas } from '../api';
import { burndownOf } from '../credit-figures';
import { DayChart, type ChartSeries } from './chart';
import { DataTable, type Column } from './data-table';
import { Credits, Stats, Time } from './figures';
import { StatusBadge } from './ui';

export type UsageReport = Schemas['UsageReport'];
type Transaction = Schemas['CreditTransaction'];

type UsageRow = UsageReport['subscriptions'][number]['features'][number] & { plan: string };

const USAGE_COLUMNS: Column<UsageRow>[] = [
  { header: 'Plan', cell: (r) => r.plan },
  { header: 'Feature', cell: (r) => <code>{r.featureKey}</code> },
  { header: 'Used', num: true, cell: (r) => <Credits amount={r.used} /> },
  { header: 'Limit', num: true, cell: (r) => (r.limit === undefined ? 'unlimited' : <Credits amount={r.limit} />) },
  {
    header: 'Projected at period end',
    num: true,
    cell: (r) => (
      <>
        {r.projectedEndOfPeriod === undefined ? '—' : <Credits amount={r.projectedEndOfPeriod} />}
        {r.wouldExceedLimit ? <span className="badge badge-due"> over limit</span> : null}
      </>
    ),
  },
];

/** Per active subscription and feature: used against the limit, and the end-of-period projection. */
export function UsageTable({ report }: { report: UsageReport }) {
  const rows = report.subscriptions.flatMap((s) => s.features.map((f) => ({ plan: s.planKey, ...f })));
  return (
    <DataTable
      label="Usage this period"
      columns={USAGE_COLUMNS}
      rows={rows}
      rowKey={(r) => `${r.plan}/${r.featureKey}`}
      empty="No active subscription with metered features."
    />
  );
}

const showCredits = (value: string) => <Credits amount={value} />;

export function Burndown({
  ledger,
  asOf,
  projection,
  denomination,
}: {
  ledger: Transaction[];
  asOf: string;
  projection: UsageReport['creditPools'][number] | undefined;
  denomination: string;
}) {
  const { days, series } = useMemo(() => {
    const b = burndownOf(ledger, asOf, projection);
    const out: ChartSeries[] = [
      { label: `Balance (${denomination})`, values: b.balance, color: '#2553c7', show: showCredits },
      { label: 'Projected', values: b.projected, color: '#b3261e', show: showCredits },
    ];
    return { days: b.days, series: out };
  }, [ledger, asOf, projection, denomination]);
  return <DayChart title="Burndown" days={days} series={series} height={180} />;
}

type Projection = UsageReport['creditPools'][number] | undefined;

/** A pool's figures: balance, granted, consumed, held and the projected depletion date. */
export function PoolFigures({ pool, projection }: { pool: Schemas['CreditPool']; projection: Projection }) {
  return (
    <Stats
      items={[
        {
          label: 'Balance',
          testId: 'pool-balance',
          value: (
            <>
              <Credits amount={pool.balance} /> {pool.denomination}
            </>
          ),
        },
        { label: 'Granted', value: <Credits amount={pool.totalGranted} /> },
        { label: 'Consumed', value: <Credits amount={pool.totalConsumed} /> },
        { label: 'Held', value: <Credits amount={pool.totalHeld} /> },
        {
          label: 'Projected depletion',
          testId: 'pool-depletion',
          value: projection?.projectedDepletionDate ? <Time iso={projection.projectedDepletionDate} dateOnly /> : 'not projected',
        },
      ]}
    />
  );
}

/** A pool as a card: its name and status, figures, burndown (once the ledger is read), then what the page adds. */
export function PoolCard(props: { pool: Schemas['CreditPool']; projection: Projection; asOf: string | undefined; ledger: Transaction[] | undefined; children: ReactNode }) {
  const { pool, projection, asOf, ledger } = props;
  return (
    <article className="card pool" aria-label={`Pool ${pool.name}`}>
      <header className="page-header">
        <h3>{pool.name}</h3>
        <StatusBadge status={pool.status} />
      </header>
      <PoolFigures pool={pool} projection={projection} />
      {ledger && asOf ? <Burndown ledger={ledger} asOf={asOf} projection={projection} denomination={pool.denomination} /> : null}
      {props.children}
    </article>
  );
}
