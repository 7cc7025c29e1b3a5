import { useState } from 'react';
import { Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { ErrorNote } from '../../components/ui';
import { useClearKeyBudget, useKeyBudget, useSetKeyBudget, type KeyBudgetInput } from '../../queries/key-budgets';

const PERIODS = ['DAY', 'WEEK', 'MONTH', 'TOTAL'] as const;
type Period = (typeof PERIODS)[number];

/** A limit as typed: blank = unlimited; sent as the exact text (the JSON codec keeps it a decimal). */
const limitOf = (text: string) => (text.trim() === '' ? null : text.trim());

/**
 * One customer key's budget (api-contract-agent-v2.md §2): what it may spend per window on credits
 * and money, what it spent in the current window, and a form to set or clear it (admins only).
 */
export function KeyBudget({ customerId, keyId, keyHint }: { customerId: string; keyId: string; keyHint: string }) {
  const budget = useKeyBudget(customerId, keyId);
  const set = useSetKeyBudget(customerId, keyId);
  const clear = useClearKeyBudget(customerId, keyId);
  const b = budget.data;
  const [period, setPeriod] = useState<Period>('MONTH');
  const [credits, setCredits] = useState('');
  const [amount, setAmount] = useState('');
  const axis = (limit: unknown, spent: unknown) => (limit === null || limit === undefined ? `${String(spent)} spent, unlimited` : `${String(spent)} of ${String(limit)}`);
  return (
    <section aria-label={`Budget of ${keyHint}`} className="card">
      <h3>Budget of {keyHint}</h3>
      <ErrorNote error={budget.error} title="Budget not loaded" />
      {b ? (
        b.period === null ? (
          <p>No budget: this key may spend without a limit.</p>
        ) : (
          <dl>
            <dt>Period</dt>
            <dd>{b.period}</dd>
            <dt>Credits</dt>
            <dd>{axis(b.creditLimit, b.creditsSpent)}</dd>
            <dt>Money</dt>
            <dd>{axis(b.amountLimit, b.amountSpent)}</dd>
            <dt>Resets</dt>
            <dd>{b.resetsAt ? <Time iso={b.resetsAt} /> : 'never'}</dd>
            {b.alerting ? (
              <>
                <dt>Alert</dt>
                <dd>{b.percentUsed}% used</dd>
              </>
            ) : null}
          </dl>
        )
      ) : null}
      <Form
        access="admin"
        label={`Set budget of ${keyHint}`}
        submission={set}
        onSubmit={() => set.mutate({ period, creditLimit: limitOf(credits), amountLimit: limitOf(amount) } as unknown as KeyBudgetInput)}
        submit="Save budget"
        failed="Budget not saved"
        saved
        after={
          b?.period ? (
            <button type="button" className="secondary" disabled={clear.isPending} onClick={() => clear.mutate()}>
              Clear budget
            </button>
          ) : null
        }
      >
        <Field label="Period" name="period">
          <select value={period} onChange={(e) => setPeriod(e.target.value as Period)}>
            {PERIODS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Credit limit" name="creditLimit">
          <input inputMode="decimal" value={credits} placeholder="unlimited" onChange={(e) => setCredits(e.target.value)} />
        </Field>
        <Field label="Money limit" name="amountLimit">
          <input inputMode="decimal" value={amount} placeholder="unlimited" onChange={(e) => setAmount(e.target.value)} />
        </Field>
      </Form>
      <ErrorNote error={clear.error} title="Budget not cleared" />
    </section>
  );
}
