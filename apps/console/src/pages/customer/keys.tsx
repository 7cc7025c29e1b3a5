import { useState, type ReactNode } from 'react';
import type { Schemas } from '../../api';
import { useCan } from '../../auth';
import { useConfirm, type ConfirmRequest } from '../../components/confirm-dialog';
import { DataTable, type Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { Form } from '../../components/form';
import { ErrorNote, SecretOnce, StatusBadge } from '../../components/ui';
import { useCreateCustomerApiKey, useCustomerApiKeys, useRevokeCustomerApiKey, useRotateCustomerApiKey, type KeyScope } from '../../queries/customers';
import { KeyBudget } from './key-budget';

type Key = Schemas['OperatorCustomerApiKey'];
const SCOPES: KeyScope[] = ['read', 'purchase'];

/** A key's state as a badge: revoked (or rotated away), expired, or active. */
function stateOf(key: Key): string {
  if (key.revokedAt) return 'REVOKED';
  return key.active ? 'ACTIVE' : 'EXPIRED';
}

type Fresh = { label: string; value: string } | null;

/**
 * The customer's scoped keys, by its internal id (the Admin API twin of the Client API's key routes,
 * agent v2 §2.1): hints only; a new or rotated key is shown once with a copy button.
 */
export function CustomerKeys({ customerId }: { customerId: string }) {
  const keys = useCustomerApiKeys(customerId);
  const [fresh, setFresh] = useState<Fresh>(null);
  const [budgetOf, setBudgetOf] = useState<Key | null>(null);
  const rotate = useRotateCustomerApiKey(customerId, (value) => setFresh({ label: 'Replacement customer key', value }));
  const revoke = useRevokeCustomerApiKey(customerId);
  const { ask, dialog } = useConfirm();
  const busy = rotate.isPending || revoke.isPending;
  const can = useCan('admin');
  const endsAccess = (verb: 'Rotate' | 'Revoke', k: Key, run: () => void): ConfirmRequest => ({
    title: `${verb} ${k.keyHint}?`,
    body: 'It stops working at once.',
    confirm: `${verb} key`,
    onConfirm: run,
  });
  return (
    <>
      <NewKeyForm customerId={customerId} busy={busy} onIssued={setFresh} />
      {fresh ? <SecretOnce label={fresh.label} value={fresh.value} onDismiss={() => setFresh(null)} /> : null}
      <ErrorNote error={rotate.error} title="Key not rotated" />
      <ErrorNote error={revoke.error} title="Key not revoked" />
      <DataTable
        label="Customer keys"
        what="customer keys"
        query={keys}
        rows={keys.data}
        rowKey={(k) => k.id}
        empty="No customer key."
        columns={keyColumns((k) => (
          <div className="row-actions">
            <button type="button" className="secondary" aria-label={`Budget of ${k.keyHint}`} onClick={() => setBudgetOf(budgetOf?.id === k.id ? null : k)}>
              Budget
            </button>
            {(['Rotate', 'Revoke'] as const).map((verb) => (
              <button
                key={verb}
                type="button"
                className="secondary"
                disabled={busy || !can.allowed}
                title={can.why}
                aria-label={`${verb} ${k.keyHint}`}
                onClick={() => ask(endsAccess(verb, k, () => (verb === 'Rotate' ? rotate : revoke).mutate(k.id)))}
              >
                {verb}
              </button>
            ))}
          </div>
        ))}
      />
      {budgetOf ? <KeyBudget key={budgetOf.id} customerId={customerId} keyId={budgetOf.id} keyHint={budgetOf.keyHint} /> : null}
      {dialog}
    </>
  );
}

function keyColumns(actions: (key: Key) => ReactNode): Column<Key>[] {
  return [
    { header: 'Key', cell: (k) => <code>{k.keyHint}</code> },
    { header: 'Scopes', cell: (k) => k.scopes.join(', ') },
    { header: 'Created', cell: (k) => <Time iso={k.createdAt} /> },
    { header: 'Last used', cell: (k) => (k.lastUsedAt ? <Time iso={k.lastUsedAt} /> : 'never') },
    {
      header: 'Status',
      cell: (k) => (
        <>
          <StatusBadge status={stateOf(k)} />
          {k.revokedAt ? (
            <span className="muted small">
              {' '}
              <Time iso={k.revokedAt} />
            </span>
          ) : null}
        </>
      ),
    },
    { header: 'Actions', hiddenHeader: true, cell: (k) => (k.revokedAt ? null : actions(k)) },
  ];
}

function NewKeyForm({ customerId, busy, onIssued }: { customerId: string; busy: boolean; onIssued: (fresh: Fresh) => void }) {
  const [scopes, setScopes] = useState<Record<KeyScope, boolean>>({ read: true, purchase: false });
  const create = useCreateCustomerApiKey(customerId, (value) => onIssued({ label: 'New customer key', value }));
  return (
    <Form
      access="admin"
      label="New customer key"
      submission={{ ...create, isPending: create.isPending || busy }}
      onSubmit={() => create.mutate(SCOPES.filter((s) => scopes[s]))}
      submit="Create key"
      failed="Key not created"
    >
      <fieldset className="scopes">
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <label key={scope} className="check">
            <input type="checkbox" checked={scopes[scope]} onChange={(e) => setScopes({ ...scopes, [scope]: e.target.checked })} />
            {scope}
          </label>
        ))}
      </fieldset>
    </Form>
  );
}
