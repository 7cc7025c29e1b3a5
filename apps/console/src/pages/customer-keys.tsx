import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api';
import { Empty, ErrorNote, QueryView, SecretOnce, StatusBadge, Time } from '../ui';

type Key = Schemas['OperatorCustomerApiKey'];
const SCOPES = ['read', 'purchase'] as const;
type EmptyAnswer = { data?: { data?: undefined }; error?: unknown; response: Response };

/** A key's state as a badge: revoked (or rotated away), expired, or active. */
function stateOf(key: Key): string {
  if (key.revokedAt) return 'REVOKED';
  return key.active ? 'ACTIVE' : 'EXPIRED';
}

/**
 * The customer's scoped keys (Admin API over the same use cases as the Client API's key routes):
 * hints only; a new or rotated key is shown once with a copy button.
 */
export function CustomerKeys({ customerRef }: { customerRef: string }) {
  const queryClient = useQueryClient();
  const path = { ref: customerRef };
  const keys = useQuery({
    queryKey: ['customer-keys', customerRef],
    queryFn: () => unwrap(api.GET('/api/v1/tanso/customers/{ref}/keys', { params: { path, query: { limit: 200 } } })),
  });
  const [fresh, setFresh] = useState<{ label: string; value: string } | null>(null);
  const [scopes, setScopes] = useState<Record<string, boolean>>({ read: true, purchase: false });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['customer-keys', customerRef] });
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/tanso/customers/{ref}/keys', { params: { path }, body: { scopes: SCOPES.filter((s) => scopes[s]) } })),
    onSuccess: (issued) => {
      setFresh({ label: 'New customer key', value: issued.apiKey });
      refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: (keyId: string) => unwrap(api.POST('/api/v1/tanso/customers/{ref}/keys/{keyId}/rotate', { params: { path: { ...path, keyId } } })),
    onSuccess: (issued) => {
      setFresh({ label: 'Replacement customer key', value: issued.apiKey });
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => unwrap(api.DELETE('/api/v1/tanso/customers/{ref}/keys/{keyId}', { params: { path: { ...path, keyId } } }) as Promise<EmptyAnswer>),
    onSuccess: refresh,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  const busy = create.isPending || rotate.isPending || revoke.isPending;
  return (
    <>
      <form className="inline-form" onSubmit={submit} aria-label="New customer key">
        <fieldset className="scopes">
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} className="check">
              <input type="checkbox" checked={scopes[scope] ?? false} onChange={(e) => setScopes({ ...scopes, [scope]: e.target.checked })} />
              {scope}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={busy}>
          Create key
        </button>
        <ErrorNote error={create.error} title="Key not created" />
      </form>
      {fresh ? <SecretOnce label={fresh.label} value={fresh.value} onDismiss={() => setFresh(null)} /> : null}
      <ErrorNote error={rotate.error} title="Key not rotated" />
      <ErrorNote error={revoke.error} title="Key not revoked" />
      <QueryView query={keys} what="customer keys">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No customer key.</Empty>
          ) : (
            <table aria-label="Customer keys">
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((k) => (
                  <tr key={k.id}>
                    <td>
                      <code>{k.keyHint}</code>
                    </td>
                    <td>{k.scopes.join(', ')}</td>
                    <td>
                      <Time iso={k.createdAt} />
                    </td>
                    <td>{k.lastUsedAt ? <Time iso={k.lastUsedAt} /> : 'never'}</td>
                    <td>
                      <StatusBadge status={stateOf(k)} />
                      {k.revokedAt ? (
                        <span className="muted small">
                          {' '}
                          <Time iso={k.revokedAt} />
                        </span>
                      ) : null}
                    </td>
                    <td>
                      {k.revokedAt ? null : (
                        <div className="row-actions">
                          <button
                            type="button"
                            className="secondary"
                            disabled={busy}
                            aria-label={`Rotate ${k.keyHint}`}
                            onClick={() => {
                              if (window.confirm(`Rotate ${k.keyHint}? It stops working at once.`)) rotate.mutate(k.id);
                            }}
                          >
                            Rotate
                          </button>
                          <button
                            type="button"
                            className="secondary"
                            disabled={busy}
                            aria-label={`Revoke ${k.keyHint}`}
                            onClick={() => {
                              if (window.confirm(`Revoke ${k.keyHint}? It stops working at once.`)) revoke.mutate(k.id);
                            }}
                          >
                            Revoke
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </>
  );
}
