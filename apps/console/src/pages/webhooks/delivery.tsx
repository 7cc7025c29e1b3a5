import { Link, useParams } from 'react-router';
import { DataTable } from '../../components/data-table';
import { Stats, Time } from '../../components/figures';
import { PageHeader, QueryView, StatusBadge } from '../../components/ui';
import { useWebhookDelivery, useWebhookEndpoints, useWebhookEvent, type DeliveryWithAttempts } from '../../queries/webhooks';
import { paths } from '../../routes';
import { endpointLabel, Payload } from './common';
import { ResendForm } from './resend-form';

type Attempt = DeliveryWithAttempts['attempts'][number];

/** One delivery (§E4.4): its status, every attempt (status, duration, the answer's first 1 KiB, the error), the payload sent, and a resend. */
export default function WebhookDeliveryPage() {
  const { deliveryId = '' } = useParams();
  const delivery = useWebhookDelivery(deliveryId);
  return (
    <section>
      <PageHeader title="Webhook delivery">
        <Link to={paths.webhookDeliveries()}>All deliveries</Link>
      </PageHeader>
      <QueryView query={delivery} what="the delivery">
        {(d) => <DeliveryView delivery={d} />}
      </QueryView>
    </section>
  );
}

function DeliveryView({ delivery: d }: { delivery: DeliveryWithAttempts }) {
  const endpoint = useWebhookEndpoints().data?.find((e) => e.id === d.endpointId);
  return (
    <>
      <Stats
        items={[
          { label: 'Event', value: <code>{d.eventType}</code> },
          { label: 'Endpoint', value: endpoint ? endpointLabel(endpoint) : 'deleted endpoint' },
          { label: 'Status', value: <StatusBadge status={d.status} />, testId: 'delivery-status' },
          { label: 'Attempts', value: d.attemptCount },
          { label: 'Next attempt', value: <Time iso={d.nextAttemptAt} /> },
          { label: 'Created', value: <Time iso={d.createdAt} /> },
        ]}
      />
      {d.lastError ? <p className="notice">Last error: {d.lastError}</p> : null}
      <h2>Attempts</h2>
      <DataTable<Attempt>
        label="Attempts"
        rows={d.attempts}
        rowKey={(a) => String(a.number)}
        empty={d.status === 'PENDING' ? 'No attempt yet: the first one starts within seconds.' : 'No attempt was made.'}
        columns={[
          { header: '#', num: true, cell: (a) => a.number },
          { header: 'Started', cell: (a) => <Time iso={a.startedAt} /> },
          { header: 'Duration (ms)', num: true, cell: (a) => a.durationMs },
          { header: 'Result', cell: (a) => <StatusBadge status={a.success ? 'SUCCEEDED' : 'FAILED'} /> },
          { header: 'Response status', num: true, cell: (a) => a.responseStatus ?? '—' },
          { header: 'Response body (first 1 KiB)', cell: (a) => (a.responseBody ? <code className="rule-value">{a.responseBody}</code> : a.responseBody === '' ? 'empty' : '—') },
          { header: 'Error', cell: (a) => a.error ?? '—' },
        ]}
      />
      <h2>Payload</h2>
      <EventPayload eventId={d.eventId} />
      <h2>Resend</h2>
      <ResendForm eventId={d.eventId} endpointId={d.endpointId} />
    </>
  );
}

function EventPayload({ eventId }: { eventId: string }) {
  const event = useWebhookEvent(eventId);
  return <QueryView query={event} what="the event">{(e) => <Payload event={e} label={`Payload of event ${e.id}`} />}</QueryView>;
}
