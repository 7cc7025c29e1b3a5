import { useQuery } from '@tanstack/react-query';
import { Fragment, useMemo } from 'react';
import { api, unwrap, type Schemas } from '../api';
import { DayChart, type ChartSeries } from '../chart';
import { formatCount, formatCredits } from '../format';
import { Empty, Money, PageHeader, QueryView } from '../ui';

const WINDOW_DAYS = 30;
const TOP = 5;

type EventOverview = Schemas['EventOverview'];
type Totals = EventOverview['topFeatures'][number];

/**
 * The billing figures, the usage figures and the account's currency are independent reads sent
 * together: the page paints after one round trip (the usage window is the service's, so no call
 * waits for another).
 */
export default function OverviewPage() {
  const overview = useQuery({ queryKey: ['billing-overview'], queryFn: () => unwrap(api.GET('/api/v1/monetization/billing/overview')) });
  const usage = useQuery({
    queryKey: ['event-overview', WINDOW_DAYS],
    queryFn: () => unwrap(api.GET('/api/v1/tanso/events/overview', { params: { query: { days: WINDOW_DAYS, top: TOP, eventType: 'CLIENT_TRACKED' } } })),
  });
  // Event revenue carries no currency of its own: it is shown in the account's currency.
  const settings = useQuery({ queryKey: ['account-settings'], queryFn: () => unwrap(api.GET('/api/v1/tanso/account-settings')) });
  const currency = settings.data?.currency;

  return (
    <section>
      <PageHeader title="Overview" />
      <QueryView query={overview} what="the billing figures">
        {(o) => (
          <dl className="stats">
            <div className="stat">
              <dt>Active subscriptions</dt>
              <dd data-testid="active-subscriptions">{formatCount(o.activeSubscriptions)}</dd>
            </div>
            <div className="stat">
              <dt>MRR (from plan prices)</dt>
              <dd data-testid="mrr">
                {o.mrr.length === 0
                  ? '—'
                  : o.mrr.map((r, i) => (
                      <Fragment key={r.currency}>
                        {i > 0 ? ' · ' : null}
                        <Money amount={r.amount} currency={r.currency} />
                      </Fragment>
                    ))}
              </dd>
            </div>
            <div className="stat">
              <dt>Invoices past due</dt>
              <dd data-testid="past-due">
                {o.pastDueInvoices.length === 0
                  ? 'None'
                  : o.pastDueInvoices.map((r, i) => (
                      <Fragment key={r.currency}>
                        {i > 0 ? ', ' : null}
                        {r.invoices} · <Money amount={r.amount} currency={r.currency} />
                      </Fragment>
                    ))}
              </dd>
            </div>
          </dl>
        )}
      </QueryView>
      <QueryView query={usage} what="usage of the last 30 days">
        {(u) => (
          <>
            <DailyCharts usage={u} currency={currency} />
            <div className="two-columns">
              <TopTable title="Top features" keyLabel="Feature" rows={u.topFeatures} currency={currency} />
              <TopTable title="Top customers by usage" keyLabel="Customer" rows={u.topCustomers} currency={currency} />
            </div>
          </>
        )}
      </QueryView>
    </section>
  );
}

/** Revenue in the account's currency; a dash until that currency is known. */
function Revenue({ amount, currency }: { amount: string | number; currency: string | undefined }) {
  return currency ? <Money amount={amount} currency={currency} /> : <>—</>;
}

function DailyCharts({ usage, currency }: { usage: EventOverview; currency: string | undefined }) {
  const days = useMemo(() => usage.days.map((d) => d.day), [usage]);
  const series = useMemo<ChartSeries[]>(
    () => [
      { label: 'Events', values: usage.days.map((d) => String(d.eventCount)), color: '#2553c7', bars: true, show: (v) => formatCount(Number(v)) },
      { label: 'Revenue', values: usage.days.map((d) => String(d.revenueAmount)), color: '#1d8a4a', axis: 'right', show: (v) => <Revenue amount={v} currency={currency} /> },
    ],
    [usage, currency],
  );
  const total = usage.days.reduce((n, d) => n + d.eventCount, 0);
  return (
    <>
      <p className="muted" data-testid="events-30d">
        {formatCount(total)} events in the last {WINDOW_DAYS} days (UTC)
      </p>
      <DayChart title={`Events and revenue per day, last ${WINDOW_DAYS} days`} days={days} series={series} />
    </>
  );
}

function TopTable({ title, keyLabel, rows, currency }: { title: string; keyLabel: string; rows: Totals[]; currency: string | undefined }) {
  const top = rows;
  return (
    <div>
      <h2>{title}</h2>
      {top.length === 0 ? (
        <Empty>No usage in the last {WINDOW_DAYS} days.</Empty>
      ) : (
        <table aria-label={title}>
          <thead>
            <tr>
              <th scope="col">{keyLabel}</th>
              <th scope="col" className="num">
                Events
              </th>
              <th scope="col" className="num">
                Units
              </th>
              <th scope="col" className="num">
                Revenue
              </th>
            </tr>
          </thead>
          <tbody>
            {top.map((g) => (
              <tr key={g.key}>
                <td>
                  <code>{g.key}</code>
                </td>
                <td className="num">{formatCount(g.eventCount)}</td>
                <td className="num">{formatCredits(g.usageUnits)}</td>
                <td className="num">
                  <Revenue amount={g.revenueAmount} currency={currency} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
