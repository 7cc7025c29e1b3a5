import { useState } from 'react';
import type { Schemas } from '../../api';
import { Time } from '../../components/figures';
import { ConfirmButton, useConfirm } from '../../components/confirm-dialog';
import { EmptyState, ErrorNote, PageHeader, QueryView } from '../../components/ui';
import { useSaveBudget, useSpendUnits, useUnitBudget } from '../../queries/spend';
import { paths } from '../../routes';
import { BudgetForm, BumpForm } from './budget-forms';
import { Bar, dollars, percentOf } from './common';

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
            <EmptyState next={{ label: 'Create a spend unit', to: paths.spendUnits }}>No spend unit yet: a budget belongs to a unit.</EmptyState>
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
        <EmptyState next={{ label: 'Set budget', onClick: () => setEditing(true) }}>No budget.</EmptyState>
      )}
      {budget ? <BudgetActions unit={unit} budget={budget} onEdit={() => setEditing(!editing)} onBump={() => setBumping(!bumping)} /> : null}
      {editing ? <BudgetForm unit={unit} budget={budget} onDone={() => setEditing(false)} /> : null}
      {bumping ? <BumpForm unit={unit} onDone={() => setBumping(false)} /> : null}
    </>
  );
}

/** Edit, bump, end the bump and delete a budget; ending a bump or deleting the budget asks first (both lower what the unit may spend). */
function BudgetActions({ unit, budget, onEdit, onBump }: { unit: Unit; budget: Budget; onEdit: () => void; onBump: () => void }) {
  const { remove, endBump } = useSaveBudget(unit.id, () => {});
  const { ask, dialog } = useConfirm();
  const standing = budget.monthlyCents === null ? 'no monthly ceiling' : `the standing ${dollars(budget.monthlyCents)} a month`;
  return (
    <>
      <div className="row">
        <button type="button" className="secondary" onClick={onEdit}>
          Edit budget
        </button>
        {budget.monthlyCents !== null ? (
          <button type="button" className="secondary" onClick={onBump}>
            Bump
          </button>
        ) : null}
        {budget.bumpMonthlyCents !== null ? (
          <ConfirmButton ask={ask} request={{ title: `End the bump of ${unit.name} now?`, body: `The ceiling goes back from ${dollars(budget.bumpMonthlyCents)} to ${standing}.`, confirm: 'End bump', onConfirm: () => endBump.mutate() }}>
            End bump
          </ConfirmButton>
        ) : null}
        <ConfirmButton ask={ask} request={{ title: `Delete the budget of ${unit.name}?`, body: 'Its ceilings, alerts and any gateway enforcement end: the unit may spend without limit.', confirm: 'Delete budget', onConfirm: () => remove.mutate() }}>
          Delete budget
        </ConfirmButton>
      </div>
      <ErrorNote error={remove.error ?? endBump.error} title="Budget not changed" />
      {dialog}
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
