import { useState } from 'react';
import { useCan } from '../../auth';
import { useConfirm } from '../../components/confirm-dialog';
import { ErrorNote, PageHeader, QueryView, SecretOnce } from '../../components/ui';
import { useRotateTenantKey, useTenantKey } from '../../queries/account';
import { IssuerForm } from './issuer-form';
import { PasswordForm } from './password-form';

/** The tenant key, masked, and its rotation (shown once, every earlier key revoked); the operator's own password. */
export default function AccountPage() {
  const key = useTenantKey();
  const [fresh, setFresh] = useState<string | null>(null);
  const rotate = useRotateTenantKey(setFresh);
  const { ask, dialog } = useConfirm();
  const can = useCan('admin');
  return (
    <section>
      <PageHeader title="Account & keys" />
      <h2>Tenant key</h2>
      <p className="muted">The key your backend sends to the Client API (<code>Authorization: Bearer sk_…</code>).</p>
      <QueryView query={key} what="the tenant key">
        {(data) => (
          <p>
            Current key: <code data-testid="masked-key">{data.apiKey}</code>
          </p>
        )}
      </QueryView>
      {fresh ? <SecretOnce label="New tenant key" value={fresh} onDismiss={() => setFresh(null)} /> : null}
      <button
        type="button"
        disabled={rotate.isPending || !can.allowed}
        title={can.why}
        onClick={() =>
          ask({ title: 'Rotate the tenant key?', body: 'Every earlier tenant key stops working at once.', confirm: 'Rotate key', onConfirm: () => rotate.mutate() })
        }
      >
        Rotate tenant key
      </button>
      <ErrorNote error={rotate.error} title="Rotation failed" />
      <h2>Invoice issuer</h2>
      <p className="muted">Printed on invoice documents; invoices finalised from now on carry it (issued ones keep theirs).</p>
      <IssuerForm />
      <h2>Your password</h2>
      <p className="muted">Changing it signs you out everywhere, this browser included.</p>
      <PasswordForm />
      {dialog}
    </section>
  );
}
