/** The budget forms of a unit: its ceilings, mode and alert threshold; a temporary bump of its monthly ceiling. */
import { useState } from 'react';
import type { Schemas } from '../../api';
import { Field, Form } from '../../components/form';
import { useSaveBudget, type BudgetInput } from '../../queries/spend';
import { dollars, dollarsToCents } from './common';

type Unit = Schemas['SpendUnit'];
type Budget = Schemas['SpendBudget'];

/** Dollars as typed ("1200", "99.50") from a ceiling in cents ("" for none). */
const typedDollars = (cents: number | string | null | undefined) => (cents == null ? '' : dollars(cents).replace(/[$,]/g, ''));

/** The form's ceilings and threshold as the API takes them, or what is wrong with them. */
function budgetInput(form: { monthly: string; daily: string; mode: 'ALERT' | 'BLOCK'; threshold: string }): BudgetInput | string {
  const monthlyCents = form.monthly ? dollarsToCents(form.monthly) : null;
  const dailyCents = form.daily ? dollarsToCents(form.daily) : null;
  if ((form.monthly && monthlyCents === null) || (form.daily && dailyCents === null)) return 'Ceilings are amounts in dollars, e.g. 1200 or 99.50';
  const alertThreshold = Number(form.threshold);
  if (!/^\d+$/.test(form.threshold) || alertThreshold < 1 || alertThreshold > 100) return 'The alert threshold is a whole percent of the ceiling, 1 to 100';
  return { monthlyCents, dailyCents, monthlyMode: form.mode, alertThreshold };
}

export function BudgetForm({ unit, budget, onDone }: { unit: Unit; budget: Budget | null; onDone: () => void }) {
  const [form, setForm] = useState({
    monthly: typedDollars(budget?.monthlyCents),
    daily: typedDollars(budget?.dailyCents),
    mode: budget?.monthlyMode ?? ('ALERT' as 'ALERT' | 'BLOCK'),
    threshold: budget ? String(budget.alertThreshold) : '80',
  });
  const [invalid, setInvalid] = useState<string | null>(null);
  const { save } = useSaveBudget(unit.id, onDone);
  const set = (field: 'monthly' | 'daily' | 'threshold') => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  function submit() {
    const input = budgetInput(form);
    setInvalid(typeof input === 'string' ? input : null);
    if (typeof input !== 'string') save.mutate(input);
  }
  return (
    <Form label={`Budget form of ${unit.name}`} submission={save} onSubmit={submit} submit="Save budget" failed="Budget not saved">
      <Field label="Monthly ceiling ($)">
        <input inputMode="decimal" value={form.monthly} onChange={set('monthly')} />
      </Field>
      <Field label="Daily ceiling ($)">
        <input inputMode="decimal" value={form.daily} onChange={set('daily')} />
      </Field>
      <Field label="Mode">
        <select value={form.mode} onChange={(e) => setForm({ ...form, mode: e.target.value as 'ALERT' | 'BLOCK' })}>
          <option>ALERT</option>
          <option>BLOCK</option>
        </select>
      </Field>
      <Field label="Alert threshold (%)">
        <input inputMode="numeric" value={form.threshold} onChange={set('threshold')} />
      </Field>
      {invalid ? (
        <p className="field-error" role="alert">
          {invalid}
        </p>
      ) : null}
    </Form>
  );
}

export function BumpForm({ unit, onDone }: { unit: Unit; onDone: () => void }) {
  const [form, setForm] = useState({ amount: '', until: '', reason: '' });
  const { bump } = useSaveBudget(unit.id, onDone);
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  const submit = () =>
    bump.mutate({ monthlyCents: dollarsToCents(form.amount) ?? form.amount, expiresAt: new Date(form.until).toISOString(), ...(form.reason ? { reason: form.reason } : {}) });
  return (
    <Form label={`Bump of ${unit.name}`} submission={bump} onSubmit={submit} submit="Bump budget" failed="Not bumped">
      <Field label="Lifted monthly ceiling ($)">
        <input required inputMode="decimal" value={form.amount} onChange={set('amount')} />
      </Field>
      <Field label="Until">
        <input required type="datetime-local" value={form.until} onChange={set('until')} />
      </Field>
      <Field label="Reason">
        <input value={form.reason} onChange={set('reason')} />
      </Field>
    </Form>
  );
}
