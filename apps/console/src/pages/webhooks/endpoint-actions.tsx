import { Link } from 'react-router';
import { ConfirmButton, type ConfirmRequest } from '../../components/confirm-dialog';
import { ErrorNote, SecondaryButton, StatusNote } from '../../components/ui';
import { useDeleteWebhookEndpoint, useRotateWebhookSecret, useSendTestEvent, useUpdateWebhookEndpoint, type WebhookEndpoint } from '../../queries/webhooks';
import { paths } from '../../routes';

type Props = {
  endpoint: WebhookEndpoint;
  ask: (request: ConfirmRequest) => void;
  onEdit: () => void;
  /** The rotated endpoint, carrying its new secret (shown once). */
  onRotated: (e: WebhookEndpoint) => void;
};

/**
 * An endpoint's row actions: edit, send a test event, rotate the secret (confirmed: the previous one
 * keeps signing for 24 hours), disable (confirmed: pending deliveries end) or enable, delete
 * (confirmed), and its deliveries.
 */
export function EndpointActions({ endpoint: e, ask, onEdit, onRotated }: Props) {
  const test = useSendTestEvent();
  const rotate = useRotateWebhookSecret(onRotated);
  const update = useUpdateWebhookEndpoint();
  const remove = useDeleteWebhookEndpoint();
  const busy = test.isPending || rotate.isPending || update.isPending || remove.isPending;
  const name = (verb: string) => `${verb} ${e.url}`;
  return (
    <div>
      <div className="row-actions">
        <SecondaryButton onClick={onEdit} disabled={busy} name={name('Edit')}>
          Edit
        </SecondaryButton>
        <SecondaryButton onClick={() => test.mutate(e.id)} disabled={busy || !e.enabled} name={name('Send test to')}>
          Send test
        </SecondaryButton>
        <ConfirmButton ask={ask} name={name('Rotate secret of')} disabled={busy} request={{ title: `Rotate the signing secret of ${e.url}?`, body: 'A new secret is shown once. The previous secret keeps signing for 24 hours, so the receiver can switch over.', confirm: 'Rotate secret', onConfirm: () => rotate.mutate(e.id) }}>
          Rotate secret
        </ConfirmButton>
        {e.enabled ? (
          <ConfirmButton ask={ask} name={name('Disable')} disabled={busy} request={{ title: `Disable ${e.url}?`, body: 'It receives nothing while disabled: its pending deliveries end at once, and events recorded meanwhile are not sent later.', confirm: 'Disable endpoint', onConfirm: () => update.mutate({ endpointId: e.id, enabled: false }) }}>
            Disable
          </ConfirmButton>
        ) : (
          <SecondaryButton onClick={() => update.mutate({ endpointId: e.id, enabled: true })} disabled={busy} name={name('Enable')}>
          Enable
          </SecondaryButton>
        )}
        <ConfirmButton ask={ask} name={name('Delete')} disabled={busy} request={{ title: `Delete ${e.url}?`, body: 'Its pending deliveries end; its past deliveries stay in the log.', confirm: 'Delete endpoint', onConfirm: () => remove.mutate(e.id) }}>
          Delete
        </ConfirmButton>
        <Link to={paths.webhookDeliveries({ endpointId: e.id })} aria-label={`Deliveries of ${e.url}`}>
          Deliveries
        </Link>
      </div>
      {test.data ? (
        <StatusNote className="small">
          Test event sent: <Link to={paths.webhookDelivery(test.data.id)}>delivery {test.data.status}</Link>
        </StatusNote>
      ) : null}
      {[test, rotate, update, remove].map((m, i) => (
        <ErrorNote key={i} error={m.error} title="Not done" />
      ))}
    </div>
  );
}
