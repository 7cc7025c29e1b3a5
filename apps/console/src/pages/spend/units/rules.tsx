import { useState } from 'react';
import type { Schemas } from '../../../api';
import { ConfirmButton, useConfirm } from '../../../components/confirm-dialog';
import { DataTable, type Column } from '../../../components/data-table';
import { Choice, Field, Form } from '../../../components/form';
import { SpendUnitPicker } from '../../../components/pickers';
import { ErrorNote } from '../../../components/ui';
import { MATCH_KINDS, PROVIDERS, useCreateRule, useDeleteRule, useSpendRules, useSpendUnits, type MatchKind, type Provider } from '../../../queries/spend';

type Rule = Schemas['SpendRule'];

/** Attribution rules, lowest priority number first: which vendor workspace, API key or actor is whose. */
export function Rules() {
  const rules = useSpendRules();
  const units = useSpendUnits();
  const remove = useDeleteRule();
  const { ask, dialog } = useConfirm();
  const unitName = (id: string) => units.data?.find((u) => u.id === id)?.name ?? id;
  const describe = (r: Rule) => `${r.provider} ${r.matchKind} ${r.matchValue}`;
  const columns: Column<Rule>[] = [
    { header: 'Unit', cell: (r) => unitName(r.spendUnitId) },
    { header: 'Provider', cell: (r) => r.provider },
    { header: 'Match', cell: (r) => r.matchKind },
    { header: 'Value', cell: (r) => <code>{r.matchValue}</code> },
    { header: 'Priority', num: true, cell: (r) => String(r.priority) },
    {
      header: 'Actions',
      hiddenHeader: true,
      cell: (r) => (
        <ConfirmButton
          ask={ask}
          name={`Delete rule ${describe(r)}`}
          request={{
            title: `Delete the rule ${describe(r)}?`,
            body: `Spend it attributed to ${unitName(r.spendUnitId)}, history included, goes to the next matching rule or to Unattributed.`,
            confirm: 'Delete rule',
            onConfirm: () => remove.mutate(r.id),
          }}
        >
          Delete
        </ConfirmButton>
      ),
    },
  ];
  return (
    <>
      <h2>Attribution rules</h2>
      <DataTable label="Attribution rules" query={rules} columns={columns} rows={rules.data} rowKey={(r) => r.id} empty="No rule yet: until one matches, every dollar is unattributed. Add one below." />
      <ErrorNote error={remove.error} title="Rule not deleted" />
      <RuleForm />
      {dialog}
    </>
  );
}

const BLANK = { spendUnitId: '', provider: 'ANTHROPIC' as Provider, matchKind: 'WORKSPACE_ID' as MatchKind, matchValue: '', priority: '100' };

function RuleForm() {
  const [form, setForm] = useState(BLANK);
  const create = useCreateRule(() => setForm({ ...BLANK, provider: form.provider, matchKind: form.matchKind }));
  const text = (field: keyof typeof BLANK) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  const submit = () => create.mutate({ ...form, priority: Number(form.priority) });
  return (
    <Form label="New attribution rule" submission={create} onSubmit={submit} submit="Add rule" failed="Rule not added">
      <Field label="Unit" name="spendUnitId">
        <SpendUnitPicker required value={form.spendUnitId} onChange={(spendUnitId) => setForm({ ...form, spendUnitId })} />
      </Field>
      <Field label="Provider" name="provider">
        <Choice value={form.provider} options={PROVIDERS} onChange={(provider) => setForm({ ...form, provider })} />
      </Field>
      <Field label="Match" name="matchKind">
        <Choice value={form.matchKind} options={MATCH_KINDS} onChange={(matchKind) => setForm({ ...form, matchKind })} />
      </Field>
      <Field label="Value" name="matchValue">
        <input required maxLength={255} value={form.matchValue} onChange={text('matchValue')} />
      </Field>
      <Field label="Priority (lowest wins)" name="priority">
        <input required type="number" min={0} step={1} value={form.priority} onChange={text('priority')} />
      </Field>
    </Form>
  );
}
