import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { DataTable, type Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { PageHeader } from '../../components/ui';
import { useWebhookEvents, WEBHOOK_EVENT_TYPES, type EventLogQuery, type WebhookEvent } from '../../queries/webhooks';
import { paths } from '../../routes';
import { AnyChoice, Payload, useOffsetParam } from './common';
import { ResendForm } from './resend-form';

const PAGE_SIZE = 25;

/**
 * The event log (§E4.6), newest first, filtered by type: every recorded event, whether or not an
 * endpoint received it. An event opens to its payload, as JSON text exactly as the API sent it
 * (amounts stay decimal strings), its deliveries, and a resend to an endpoint.
 */
export default function WebhookEventsPage() {
  const [params, setParams] = useSearchParams();
  const { offset, goTo } = useOffsetParam(params, setParams);
  const type = params.get('type') ?? '';
  const query: EventLogQuery = { limit: PAGE_SIZE, offset, ...(type ? { type: type as EventLogQuery['type'] } : {}) };
  const events = useWebhookEvents(query);
  const [open, setOpen] = useState<string | null>(null);
  const page = events.data;
  return (
    <section>
      <PageHeader title="Webhook event log" />
      <TypeFilter key={type} initial={type} onApply={(next) => setParams(next ? new URLSearchParams({ type: next }) : new URLSearchParams())} />
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
        empty={type ? 'No event of this type yet.' : 'No event recorded yet: events are recorded as customers, subscriptions and invoices change, or send a test event from'}
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

function TypeFilter({ initial, onApply }: { initial: string; onApply: (type: string) => void }) {
  const [type, setType] = useState(initial);
  const clear = (
    <button type="button" className="secondary" onClick={() => onApply('')}>
      Clear
    </button>
  );
  return (
    <Form access="read" label="Event filters" submission={{ isPending: false, error: null }} onSubmit={() => onApply(type)} submit="Apply filters" failed="" after={clear}>
      <Field label="Event type">
        <AnyChoice value={type} options={WEBHOOK_EVENT_TYPES} onChange={setType} name="type" />
      </Field>
    </Form>
  );
}
