import { useState } from 'react';
import type { Schemas } from '../../api';
import { useCan } from '../../auth';
import { ConfirmButton, useConfirm } from '../../components/confirm-dialog';
import { DataTable, type Column } from '../../components/data-table';
import { Credits } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { CreditModelPicker, PlanPicker } from '../../components/pickers';
import { ErrorNote } from '../../components/ui';
import { useAllocateCredits, usePlanAllocations, useRemoveAllocation } from '../../queries/credits';

type Allocation = Schemas['PlanCreditAllocation'];

/** The credits a plan includes each period, by credit model: attach a model to a plan, detach it. */
export function PlanCredits() {
  const [planId, setPlanId] = useState('');
  return (
    <>
      <h2>Credits included in plans</h2>
      <label>
        Plan
        <PlanPicker value={planId} onChange={setPlanId} />
      </label>
      {planId ? <Allocations key={planId} planId={planId} /> : <p className="muted">Choose a plan to see and change the credits it includes.</p>}
    </>
  );
}

function Allocations({ planId }: { planId: string }) {
  const allocations = usePlanAllocations(planId);
  const remove = useRemoveAllocation(planId);
  const { ask, dialog } = useConfirm();
  // A plan's credits are the catalog's: the admin's, though the page's pools are billing's.
  const catalog = useCan('admin');
  const columns: Column<Allocation>[] = [
    { header: 'Credit model', cell: (a) => `${a.creditModelName} (${a.denomination})` },
    { header: 'Credits per period', num: true, cell: (a) => <Credits amount={a.creditAmount} /> },
    { header: 'Grants expire after', cell: (a) => (a.grantExpiresMonths ? `${a.grantExpiresMonths} months` : 'never') },
    { header: 'Limit', cell: (a) => (a.hardLimit ? 'hard' : 'soft') },
    {
      header: 'Actions',
      hiddenHeader: true,
      cell: (a) => (
        <ConfirmButton
          ask={ask}
          name={`Detach ${a.creditModelName}`}
          disabled={!catalog.allowed}
          request={{
            title: `Detach ${a.creditModelName} from this plan?`,
            body: <>Subscribers stop receiving <Credits amount={a.creditAmount} /> {a.denomination} each period from their next grant; credits granted already stay.</>,
            confirm: 'Detach',
            onConfirm: () => remove.mutate(a.creditModelId),
          }}
        >
          Detach
        </ConfirmButton>
      ),
    },
  ];
  return (
    <>
      <DataTable label="Plan credit allocations" what="the plan's credits" query={allocations} columns={columns} rows={allocations.data} rowKey={(a) => a.id} empty="This plan includes no credits yet: attach a credit model below." />
      <ErrorNote error={remove.error} title="Not detached" />
      <AttachForm planId={planId} />
      {dialog}
    </>
  );
}

const BLANK = { modelId: '', creditAmount: '', grantExpiresMonths: '' };

function AttachForm({ planId }: { planId: string }) {
  const [form, setForm] = useState(BLANK);
  const attach = useAllocateCredits(() => setForm(BLANK));
  const months = Number(form.grantExpiresMonths);
  const submit = () => attach.mutate({ planId, modelId: form.modelId, creditAmount: form.creditAmount.trim(), ...(months > 0 ? { grantExpiresMonths: months } : {}) });
  return (
    <Form access="admin" label="Attach a credit model" submission={attach} onSubmit={submit} submit="Attach to plan" failed="Not attached">
      <Field label="Credit model" name="modelId">
        <CreditModelPicker required value={form.modelId} onChange={(modelId) => setForm({ ...form, modelId })} />
      </Field>
      <Field label="Credits per period" name="creditAmount">
        <input required inputMode="decimal" value={form.creditAmount} onChange={(e) => setForm({ ...form, creditAmount: e.target.value })} />
      </Field>
      <Field label="Grants expire after (months, empty: never)" name="grantExpiresMonths">
        <input type="number" min={1} step={1} value={form.grantExpiresMonths} onChange={(e) => setForm({ ...form, grantExpiresMonths: e.target.value })} />
      </Field>
    </Form>
  );
}
