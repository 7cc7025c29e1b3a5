import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { DataTable, type Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { PageHeader } from '../../components/ui';
import { isoToLocal, localToIso } from '../../local-time';
import { useWebhookEvents, WEBHOOK_EVENT_TYPES, type EventLogQuery, type WebhookEvent } from '../../queries/webhooks';
import { paths } from '../../routes';
import { AnyChoice, filtersOf, Payload, searchOf, useOffsetParam } from './common';
import { ResendForm } from './resend-form';

const PAGE_SIZE = 25;
const FILTERS = ['type', 'since', 'until'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/**
 * The event log (§E4.6), newest first, filtered by type and creation time `[since, until)` (in the
 * URL, as instants): every recorded event, whether or not an endpoint received it. An event opens to
 * its payload, as JSON text exactly as the API sent it (amounts stay decimal strings), its
 * deliveries, and a resend to an endpoint.
 */
export default function WebhookEventsPage() {
  const [params, setParams] = useSearchParams();
  const { offset, goTo } = useOffsetParam(params, setParams);
  const filters = filtersOf(params, FILTERS);
  const { type } = filters;
  const query: EventLogQuery = {
    limit: PAGE_SIZE,
    offset,
    ...(type ? { type: type as EventLogQuery['type'] } : {}),
    ...(filters.since ? { since: filters.since } : {}),
    ...(filters.until ? { until: filters.until } : {}),
  };
  const events = useWebhookEvents(query);
  const [open, setOpen] = useState<string | null>(null);
  const page = events.data;
  return (
    <section>
      <PageHeader title="Webhook event log" />
      <EventLogFilters key={searchOf(filters).toString()} initial={filters} onApply={(next) => setParams(searchOf(next))} />
      <DataTable
        label="Webhook events"
        query={events}
        rows={page?.items}
        rowKey={(e) => e.id}
        columns={eventColumns((e) => (
          <button type="button" className="secondary" aria-expanded={open === e.id} aria-label={`Payload of ${e.type} ${e.id}`} onClick={() => setOpen(open === e.id ? null : e.id)}>
            Payload
          </button>
        ))}
        detail={(e) =>
          open === e.id ? (
            <>
              <Payload event={e} label={`Payload of event ${e.id}`} />
              <ResendForm eventId={e.id} />
            </>
          ) : null
        }
        empty={type || filters.since || filters.until ? 'No event matches these filters.' : 'No event recorded yet: events are recorded as customers, subscriptions and invoices change, or send a test event from'}
        next={{ label: 'Endpoints', to: paths.webhookEndpoints }}
        paging={page ? { ...page.pagination, onGo: goTo } : undefined}
      />
    </section>
  );
}

function eventColumns(toggle: (e: WebhookEvent) => ReactNode): Column<WebhookEvent>[] {
  return [
    { header: 'Created', cell: (e) => <Time iso={e.createdAt} /> },
    { header: 'Type', cell: (e) => <code>{e.type}</code> },
    { header: 'Event id', cell: (e) => <code>{e.id}</code> },
    { header: 'Deliveries', cell: (e) => <Link to={paths.webhookDeliveries({ eventId: e.id })} aria-label={`Deliveries of event ${e.id}`}>Deliveries</Link> },
    { header: 'Payload', hiddenHeader: true, cell: toggle },
  ];
}

/** The form shows `since` and `until` in the user's zone; the URL and the API take instants. */
function EventLogFilters({ initial, onApply }: { initial: Filters; onApply: (next: Filters) => void }) {
  const [values, setValues] = useState<Filters>({ ...initial, since: isoToLocal(initial.since), until: isoToLocal(initial.until) });
  const set = (name: keyof Filters) => (value: string) => setValues({ ...values, [name]: value });
  const clear = (
    <button type="button" className="secondary" onClick={() => onApply({ type: '', since: '', until: '' })}>
      Clear
    </button>
  );
  const apply = () => onApply({ ...values, since: localToIso(values.since), until: localToIso(values.until) });
  return (
    <Form access="read" label="Event filters" submission={{ isPending: false, error: null }} onSubmit={apply} submit="Apply filters" failed="" after={clear}>
      <Field label="Event type">
        <AnyChoice value={values.type} options={WEBHOOK_EVENT_TYPES} onChange={set('type')} name="type" />
      </Field>
      <Field label="Since">
        <input type="datetime-local" name="since" value={values.since} onChange={(e) => set('since')(e.target.value)} />
      </Field>
      <Field label="Until">
        <input type="datetime-local" name="until" value={values.until} onChange={(e) => set('until')(e.target.value)} />
      </Field>
    </Form>
  );
}
