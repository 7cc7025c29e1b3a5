import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { Schemas } from '../api';
import { DataTable, type Column } from '../components/data-table';
import { MaybeMoney, Time } from '../components/figures';
import { Field, Form } from '../components/form';
import { PageHeader, StatusBadge } from '../components/ui';
import { useCreatePlan, usePlans } from '../queries/catalog';
import { paths } from '../routes';

type Plan = Schemas['Plan'];

const COLUMNS: Column<Plan>[] = [
  { header: 'Plan', cell: (p) => <Link to={paths.plan(p.id)}>{p.name ?? p.key}</Link> },
  { header: 'Key', cell: (p) => <code>{p.key}</code> },
  { header: 'Price', num: true, cell: (p) => <MaybeMoney amount={p.priceAmount} currency={p.currency} /> },
  { header: 'Interval', cell: (p) => (p.intervalMonths ? `${p.intervalMonths} mo · ${p.billingTiming === 'IN_ADVANCE' ? 'in advance' : 'in arrears'}` : '—') },
  { header: 'Status', cell: (p) => <StatusBadge status={p.status} /> },
  { header: 'Created', cell: (p) => <Time iso={p.createdAt} /> },
];

/** Plans of every status; a new plan starts DRAFT and opens its page. */
export default function PlansPage() {
  const plans = usePlans();
  return (
    <section>
      <PageHeader title="Plans" />
      <NewPlanForm />
      <DataTable label="Plans" query={plans} columns={COLUMNS} rows={plans.data} rowKey={(p) => p.id} empty="No plans yet: create the first one above." />
    </section>
  );
}

const BLANK = { key: '', name: '', description: '', priceAmount: '', intervalMonths: '1', billingTiming: 'IN_ADVANCE' };
type PlanForm = typeof BLANK;

function bodyOf(form: PlanForm) {
  return {
    key: form.key,
    ...(form.name ? { name: form.name } : {}),
    ...(form.description ? { description: form.description } : {}),
    // The amount goes as typed, a decimal string (the API accepts one): never through a float.
    ...(form.priceAmount ? { priceAmount: form.priceAmount as unknown as number } : {}),
    ...(form.intervalMonths ? { intervalMonths: Number(form.intervalMonths) } : {}),
    billingTiming: form.billingTiming as 'IN_ADVANCE' | 'IN_ARREARS',
  };
}

function NewPlanForm() {
  const navigate = useNavigate();
  const [form, setForm] = useState(BLANK);
  const create = useCreatePlan((plan) => navigate(paths.plan(plan.id)));
  const set = (field: keyof PlanForm) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  const input = (name: keyof PlanForm, inputMode?: 'decimal' | 'numeric') => (
    <input name={name} required={name === 'key'} inputMode={inputMode} value={form[name]} onChange={set(name)} />
  );
  return (
    <Form label="New plan" submission={create} onSubmit={() => create.mutate(bodyOf(form))} submit="Create plan" failed="Plan not created">
      <Field label="Key">{input('key')}</Field>
      <Field label="Name">{input('name')}</Field>
      <Field label="Description">{input('description')}</Field>
      <Field label="Price per period">{input('priceAmount', 'decimal')}</Field>
      <Field label="Interval (months)">{input('intervalMonths', 'numeric')}</Field>
      <Field label="Billing">
        <select name="billingTiming" value={form.billingTiming} onChange={set('billingTiming')}>
          <option value="IN_ADVANCE">In advance</option>
          <option value="IN_ARREARS">In arrears</option>
        </select>
      </Field>
    </Form>
  );
}
