/**
 * Views of a customer's credits and usage shared by the operator's customer page and the customer
 * portal, so both show the same figures from the same code: the usage table (used against the
 * limit this period) and a pool's burndown (ledger balance per day, then the projection to the
 * depletion date).
 */
import { useMemo } from 'react';
import type { Schemas } from './api';
import { DayChart, type ChartSeries } from './chart';
import { burndownOf } from './credit-figures';
import { Credits, Empty, Time } from './ui';

export type UsageReport = Schemas['UsageReport'];
type Transaction = Schemas['CreditTransaction'];

/** Per active subscription and feature: used against the limit, and the end-of-period projection. */
export function UsageTable({ report }: { report: UsageReport }) {
  const rows = report.subscriptions.flatMap((s) => s.features.map((f) => ({ plan: s.planKey, ...f })));
  if (rows.length === 0) return <Empty>No active subscription with metered features.</Empty>;
  return (
    <table aria-label="Usage this period">
      <thead>
        <tr>
          <th scope="col">Plan</th>
          <th scope="col">Feature</th>
          <th scope="col" className="num">
            Used
          </th>
          <th scope="col" className="num">
            Limit
          </th>
          <th scope="col" className="num">
            Projected at period end
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.plan}/${r.featureKey}`}>
            <td>{r.plan}</td>
            <td>
              <code>{r.featureKey}</code>
            </td>
            <td className="num">
              <Credits amount={r.used} />
            </td>
            <td className="num">{r.limit === undefined ? 'unlimited' : <Credits amount={r.limit} />}</td>
            <td className="num">
              {r.projectedEndOfPeriod === undefined ? '—' : <Credits amount={r.projectedEndOfPeriod} />}
              {r.wouldExceedLimit ? <span className="badge badge-due"> over limit</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
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

/** A pool's figures: balance, granted, consumed, held and the projected depletion date. */
export function PoolFigures({ pool, projection }: { pool: Schemas['CreditPool']; projection: UsageReport['creditPools'][number] | undefined }) {
  return (
    <dl className="stats">
      <div className="stat">
        <dt>Balance</dt>
        <dd data-testid="pool-balance">
          <Credits amount={pool.balance} /> {pool.denomination}
        </dd>
      </div>
      <div className="stat">
        <dt>Granted</dt>
        <dd>
          <Credits amount={pool.totalGranted} />
        </dd>
      </div>
      <div className="stat">
        <dt>Consumed</dt>
        <dd>
          <Credits amount={pool.totalConsumed} />
        </dd>
      </div>
      <div className="stat">
        <dt>Held</dt>
        <dd>
          <Credits amount={pool.totalHeld} />
        </dd>
      </div>
      <div className="stat">
        <dt>Projected depletion</dt>
        <dd data-testid="pool-depletion">
          {projection?.projectedDepletionDate ? <Time iso={projection.projectedDepletionDate} dateOnly /> : 'not projected'}
        </dd>
      </div>
    </dl>
  );
}
