/**
 * Views of a customer's credits and usage shared by the operator's customer page and the customer
 * portal, so both show the same figures from the same code: the usage table (used against the
 * limit this period) and a pool's burndown (ledger balance per day, then the projection to the
 * depletion date).
 */
import { useMemo } from 'react';
import type { Schemas } from './api';
import { DayChart, type ChartSeries } from './chart';
import { formatCredits } from './format';
import { Empty, Time } from './ui';

export type UsageReport = Schemas['UsageReport'];

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
            <td className="num">{formatCredits(r.used)}</td>
            <td className="num">{r.limit === undefined ? 'unlimited' : formatCredits(r.limit)}</td>
            <td className="num">
              {r.projectedEndOfPeriod === undefined ? '—' : formatCredits(r.projectedEndOfPeriod)}
              {r.wouldExceedLimit ? <span className="badge badge-due"> over limit</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const DAY_MS = 86_400_000;
const PROJECTION_DAYS = 60;

/**
 * The pool's burndown: its balance at the end of each UTC day from the ledger, then the projected
 * line at the average daily burn until the projected depletion date (at most 60 days ahead).
 */
export function burndownOf(ledger: Schemas['CreditTransaction'][], asOf: string, projection: UsageReport['creditPools'][number] | undefined) {
  const dayOf = (iso: string) => iso.slice(0, 10);
  const endOfDay = new Map<string, number>();
  for (const t of [...ledger].sort((a, b) => a.createdAt.localeCompare(b.createdAt))) endOfDay.set(dayOf(t.createdAt), Number(t.balanceAfter));
  const first = ledger.length ? Math.min(...ledger.map((t) => Date.parse(`${dayOf(t.createdAt)}T00:00:00Z`))) : Date.parse(`${dayOf(asOf)}T00:00:00Z`);
  const today = Date.parse(`${dayOf(asOf)}T00:00:00Z`);
  const burn = projection?.averageDailyBurn === undefined ? 0 : Number(projection.averageDailyBurn);
  const depletion = projection?.projectedDepletionDate ? Date.parse(`${dayOf(projection.projectedDepletionDate)}T00:00:00Z`) : null;
  const last = Math.min(depletion ?? today, today + PROJECTION_DAYS * DAY_MS);
  const days: string[] = [];
  const balance: (number | null)[] = [];
  const projected: (number | null)[] = [];
  let carried = 0;
  for (let t = first; t <= Math.max(last, today); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    days.push(day);
    if (t <= today) {
      carried = endOfDay.get(day) ?? carried;
      balance.push(carried);
      projected.push(t === today ? carried : null);
    } else {
      balance.push(null);
      projected.push(Math.max(0, carried - burn * ((t - today) / DAY_MS)));
    }
  }
  return { days, balance, projected };
}

export function Burndown({
  ledger,
  asOf,
  projection,
  denomination,
}: {
  ledger: Schemas['CreditTransaction'][];
  asOf: string;
  projection: UsageReport['creditPools'][number] | undefined;
  denomination: string;
}) {
  const { days, series } = useMemo(() => {
    const b = burndownOf(ledger, asOf, projection);
    const out: ChartSeries[] = [
      { label: `Balance (${denomination})`, values: b.balance, color: '#2553c7' },
      { label: 'Projected', values: b.projected, color: '#b3261e' },
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
          {formatCredits(pool.balance)} {pool.denomination}
        </dd>
      </div>
      <div className="stat">
        <dt>Granted</dt>
        <dd>{formatCredits(pool.totalGranted)}</dd>
      </div>
      <div className="stat">
        <dt>Consumed</dt>
        <dd>{formatCredits(pool.totalConsumed)}</dd>
      </div>
      <div className="stat">
        <dt>Held</dt>
        <dd>{formatCredits(pool.totalHeld)}</dd>
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
