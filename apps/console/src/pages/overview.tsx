import { useMemo } from 'react';
import type { Schemas } from '../api';
import { DayChart, type ChartSeries } from '../components/chart';
import { DataTable, type Column } from '../components/data-table';
import { Money, MoneyList, Stats } from '../components/figures';
import { PageHeader, QueryView } from '../components/ui';
import { formatCount, formatCredits } from '../format';
import { useAccountCurrency } from '../queries/account';
import { useBillingOverview } from '../queries/billing';
import { useEventOverview } from '../queries/events';

const WINDOW_DAYS = 30;
const TOP = 5;

type EventOverview = Schemas['EventOverview'];
type Totals = EventOverview['topFeatures'][number];
type BillingOverview = Schemas['BillingOverview'];

/**
 * The billing figures, the usage figures and the account's currency are independent reads sent
 * together: the page paints after one round trip (the usage window is the service's, so no call
 * waits for another).
 */
export default function OverviewPage() {
  const overview = useBillingOverview();
  const usage = useEventOverview(WINDOW_DAYS, TOP);
  // Event revenue carries no currency of its own: it is shown in the account's currency.
  const currency = useAccountCurrency();
  return (
    <section>
      <PageHeader title="Overview" />
      <QueryView query={overview} what="the billing figures">
        {(o) => <BillingFigures o={o} />}
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

function BillingFigures({ o }: { o: BillingOverview }) {
  const mrr = <MoneyList rows={o.mrr} separator=" · " render={(r) => <Money amount={r.amount} currency={r.currency} />} />;
  const pastDue = (
    <MoneyList
      rows={o.pastDueInvoices}
      separator=", "
      render={(r) => (
        <>
          {r.invoices} · <Money amount={r.amount} currency={r.currency} />
        </>
      )}
    />
  );
  return (
    <Stats
      items={[
        { label: 'Active subscriptions', testId: 'active-subscriptions', value: formatCount(o.activeSubscriptions) },
        { label: 'MRR (from plan prices)', testId: 'mrr', value: o.mrr.length === 0 ? '—' : mrr },
        { label: 'Invoices past due', testId: 'past-due', value: o.pastDueInvoices.length === 0 ? 'None' : pastDue },
      ]}
    />
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
  const columns: Column<Totals>[] = [
    { header: keyLabel, cell: (g) => <code>{g.key}</code> },
    { header: 'Events', num: true, cell: (g) => formatCount(g.eventCount) },
    { header: 'Units', num: true, cell: (g) => formatCredits(g.usageUnits) },
    { header: 'Revenue', num: true, cell: (g) => <Revenue amount={g.revenueAmount} currency={currency} /> },
  ];
  return (
    <div>
      <h2>{title}</h2>
      <DataTable label={title} columns={columns} rows={rows} rowKey={(g) => g.key} empty={`No usage in the last ${WINDOW_DAYS} days.`} />
    </div>
  );
}
