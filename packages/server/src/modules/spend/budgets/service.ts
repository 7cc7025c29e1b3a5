import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { invalidField, notFound } from '../../../platform/errors/app-error.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { allocate } from '../allocation/service.js';
import { budgetValues, budgetWindows, checkBump, effectiveMonthlyCents, MAX_BUMP_REASON, type Bump, type BudgetRequest } from './domain.js';
import * as repo from './repo.js';
import { enforceUnitBudget, gatewaySpentCents, keptByGateway, releaseUnitBudget } from '../gateway/service.js';
import { dayOf } from '../reports/window.js';
import * as units from '../units/repo.js';

/**
 * Unit budgets and bumps (contract §7.5). Writes run in one transaction holding the budget row
 * lock; spent figures are the unit's allocation `spendCents` for the UTC day and month. Every write
 * is pushed to the LiteLLM gateway after it commits (gateway/service.ts); the answer shows the outcome.
 */
export type BudgetView = ReturnType<typeof toView>;

const noBudget = (unitId: string) => notFound(`No budget on unit ${unitId}`);

async function unitOrThrow(ctx: AppContext, accountId: string, unitId: string) {
  const unit = await units.findUnit(ctx.db, accountId, unitId);
  if (!unit) throw notFound(`Spend unit ${unitId} not found`);
  return unit;
}

export async function getBudget(ctx: AppContext, accountId: string, unitId: string) {
  await unitOrThrow(ctx, accountId, unitId);
  const row = await repo.findBudget(ctx.db, accountId, unitId);
  if (!row) throw noBudget(unitId);
  return view(ctx, accountId, row);
}

/** PUT: a full replace of ceilings, threshold and mode. A bump stays while it is still above the new monthly ceiling. */
export async function putBudget(ctx: AppContext, accountId: string, unitId: string, request: BudgetRequest) {
  const values = budgetValues(request);
  await unitOrThrow(ctx, accountId, unitId);
  const row = await withTransaction(ctx.db, async (tx) => {
    const now = ctx.clock.now();
    const current = await repo.lockBudget(tx, accountId, unitId);
    const keepBump = current?.bump_monthly_cents != null && values.monthlyCents !== null && dec(current.bump_monthly_cents).gt(values.monthlyCents);
    const fields = {
      daily_cents: values.dailyCents?.toFixed() ?? null,
      monthly_cents: values.monthlyCents?.toFixed() ?? null,
      alert_threshold: values.alertThreshold,
      monthly_mode: values.monthlyMode,
      ...(keepBump ? {} : { bump_monthly_cents: null, bump_expires_at: null, bump_reason: null }),
      modified_at: now,
    };
    return repo.upsertBudget(tx, { account_id: accountId, spend_unit_id: unitId, ...fields, created_at: now }, fields);
  });
  return enforcedView(ctx, accountId, row);
}

/**
 * Pushes `max_budget: null` to the gateway first (contract §7.5), then deletes. A refused push keeps
 * the budget (with the proxy's message as its enforcementError) and answers 502 vendor_error: the
 * proxy may still hold the ceiling. Removing the unit's LiteLLM rule or the connection lets it go.
 */
export async function deleteBudget(ctx: AppContext, accountId: string, unitId: string): Promise<void> {
  await unitOrThrow(ctx, accountId, unitId);
  const row = await repo.findBudget(ctx.db, accountId, unitId);
  if (!row) throw noBudget(unitId);
  const refusal = await releaseUnitBudget(ctx, accountId, unitId, row);
  if (refusal !== null) throw keptByGateway('The budget', refusal);
  if (!(await repo.deleteBudget(ctx.db, accountId, unitId))) throw noBudget(unitId);
}

