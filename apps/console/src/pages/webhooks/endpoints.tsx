import { useState, type ReactNode } from 'react';
import { useConfirm } from '../../components/confirm-dialog';
import { DataTable, type Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { PageHeader, SecretOnce, StatusBadge } from '../../components/ui';
import { useWebhookEndpoints, type WebhookEndpoint } from '../../queries/webhooks';
import { EndpointActions } from './endpoint-actions';
import { EndpointForm } from './endpoint-form';

type Fresh = { label: string; value: string } | null;
const focusUrl = () => document.querySelector<HTMLInputElement>('form input[name="url"]')?.focus();

/**
 * The account's webhook endpoints (api-contract-events.md §E2): each with its event types, whether
 * it is enabled (or why not), a warning while its attempts fail, and its secret's hint. A new or
 * rotated secret is shown once, with a copy button.
 */
export default function WebhookEndpointsPage() {
  const endpoints = useWebhookEndpoints();
  const [fresh, setFresh] = useState<Fresh>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const { ask, dialog } = useConfirm();
  const showSecret = (what: string) => (e: WebhookEndpoint) => setFresh(e.secret ? { label: `${what} of ${e.url}`, value: e.secret } : null);
  return (
    <section>
      <PageHeader title="Webhook endpoints" />
      <p className="muted">Each endpoint receives the account's events, signed with its own secret (Standard Webhooks).</p>
      <EndpointForm onCreated={showSecret('Signing secret')} />
      {fresh ? <SecretOnce label={fresh.label} value={fresh.value} onDismiss={() => setFresh(null)} /> : null}
      <DataTable
        label="Webhook endpoints"
        query={endpoints}
        rows={endpoints.data}
        rowKey={(e) => e.id}
        empty="No webhook endpoint yet: add one with its URL to receive events."
        next={{ label: 'Add an endpoint', onClick: focusUrl }}
        detail={(e) => (editing === e.id ? <EndpointForm endpoint={e} onDone={() => setEditing(null)} /> : null)}
        columns={endpointColumns((e) => (
          <EndpointActions endpoint={e} ask={ask} onEdit={() => setEditing(editing === e.id ? null : e.id)} onRotated={showSecret('New signing secret')} />
        ))}
      />
      {dialog}
    </section>
  );
}

function endpointColumns(actions: (e: WebhookEndpoint) => ReactNode): Column<WebhookEndpoint>[] {
  return [
    {
      header: 'Endpoint',
      cell: (e) => (
        <>
          <code>{e.url}</code>
          {e.description ? <div className="muted small">{e.description}</div> : null}
        </>
      ),
    },
    { header: 'Event types', cell: (e) => (e.eventTypes.length === 0 ? 'all' : e.eventTypes.join(', ')) },
    { header: 'Status', cell: (e) => <EndpointStatus endpoint={e} /> },
    {
      header: 'Secret',
      cell: (e) => (
        <>
          <code>{e.secretHint}</code>
          {e.previousSecretExpiresAt ? (
            <div className="muted small">
              Previous secret signs until <Time iso={e.previousSecretExpiresAt} />
            </div>
          ) : null}
        </>
      ),
    },
    { header: 'Actions', hiddenHeader: true, cell: actions },
  ];
}

const REASONS = { MANUAL: 'by an operator', FAILING: 'failing for 5 days', GONE: 'the receiver answered 410 Gone' } as const;

/** Enabled, or disabled with its reason and time; a warning while its attempts have been failing. */
function EndpointStatus({ endpoint: e }: { endpoint: WebhookEndpoint }) {
  return (
    <>
      <StatusBadge status={e.enabled ? 'ENABLED' : 'DISABLED'} />
      {!e.enabled && e.disabledReason ? (
        <div className="muted small">
          {REASONS[e.disabledReason]}
          {e.disabledAt ? (
            <>
              , <Time iso={e.disabledAt} />
            </>
          ) : null}
        </div>
      ) : null}
      {e.failingSince ? (
        <div className="notice small">
          Failing since <Time iso={e.failingSince} />: disabled after 5 days of failures
        </div>
      ) : null}
    </>
  );
}
