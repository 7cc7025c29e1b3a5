import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { DataTable, type Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { PageHeader, StatusBadge } from '../../components/ui';
import { isoToLocal, localToIso } from '../../local-time';
import { DELIVERY_STATUSES, useWebhookDeliveries, useWebhookEndpoints, WEBHOOK_EVENT_TYPES, type DeliveryQuery, type WebhookDelivery } from '../../queries/webhooks';
import { paths } from '../../routes';
import { AnyChoice, EndpointPicker, endpointLabel, filtersOf, searchOf, useOffsetParam } from './common';

const PAGE_SIZE = 25;
const FILTERS = ['endpointId', 'status', 'eventType', 'eventId', 'since', 'until'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/**
 * The deliveries log (§E4.4), newest first: one event on its way to one endpoint, its status and
 * attempts; filtered by endpoint, status, event type and creation time `[since, until)` (in the URL,
 * as instants, so a filtered view can be shared or linked from an endpoint), paged by offset. A
 * delivery opens with its attempts.
 */
export default function WebhookDeliveriesPage() {
  const [params, setParams] = useSearchParams();
  const { offset, goTo } = useOffsetParam(params, setParams);
  const filters = filtersOf(params, FILTERS);
  const query = { limit: PAGE_SIZE, offset, ...searchToQuery(filters) };
  const deliveries = useWebhookDeliveries(query);
  const endpoints = useWebhookEndpoints();
  const urlOf = (id: string) => {
    const e = endpoints.data?.find((x) => x.id === id);
    return e ? endpointLabel(e) : 'deleted endpoint';
  };
  const page = deliveries.data;
  return (
    <section>
      <PageHeader title="Webhook deliveries" />
      <DeliveryFilters key={searchOf(filters).toString()} initial={filters} onApply={(next) => setParams(searchOf(next))} />
      <DataTable
        label="Webhook deliveries"
        query={deliveries}
        rows={page?.items}
        rowKey={(d) => d.id}
        columns={deliveryColumns((d) => <code>{urlOf(d.endpointId)}</code>)}
        empty="No delivery matches these filters. Deliveries appear when events are recorded for an enabled endpoint, or send a test event:"
        next={{ label: 'Endpoints', to: paths.webhookEndpoints }}
        paging={page ? { ...page.pagination, onGo: goTo } : undefined}
      />
    </section>
  );
}

/** The filters the API takes (empty ones left out). */
function searchToQuery(filters: Filters): Partial<DeliveryQuery> {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== '')) as Partial<DeliveryQuery>;
}

function deliveryColumns(endpoint: (d: WebhookDelivery) => ReactNode): Column<WebhookDelivery>[] {
  return [
    { header: 'Created', cell: (d) => <Time iso={d.createdAt} /> },
    { header: 'Event', cell: (d) => <Link to={paths.webhookDelivery(d.id)}>{d.eventType}</Link> },
    { header: 'Endpoint', cell: endpoint },
    { header: 'Status', cell: (d) => (<><StatusBadge status={d.status} />{d.resend ? <span className="muted small"> resend</span> : null}</>) },
    { header: 'Attempts', num: true, cell: (d) => d.attemptCount },
    { header: 'Last answer', cell: (d) => d.lastResponseStatus ?? d.lastError ?? '—' },
    { header: 'Next attempt', cell: (d) => <Time iso={d.nextAttemptAt} /> },
  ];
}

/** The form shows `since` and `until` in the user's zone; the URL and the API take instants. */
function DeliveryFilters({ initial, onApply }: { initial: Filters; onApply: (next: Filters) => void }) {
  const [values, setValues] = useState<Filters>({ ...initial, since: isoToLocal(initial.since), until: isoToLocal(initial.until) });
  const set = (name: keyof Filters) => (value: string) => setValues({ ...values, [name]: value });
  const clear = (
    <button type="button" className="secondary" onClick={() => onApply({ endpointId: '', status: '', eventType: '', eventId: '', since: '', until: '' })}>
      Clear
    </button>
  );
  const apply = () => onApply({ ...values, since: localToIso(values.since), until: localToIso(values.until) });
  return (
    <Form access="read" label="Delivery filters" submission={{ isPending: false, error: null }} onSubmit={apply} submit="Apply filters" failed="" after={clear}>
      <Field label="Endpoint">
        <EndpointPicker value={values.endpointId} onChange={set('endpointId')} none="Any endpoint" name="endpointId" />
      </Field>
      <Field label="Status">
        <AnyChoice value={values.status} options={DELIVERY_STATUSES} onChange={set('status')} name="status" />
      </Field>
      <Field label="Event type">
        <AnyChoice value={values.eventType} options={WEBHOOK_EVENT_TYPES} onChange={set('eventType')} name="eventType" />
      </Field>
      <Field label="Since">
        <input type="datetime-local" name="since" value={values.since} onChange={(e) => set('since')(e.target.value)} />
      </Field>
      <Field label="Until">
        <input type="datetime-local" name="until" value={values.until} onChange={(e) => set('until')(e.target.value)} />
      </Field>
      {values.eventId ? <span className="muted small">Event {values.eventId} only</span> : null}
    </Form>
  );
}