export async function bumpBudget(ctx: AppContext, accountId: string, unitId: string, bump: Bump) {
  const unit = await unitOrThrow(ctx, accountId, unitId);
  const reason = bump.reason?.trim() || null;
  if (reason !== null && reason.length > MAX_BUMP_REASON) throw invalidField('reason', `must be at most ${MAX_BUMP_REASON} characters`);
  const row = await withTransaction(ctx.db, async (tx) => {
    const current = await repo.lockBudget(tx, accountId, unitId);
    if (!current) throw notFound(`No budget on ${unit.name} to bump — set a monthly ceiling first`);
    const now = ctx.clock.now();
    checkBump(current.monthly_cents === null ? null : dec(current.monthly_cents), bump, now);
    return repo.updateBudget(tx, accountId, unitId, { bump_monthly_cents: bump.monthlyCents.toFixed(), bump_expires_at: bump.expiresAt, bump_reason: reason, modified_at: now });
  });
  return enforcedView(ctx, accountId, row);
}

/** "End now": drops the bump (a budget without one answers as it is). */
export async function endBump(ctx: AppContext, accountId: string, unitId: string) {
  await unitOrThrow(ctx, accountId, unitId);
  const row = await withTransaction(ctx.db, async (tx) => {
    if (!(await repo.lockBudget(tx, accountId, unitId))) throw noBudget(unitId);
    return repo.updateBudget(tx, accountId, unitId, { bump_monthly_cents: null, bump_expires_at: null, bump_reason: null, modified_at: ctx.clock.now() });
  });
  return enforcedView(ctx, accountId, row);
}

/** The unit's spend (allocation spendCents) for the UTC day and month holding `now`. */
export async function unitSpend(ctx: AppContext, accountId: string, unitId: string, now: Date): Promise<{ day: Decimal; month: Decimal }> {
  const w = budgetWindows(now);
  const [day, month] = await Promise.all([
    allocate(ctx, accountId, { from: dayOf(w.dayStart), to: dayOf(w.dailyResetsAt) }),
    allocate(ctx, accountId, { from: dayOf(w.monthStart), to: dayOf(w.monthlyResetsAt) }),
  ]);
  const spendOf = (a: typeof day) => a.rows.find((r) => r.unitId === unitId)?.spendCents ?? dec(0);
  return { day: spendOf(day), month: spendOf(month) };
}

/** After a committed write: the push to the gateway, then the budget as it now stands. */
async function enforcedView(ctx: AppContext, accountId: string, written: repo.BudgetRow) {
  await enforceUnitBudget(ctx, accountId, written.spend_unit_id);
  return view(ctx, accountId, (await repo.findBudget(ctx.db, accountId, written.spend_unit_id)) ?? written);
}

async function view(ctx: AppContext, accountId: string, row: repo.BudgetRow) {
  const now = ctx.clock.now();
  const [spent, gateway] = await Promise.all([unitSpend(ctx, accountId, row.spend_unit_id, now), gatewaySpentCents(ctx, accountId, row, now)]);
  return toView(row, spent, gateway, now);
}

function toView(row: repo.BudgetRow, spent: { day: Decimal; month: Decimal }, gateway: Decimal | null, now: Date) {
  const monthlyCents = row.monthly_cents === null ? null : dec(row.monthly_cents);
  const bumpMonthlyCents = row.bump_monthly_cents === null ? null : dec(row.bump_monthly_cents);
  const w = budgetWindows(now);
  return {
    spendUnitId: row.spend_unit_id,
    dailyCents: row.daily_cents === null ? null : dec(row.daily_cents),
    monthlyCents,
    alertThreshold: row.alert_threshold,
    monthlyMode: row.monthly_mode,
    dailySpentCents: spent.day,
    monthlySpentCents: spent.month,
    dailyResetsAt: w.dailyResetsAt,
    monthlyResetsAt: w.monthlyResetsAt,
    effectiveMonthlyCents: effectiveMonthlyCents({ monthlyCents, bumpMonthlyCents, bumpExpiresAt: row.bump_expires_at }, now),
    gatewaySpentCents: gateway,
    bumpMonthlyCents,
    bumpExpiresAt: row.bump_expires_at,
    bumpReason: row.bump_reason,
    enforcementTarget: row.enforcement_target,
    enforcedAt: row.enforced_at,
    enforcementError: row.enforcement_error,
  };
}
