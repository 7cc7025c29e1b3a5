import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, unwrap, type Schemas } from '../api';
import { DayChart, type ChartSeries } from '../chart';
import { formatCount, formatCredits, formatMoney } from '../format';
import { Empty, ErrorNote, Loading, PageHeader, QueryView } from '../ui';

const WINDOW_DAYS = 30;
const TOP = 5;

type Groups = Schemas['EventGroups'];

/** The 30 UTC days ending on `asOf`'s day, oldest first, and the window's start. */
function windowOf(asOf: string): { days: string[]; from: string } {
  const end = Date.parse(`${asOf.slice(0, 10)}T00:00:00Z`);
  const days = Array.from({ length: WINDOW_DAYS }, (_, i) => new Date(end - (WINDOW_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  return { days, from: `${days[0]}T00:00:00Z` };
}

function useGroups(groupBy: 'day' | 'feature' | 'customer', from: string | undefined) {
  return useQuery({
    queryKey: ['event-groups', groupBy, from],
    enabled: from !== undefined,
    queryFn: () => unwrap(api.GET('/api/v1/tanso/events/grouped', { params: { query: { groupBy, from: from!, eventType: 'CLIENT_TRACKED' } } })),
  });
}

export default function OverviewPage() {
  const overview = useQuery({ queryKey: ['billing-overview'], queryFn: () => unwrap(api.GET('/api/v1/monetization/billing/overview')) });
  const window = overview.data ? windowOf(String(overview.data.asOf)) : undefined;
  const byDay = useGroups('day', window?.from);
  const byFeature = useGroups('feature', window?.from);
  const byCustomer = useGroups('customer', window?.from);

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
              <dd data-testid="mrr">{o.mrr.length === 0 ? '—' : o.mrr.map((r) => formatMoney(r.amount, r.currency)).join(' · ')}</dd>
            </div>
            <div className="stat">
              <dt>Invoices past due</dt>
              <dd data-testid="past-due">
                {o.pastDueInvoices.length === 0
                  ? 'None'
                  : o.pastDueInvoices.map((r) => `${r.invoices} · ${formatMoney(r.amount, r.currency)}`).join(', ')}
              </dd>
            </div>
          </dl>
        )}
      </QueryView>
      {window ? (
        <>
          <QueryView query={byDay} what="events per day">
            {(groups) => <DailyCharts days={window.days} groups={groups} />}
          </QueryView>
          <div className="two-columns">
            <TopTable title="Top features" keyLabel="Feature" query={byFeature} />
            <TopTable title="Top customers by usage" keyLabel="Customer" query={byCustomer} />
          </div>
        </>
      ) : null}
    </section>
  );
}

function DailyCharts({ days, groups }: { days: string[]; groups: Groups }) {
  const series = useMemo<ChartSeries[]>(() => {
    const byKey = new Map(groups.items.map((g) => [g.key, g]));
    // Plotted as numbers (a picture); the figures in text come from the exact decimals.
    return [
      { label: 'Events', values: days.map((d) => byKey.get(d)?.eventCount ?? 0), color: '#2553c7', bars: true },
      { label: 'Revenue', values: days.map((d) => Number(byKey.get(d)?.revenueAmount ?? 0)), color: '#1d8a4a', axis: 'right' },
    ];
  }, [days, groups]);
  const total = groups.items.reduce((n, g) => n + g.eventCount, 0);
  return (
    <>
      <p className="muted" data-testid="events-30d">
        {formatCount(total)} events in the last {WINDOW_DAYS} days (UTC)
      </p>
      <DayChart title={`Events and revenue per day, last ${WINDOW_DAYS} days`} days={days} series={series} />
    </>
  );
}

function TopTable({ title, keyLabel, query }: { title: string; keyLabel: string; query: ReturnType<typeof useGroups> }) {
  if (query.isPending) return <Loading what={title.toLowerCase()} />;
  if (query.error) return <ErrorNote error={query.error} title={`Could not load ${title.toLowerCase()}`} />;
  const top = [...query.data.items]
    .sort((a, b) => b.eventCount - a.eventCount || String(a.key).localeCompare(String(b.key)))
    .slice(0, TOP);
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
              <tr key={String(g.key)}>
                <td>
                  <code>{g.key ?? '—'}</code>
                </td>
                <td className="num">{formatCount(g.eventCount)}</td>
                <td className="num">{formatCredits(g.usageUnits)}</td>
                <td className="num">{formatCredits(g.revenueAmount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
