import { useState } from 'react';
import { useNavigate } from 'react-router';
import type { Schemas } from '../../api';
import { Field, Form } from '../../components/form';
import { useAccountCurrency } from '../../queries/account';
import { useCreatePlan, useUpdatePlan } from '../../queries/catalog';
import { paths } from '../../routes';

type Plan = Schemas['Plan'];
type Draft = { key: string; name: string; description: string; priceAmount: string; currency: string; intervalMonths: string; billingTiming: Plan['billingTiming'] };
type Text = Exclude<keyof Draft, 'billingTiming'>;

const draftOf = (p: Plan): Draft => ({
  key: p.key,
  name: p.name ?? '',
  description: p.description ?? '',
  priceAmount: p.priceAmount === null ? '' : String(p.priceAmount),
  currency: p.currency,
  intervalMonths: p.intervalMonths === null ? '' : String(p.intervalMonths),
  billingTiming: p.billingTiming,
});
const BLANK: Draft = { key: '', name: '', description: '', priceAmount: '', currency: '', intervalMonths: '1', billingTiming: 'IN_ADVANCE' };
/** What an ACTIVE plan keeps (subscribers were billed on it): the API refuses a change. */
const FIXED_WHEN_ACTIVE: (keyof Draft)[] = ['key', 'priceAmount', 'intervalMonths', 'billingTiming', 'currency'];

/** The fields that differ from `before` (all typed ones for a new plan), as the API takes them. */
function changes(form: Draft, before: Draft | null) {
  const changed = (k: keyof Draft) => form[k].trim() !== (before?.[k] ?? '') && (before !== null || form[k].trim() !== '');
  const text = (k: 'key' | 'name' | 'description' | 'currency') => (changed(k) ? { [k]: form[k].trim() || null } : {});
  return {
    ...text('key'),
    ...text('name'),
    ...text('description'),
    ...text('currency'),
    // The amount goes as typed, a decimal string (the API reads it exactly): never through a float.
    ...(changed('priceAmount') ? { priceAmount: (form.priceAmount.trim() || null) as unknown as number | null } : {}),
    ...(changed('intervalMonths') ? { intervalMonths: form.intervalMonths.trim() ? Number(form.intervalMonths) : null } : {}),
    ...(changed('billingTiming') ? { billingTiming: form.billingTiming } : {}),
  } as { key?: string } & Record<string, unknown>;
}

/** The plan's fields; `fixed` ones are shown but cannot be changed. */
function PlanFields({ form, set, fixed = [], currencyHint }: { form: Draft; set: (d: Draft) => void; fixed?: (keyof Draft)[]; currencyHint?: string }) {
  const input = (k: Text, extra: { type?: string; min?: number; step?: string; required?: boolean; placeholder?: string; maxLength?: number } = {}) => (
    <input name={k} disabled={fixed.includes(k)} value={form[k]} onChange={(e) => set({ ...form, [k]: e.target.value })} {...extra} />
  );
  return (
    <>
      <Field label="Key" name="key">{input('key', { required: true })}</Field>
      <Field label="Name" name="name">{input('name')}</Field>
      <Field label="Description" name="description">{input('description')}</Field>
      <Field label="Price per period" name="priceAmount">{input('priceAmount', { type: 'number', min: 0, step: 'any' })}</Field>
      <Field label="Currency" name="currency">{input('currency', { placeholder: currencyHint ?? 'USD', maxLength: 3 })}</Field>
      <Field label="Interval (months)" name="intervalMonths">{input('intervalMonths', { type: 'number', min: 1, step: '1' })}</Field>
      <Field label="Billing" name="billingTiming">
        <select name="billingTiming" disabled={fixed.includes('billingTiming')} value={form.billingTiming} onChange={(e) => set({ ...form, billingTiming: e.target.value as Draft['billingTiming'] })}>
          <option value="IN_ADVANCE">In advance</option>
          <option value="IN_ARREARS">In arrears</option>
        </select>
      </Field>
    </>
  );
}

/** A new plan (always DRAFT); it opens its page once created. */
export function NewPlanForm() {
  const navigate = useNavigate();
  const [form, setForm] = useState(BLANK);
  const create = useCreatePlan((plan) => navigate(paths.plan(plan.id)));
  const submit = () => create.mutate({ ...changes(form, null), key: form.key.trim() } as Parameters<typeof create.mutate>[0]);
  return (
    <Form label="New plan" submission={create} onSubmit={submit} submit="Create plan" failed="Plan not created">
      <PlanFields form={form} set={setForm} currencyHint={useAccountCurrency()} />
    </Form>
  );
}

/** A DRAFT plan's every field; an ACTIVE plan's name and description (the rest is fixed once subscribers were billed on it). */
export function EditPlanForm({ plan }: { plan: Plan }) {
  const before = draftOf(plan);
  const [form, setForm] = useState(before);
  const update = useUpdatePlan(plan.id);
  return (
    <Form label="Plan details" submission={update} onSubmit={() => update.mutate(changes(form, before))} submit="Save plan" failed="Plan not saved" saved>
      <PlanFields form={form} set={setForm} fixed={plan.status === 'ACTIVE' ? FIXED_WHEN_ACTIVE : []} />
    </Form>
  );
}
