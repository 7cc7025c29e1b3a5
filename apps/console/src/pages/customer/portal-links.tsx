/**
 * The customer's portal links (Client API portal sessions): open one with a lifetime and what it
 * permits, its URL shown once with a copy button (it carries the token), the list by token hint,
 * and revoking one after a confirmation (the customer loses access at once).
 */
import { useState } from 'react';
import type { Schemas } from '../../api';
import { ConfirmButton, useConfirm } from '../../components/confirm-dialog';
import { DataTable, type Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { Check, Field, Form } from '../../components/form';
import { ErrorNote, SecretOnce, StatusBadge } from '../../components/ui';
import { useCreatePortalLink, usePortalLinks, useRevokePortalLink } from '../../queries/customers';

type Link = Schemas['PortalSession'];

const LIFETIMES = [
  { seconds: 900, label: '15 minutes' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 28_800, label: '8 hours' },
  { seconds: 86_400, label: '24 hours' },
];

const stateOf = (l: Link) => (l.revokedAt ? 'REVOKED' : l.active ? 'ACTIVE' : 'EXPIRED');

const COLUMNS: Column<Link>[] = [
  { header: 'Link', cell: (l) => <code>{l.tokenHint}</code> },
  { header: 'Permissions', cell: (l) => l.scopes.join(', ') },
  { header: 'Created', cell: (l) => <Time iso={l.createdAt} /> },
  { header: 'Expires', cell: (l) => <Time iso={l.expiresAt} /> },
  { header: 'Status', cell: (l) => <StatusBadge status={stateOf(l)} /> },
];

export function PortalLinks({ customerRef }: { customerRef: string }) {
  const [url, setUrl] = useState<string | null>(null);
  return (
    <>
      <NewPortalLinkForm customerRef={customerRef} onIssued={setUrl} />
      {url ? <SecretOnce label="New portal link" value={url} onDismiss={() => setUrl(null)} /> : null}
      <PortalLinkTable customerRef={customerRef} />
    </>
  );
}

/** The links by token hint, newest first; an active one can be revoked (after a confirmation). */
function PortalLinkTable({ customerRef }: { customerRef: string }) {
  const links = usePortalLinks(customerRef);
  const revoke = useRevokePortalLink(customerRef);
  const { ask, dialog } = useConfirm();
  const revokeRequest = (l: Link) => ({
    title: `Revoke ${l.tokenHint}?`,
    body: 'The customer loses access to the portal through this link at once.',
    confirm: 'Revoke link',
    onConfirm: () => revoke.mutate(l.id),
  });
  const revokeButton = (l: Link) =>
    l.active ? (
      <ConfirmButton ask={ask} name={`Revoke ${l.tokenHint}`} disabled={revoke.isPending} request={revokeRequest(l)}>
        Revoke
      </ConfirmButton>
    ) : null;
  return (
    <>
      <ErrorNote error={revoke.error} title="Link not revoked" />
      <DataTable
        label="Portal links"
        query={links}
        rows={links.data?.items}
        rowKey={(l) => l.id}
        empty="No portal link yet: open one with the form above and send it to the customer."
        columns={[...COLUMNS, { header: 'Actions', hiddenHeader: true, cell: revokeButton }]}
      />
      {dialog}
    </>
  );
}

function NewPortalLinkForm({ customerRef, onIssued }: { customerRef: string; onIssued: (url: string) => void }) {
  const [expiresInSeconds, setLifetime] = useState(3600);
  const [allowPurchase, setAllowPurchase] = useState(false);
  const [allowPlanChange, setAllowPlanChange] = useState(false);
  const [allowCancel, setAllowCancel] = useState(false);
  const [allowAutoTopup, setAllowAutoTopup] = useState(false);
  const [returnUrl, setReturnUrl] = useState('');
  const create = useCreatePortalLink(customerRef, onIssued);
  const body = { expiresInSeconds, allowPurchase, allowPlanChange, allowCancel, allowAutoTopup, ...(returnUrl.trim() ? { returnUrl: returnUrl.trim() } : {}) };
  return (
    <Form label="New portal link" submission={create} onSubmit={() => create.mutate(body)} submit="Create link" pending="Creating…" failed="Link not created">
      <Field label="Lifetime" name="expiresInSeconds">
        <select name="expiresInSeconds" value={expiresInSeconds} onChange={(e) => setLifetime(Number(e.target.value))}>
          {LIFETIMES.map((l) => (
            <option key={l.seconds} value={l.seconds}>
              {l.label}
            </option>
          ))}
        </select>
      </Field>
      <Check label="Allow credit top-ups" checked={allowPurchase} onChange={setAllowPurchase} />
      <Check label="Allow plan changes (catalog, subscribe, change plan)" checked={allowPlanChange} onChange={setAllowPlanChange} />
      <Check label="Allow cancelling at the end of the period" checked={allowCancel} onChange={setAllowCancel} />
      <Check label="Allow auto top-up settings" checked={allowAutoTopup} onChange={setAllowAutoTopup} />
      <Field label="Back link (optional)" name="returnUrl">
        <input type="url" name="returnUrl" value={returnUrl} placeholder="https://…" onChange={(e) => setReturnUrl(e.target.value)} />
      </Field>
    </Form>
  );
}
