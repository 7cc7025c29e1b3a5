import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../../api';
import { Empty, ErrorNote, Loading, PageHeader, QueryView, Time } from '../../ui';
import { Bar, dollars, dollarsToCents, percentOf } from './common';

type Unit = Schemas['SpendUnit'];
type Budget = Schemas['SpendBudget'];

/** Each unit's budget: spent vs ceiling (month and day), ALERT or BLOCK, the gateway's enforcement state, bumps. */
export default function BudgetsPage() {
  const units = useQuery({ queryKey: ['spend-units'], queryFn: () => unwrap(api.GET('/api/v1/spend/units')) });
  return (
    <section>
      <PageHeader title="Budgets" />
      <QueryView query={units} what="spend units">
        {(list) =>
          list.length === 0 ? (
            <Empty>No spend unit yet.</Empty>
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
  const budget = useQuery({
    queryKey: ['spend-budget', unit.id],
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/api/v1/spend/units/{id}/budget', { params: { path: { id: unit.id } } }));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
  return (
    <article className="card" aria-label={`Budget of ${unit.name}`}>
      <h2 style={{ marginTop: 0 }}>
        {unit.name} <span className="muted small">{unit.type}</span>
      </h2>
      {budget.isPending ? <Loading what="the budget" /> : budget.error ? <ErrorNote error={budget.error} /> : <BudgetView unit={unit} budget={budget.data ?? null} />}
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
        <p className="empty">No budget.</p>
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

function BudgetForm({ unit, budget, onDone }: { unit: Unit; budget: Budget | null; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [monthly, setMonthly] = useState(budget?.monthlyCents == null ? '' : dollars(budget.monthlyCents).replace(/[$,]/g, ''));
  const [daily, setDaily] = useState(budget?.dailyCents == null ? '' : dollars(budget.dailyCents).replace(/[$,]/g, ''));
  const [mode, setMode] = useState<'ALERT' | 'BLOCK'>(budget?.monthlyMode ?? 'ALERT');
  const [threshold, setThreshold] = useState(budget ? String(budget.alertThreshold) : '80');
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: { monthlyCents: string | null; dailyCents: string | null; monthlyMode: 'ALERT' | 'BLOCK'; alertThreshold: number }) =>
      unwrap(api.PUT('/api/v1/spend/units/{id}/budget', { params: { path: { id: unit.id } }, body: body as unknown as { monthlyCents: number } })),
    onSuccess: (next) => {
      queryClient.setQueryData(['spend-budget', unit.id], next);
      onDone();
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    const monthlyCents = monthly ? dollarsToCents(monthly) : null;
    const dailyCents = daily ? dollarsToCents(daily) : null;
    if ((monthly && monthlyCents === null) || (daily && dailyCents === null)) {
      setInvalid('Ceilings are amounts in dollars, e.g. 1200 or 99.50');
      return;
    }
    const alertThreshold = Number(threshold);
    if (!/^\d+$/.test(threshold) || alertThreshold < 1 || alertThreshold > 100) {
      setInvalid('The alert threshold is a whole percent of the ceiling, 1 to 100');
      return;
    }
    setInvalid(null);
    save.mutate({ monthlyCents, dailyCents, monthlyMode: mode, alertThreshold });
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label={`Budget form of ${unit.name}`}>
      <label>
        Monthly ceiling ($)
        <input inputMode="decimal" value={monthly} onChange={(e) => setMonthly(e.target.value)} />
      </label>
      <label>
        Daily ceiling ($)
        <input inputMode="decimal" value={daily} onChange={(e) => setDaily(e.target.value)} />
      </label>
      <label>
        Mode
        <select value={mode} onChange={(e) => setMode(e.target.value as 'ALERT' | 'BLOCK')}>
          <option>ALERT</option>
          <option>BLOCK</option>
        </select>
      </label>
      <label>
        Alert threshold (%)
        <input inputMode="numeric" value={threshold} onChange={(e) => setThreshold(e.target.value)} />
      </label>
      <button type="submit" disabled={save.isPending}>
        Save budget
      </button>
      {invalid ? <p className="field-error" role="alert">{invalid}</p> : null}
      <ErrorNote error={save.error} title="Budget not saved" />
    </form>
  );
}

function BumpForm({ unit, onDone }: { unit: Unit; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState('');
  const [until, setUntil] = useState('');
  const [reason, setReason] = useState('');
  const bump = useMutation({
    mutationFn: (cents: string) =>
      unwrap(
        api.POST('/api/v1/spend/units/{id}/budget/bump', {
          params: { path: { id: unit.id } },
          body: { monthlyCents: cents as unknown as number, expiresAt: new Date(until).toISOString(), ...(reason ? { reason } : {}) },
        }),
      ),
    onSuccess: (next) => {
      queryClient.setQueryData(['spend-budget', unit.id], next);
      onDone();
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    bump.mutate(dollarsToCents(amount) ?? amount);
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label={`Bump of ${unit.name}`}>
      <label>
        Lifted monthly ceiling ($)
        <input required inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
      </label>
      <label>
        Until
        <input required type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
      </label>
      <label>
        Reason
        <input value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <button type="submit" disabled={bump.isPending}>
        Bump budget
      </button>
      <ErrorNote error={bump.error} title="Not bumped" />
    </form>
  );
}
