import { useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { DataTable, type Column } from '../../components/data-table';
import { Time, UnitPrice } from '../../components/figures';
import { PageHeader } from '../../components/ui';
import { formatCredits } from '../../format';
import { useAccountCurrency } from '../../queries/account';
import { useEvents, type EventQuery } from '../../queries/events';
import { EventFilters, FILTERS } from './filters';
import { Receipt } from './receipt';

const PAGE_SIZE = 25;
type Event = NonNullable<ReturnType<typeof useEvents>['data']>['items'][number];

/** The event's receipt context, where a credit-backed event carries what it drew. */
const contextOf = (e: Event) => e.context as Record<string, unknown>;
const drawnOf = (e: Event) => contextOf(e).credit_deducted as string | number | undefined;

/**
 * Usage events, newest first, filtered by customer, feature, kind, flowId and time, paged by
 * offset. The filters live in the URL so a filtered view can be shared. A credit-backed event
 * carries its receipt in its context (credits drawn, usage covered, the weight row matched).
 */
export default function EventsPage() {
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const query: Record<string, string | number> = { limit: PAGE_SIZE, offset };
  for (const f of FILTERS) {
    const v = params.get(f);
    if (v) query[f] = v;
  }
  const events = useEvents(query as EventQuery);
  // Event revenue carries no currency of its own: it is shown in the account's currency, every digit
  // (one event's revenue is often a fraction of a cent, which money rounded to cents would hide).
  const currency = useAccountCurrency();
  const [open, setOpen] = useState<string | null>(null);
  function goTo(nextOffset: number) {
    const next = new URLSearchParams(params);
    if (nextOffset > 0) next.set('offset', String(nextOffset));
    else next.delete('offset');
    setParams(next);
  }
  const columns = eventColumns(currency, (e) => <ReceiptToggle event={e} open={open === e.id} onToggle={() => setOpen(open === e.id ? null : e.id)} />);
  const page = events.data;
  return (
    <section>
      <PageHeader title="Events" />
      <EventFilters params={params} onApply={setParams} />
      <DataTable
        label="Events"
        query={events}
        columns={columns}
        rows={page?.items}
        rowKey={(e) => e.id}
        empty="No events match these filters."
        detail={(e) => (open === e.id ? <Receipt ctx={contextOf(e)} idempotencyKey={e.eventIdempotencyKey} /> : null)}
        paging={page ? { ...page.pagination, onGo: goTo } : undefined}
      />
    </section>
  );
}

function eventColumns(currency: string | undefined, drawn: (e: Event) => ReactNode): Column<Event>[] {
  return [
    { header: 'Occurred', cell: (e) => <Time iso={e.occurredAt} /> },
    { header: 'Customer', cell: (e) => e.customerReferenceId },
    { header: 'Feature', cell: (e) => <code>{e.featureKey}</code> },
    { header: 'Event', cell: (e) => e.eventName },
    { header: 'Kind', cell: (e) => e.eventType },
    { header: 'Units', num: true, cell: (e) => formatCredits(e.usageUnits) },
    { header: 'Revenue', num: true, cell: (e) => (currency ? <UnitPrice amount={e.revenueAmount} currency={currency} /> : '—') },
    { header: 'Flow', cell: (e) => (e.flowId ? <code>{e.flowId}</code> : '—') },
    { header: 'Credits drawn', num: true, cell: drawn },
  ];
}

/** The credits an event drew, as a button that opens its receipt ("—" for an event that drew none). */
function ReceiptToggle({ event: e, open, onToggle }: { event: Event; open: boolean; onToggle: () => void }) {
  const drawn = drawnOf(e);
  if (drawn === undefined) return <>—</>;
  return (
    <button type="button" className="secondary" aria-expanded={open} aria-label={`${formatCredits(drawn)}: receipt of ${e.eventIdempotencyKey}`} onClick={onToggle}>
      {formatCredits(drawn)}
    </button>
  );
}
