import { useState } from 'react';
import type { operations } from '@tally/client';
import type { Schemas } from '../../api';
import { ConfirmButton, useConfirm } from '../../components/confirm-dialog';
import { DataTable, type Column } from '../../components/data-table';
import { Credits, Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { SubscriptionPicker, customerSubscriptions, subscriptionLabel } from '../../components/pickers';
import { ErrorNote } from '../../components/ui';
import { useInvoices } from '../../queries/billing';
import { useLinkPool, usePoolLinks, useUnlinkPool } from '../../queries/credits';

type Pool = Schemas['CreditPool'];
type Link = operations['listCreditPoolLinks']['responses'][200]['content']['application/json']['data'][number];

/** The subscriptions that draw on a customer's pool (priority, lifetime limit, drawn), with link and unlink. */
export function PoolLinks({ pool, customerId }: { pool: Pool; customerId: string }) {
  const links = usePoolLinks(pool.id);
  const subscriptions = customerSubscriptions(useInvoices(customerId).data) ?? [];
  const unlink = useUnlinkPool(pool.id);
  const { ask, dialog } = useConfirm();
  const nameOf = (id: string) => {
    const s = subscriptions.find((x) => x.id === id);
    return s ? subscriptionLabel(s) : id;
  };
  const columns: Column<Link>[] = [
    { header: 'Subscription', cell: (l) => nameOf(l.subscriptionId) },
    { header: 'Draw priority', num: true, cell: (l) => String(l.drawPriority) },
    { header: 'Draw limit', num: true, cell: (l) => (l.drawLimit === null ? 'none' : <Credits amount={l.drawLimit} />) },
    { header: 'Drawn', num: true, cell: (l) => <Credits amount={l.totalDrawn} /> },
    { header: 'Linked', cell: (l) => <Time iso={l.createdAt} /> },
    {
      header: 'Actions',
      hiddenHeader: true,
      cell: (l) => (
        <ConfirmButton
          ask={ask}
          name={`Unlink ${nameOf(l.subscriptionId)}`}
          request={{
            title: `Unlink ${pool.name} from ${nameOf(l.subscriptionId)}?`,
            body: 'The subscription stops drawing credits from this pool at once; the pool keeps its balance.',
            confirm: 'Unlink',
            onConfirm: () => unlink.mutate(l.subscriptionId),
          }}
        >
          Unlink
        </ConfirmButton>
      ),
    },
  ];
  return (
    <>
      <h4>Linked subscriptions</h4>
      <DataTable label={`Links of ${pool.name}`} what="links" query={links} columns={columns} rows={links.data} rowKey={(l) => l.subscriptionId} empty="No subscription draws on this pool yet: link one below." />
      <ErrorNote error={unlink.error} title="Not unlinked" />
      <LinkForm pool={pool} customerId={customerId} />
      {dialog}
    </>
  );
}

const BLANK = { subscriptionId: '', drawPriority: '0', drawLimit: '' };

function LinkForm({ pool, customerId }: { pool: Pool; customerId: string }) {
  const [form, setForm] = useState(BLANK);
  const link = useLinkPool(pool.id, () => setForm(BLANK));
  const submit = () => link.mutate({ subscriptionId: form.subscriptionId, drawPriority: Number(form.drawPriority), ...(form.drawLimit.trim() ? { drawLimit: form.drawLimit.trim() } : {}) });
  return (
    <Form label={`Link ${pool.name} to a subscription`} submission={link} onSubmit={submit} submit="Link subscription" failed="Not linked">
      <Field label="Subscription" name="subscriptionId">
        <SubscriptionPicker required customerId={customerId} value={form.subscriptionId} onChange={(subscriptionId) => setForm({ ...form, subscriptionId })} />
      </Field>
      <Field label="Draw priority (lower first)" name="drawPriority">
        <input required type="number" min={0} max={1000} step={1} value={form.drawPriority} onChange={(e) => setForm({ ...form, drawPriority: e.target.value })} />
      </Field>
      <Field label="Draw limit (empty: none)" name="drawLimit">
        <input inputMode="decimal" value={form.drawLimit} onChange={(e) => setForm({ ...form, drawLimit: e.target.value })} />
      </Field>
    </Form>
  );
}
