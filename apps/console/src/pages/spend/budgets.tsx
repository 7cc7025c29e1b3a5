import { useState } from 'react';
import type { Schemas } from '../../api';
import { Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { EmptyState, PageHeader, QueryView } from '../../components/ui';
import { useSaveBudget, useSpendUnits, useUnitBudget, type BudgetInput } from '../../queries/spend';
import { Bar, dollars, dollarsToCents, percentOf } from './common';

type Unit = Schemas['SpendUnit'];
type Budget = Schemas['SpendBudget'];

/** Each unit's budget: spent vs ceiling (month and day), ALERT or BLOCK, the gateway's enforcement state, bumps. */
export default function BudgetsPage() {
  const units = useSpendUnits();
  return (
    <section>
      <PageHeader title="Budgets" />
      <QueryView query={units} what="spend units">
        {(list) =>
          list.length === 0 ? (
            <EmptyState>No spend unit yet.</EmptyState>
          ) : (
            <div className="stack">
              {list.map((u) => (
                <UnitBudget key={u.id} unit={u} />
              ))}
            </div>
          )
        }
      </QueryView>
    </section>
  );
}

function UnitBudget({ unit }: { unit: Unit }) {
  const budget = useUnitBudget(unit.id);
  return (
    <article className="card" aria-label={`Budget of ${unit.name}`}>
      <h2 style={{ marginTop: 0 }}>
        {unit.name} <span className="muted small">{unit.type}</span>
      </h2>
      <QueryView query={budget} what="the budget">
        {(b) => <BudgetView unit={unit} budget={b} />}
      </QueryView>
    </article>
  );
}

function BudgetView({ unit, budget }: { unit: Unit; budget: Budget | null }) {
  const [editing, setEditing] = useState(false);
  const [bumping, setBumping] = useState(false);
  return (
    <>
      {budget ? (
        <>
          <div className="row">
            <span className={`badge badge-${budget.monthlyMode.toLowerCase()}`}>{budget.monthlyMode}</span>
            <span className="muted">alert at {String(budget.alertThreshold)} % of the ceiling</span>
          </div>
          <p>
            Month: <strong data-testid="month-spent">{dollars(budget.monthlySpentCents)}</strong> of {budget.effectiveMonthlyCents === null ? 'no ceiling' : dollars(budget.effectiveMonthlyCents)}
            {budget.bumpMonthlyCents !== null ? (
              <span className="muted">
                {' '}
                (bumped to {dollars(budget.bumpMonthlyCents)} until <Time iso={budget.bumpExpiresAt} />
                {budget.bumpReason ? `: ${budget.bumpReason}` : ''}; standing {dollars(budget.monthlyCents)})
              </span>
            ) : null}
          </p>
          {budget.effectiveMonthlyCents !== null ? <Bar label={`Monthly spend of ${unit.name}`} percent={percentOf(budget.monthlySpentCents, budget.effectiveMonthlyCents)} /> : null}
          <p>
            Today: {dollars(budget.dailySpentCents)} of {budget.dailyCents === null ? 'no ceiling' : dollars(budget.dailyCents)}
          </p>
          {budget.dailyCents !== null ? <Bar label={`Daily spend of ${unit.name}`} percent={percentOf(budget.dailySpentCents, budget.dailyCents)} /> : null}
          <Enforcement budget={budget} />
        </>
      ) : (
        <EmptyState>No budget.</EmptyState>
      )}
      <div className="row">
        <button type="button" className="secondary" onClick={() => setEditing(!editing)}>
          {budget ? 'Edit budget' : 'Set budget'}
        </button>
        {budget?.monthlyCents !== null && budget ? (
          <button type="button" className="secondary" onClick={() => setBumping(!bumping)}>
            Bump
          </button>
        ) : null}
      </div>
      {editing ? <BudgetForm unit={unit} budget={budget} onDone={() => setEditing(false)} /> : null}
      {bumping ? <BumpForm unit={unit} onDone={() => setBumping(false)} /> : null}
    </>
  );
}

function Enforcement({ budget }: { budget: Budget }) {
  if (budget.enforcementError) {
    return (
      <p role="alert" className="error-note">
        Gateway enforcement failed: {budget.enforcementError}
      </p>
    );
  }
  if (budget.enforcementTarget) {
    return (
      <p className="muted" data-testid="enforcement">
        Enforced at the gateway on <code>{budget.enforcementTarget}</code> since <Time iso={budget.enforcedAt} />
        {budget.gatewaySpentCents !== null ? ` · gateway counts ${dollars(budget.gatewaySpentCents)}` : ''}
      </p>
    );
  }
  return (
    <p className="muted" data-testid="enforcement">
      {budget.monthlyMode === 'BLOCK' ? 'Not enforced at a gateway (no LiteLLM rule for this unit).' : 'Alerts only: nothing is enforced at the gateway.'}
    </p>
  );
}

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

function BudgetForm({ unit, budget, onDone }: { unit: Unit; budget: Budget | null; onDone: () => void }) {
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

function BumpForm({ unit, onDone }: { unit: Unit; onDone: () => void }) {
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
