import { useState } from 'react';
import type { Schemas } from '../../api';
import { DataTable, type Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { Check, Field, Form } from '../../components/form';
import { formatCredits } from '../../format';
import { useCreateCreditModel, useCreditModels } from '../../queries/credits';

const COLUMNS: Column<Schemas['CreditModel']>[] = [
  { header: 'Name', cell: (m) => m.name },
  { header: 'Denomination', cell: (m) => <code>{m.denomination}</code> },
  { header: 'Limit', cell: (m) => (m.hardLimit ? 'hard' : 'soft') },
  { header: 'Rollover', cell: (m) => `${m.rolloverPolicy}${m.rolloverCap !== null ? ` (cap ${formatCredits(m.rolloverCap)})` : ''}` },
  { header: 'Created', cell: (m) => <Time iso={m.createdAt} /> },
];

const BLANK = { name: '', denomination: '', hardLimit: false };

export function Models() {
  const models = useCreditModels();
  const [form, setForm] = useState(BLANK);
  const create = useCreateCreditModel(() => setForm({ ...BLANK, hardLimit: form.hardLimit }));
  return (
    <>
      <h2>Credit models</h2>
      <DataTable label="Credit models" query={models} columns={COLUMNS} rows={models.data} rowKey={(m) => m.id} empty="No credit model yet: create the first one below." />
      <Form access="admin" label="New credit model" submission={create} onSubmit={() => create.mutate(form)} submit="Create credit model" failed="Credit model not created">
        <Field label="Name">
          <input required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </Field>
        <Field label="Denomination">
          <input required value={form.denomination} onChange={(e) => setForm({ ...form, denomination: e.target.value })} />
        </Field>
        <Check label="Hard limit" checked={form.hardLimit} onChange={(hardLimit) => setForm({ ...form, hardLimit })} />
      </Form>
    </>
  );
}
