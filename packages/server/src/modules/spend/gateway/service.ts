import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { AppError } from '../../../platform/errors/app-error.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { budgetWindows } from '../budgets/domain.js';
import * as budgets from '../budgets/repo.js';
import { vendorOptionsFor } from '../connections/client.js';
import type { ConnectionRow } from '../connections/repo.js';
import {
  enforcementFieldsOf, gatewayTargetsOf, maxBudgetDollarsOf, NO_GATEWAY_MESSAGE, samePlan,
  type EnforcementFields, type GatewayPlan, type GatewayTarget,
} from './domain.js';
import * as repo from './repo.js';
import type { RuleRow } from '../units/repo.js';
import { dayOf } from '../reports/window.js';
import { createLiteLlmBudgetClient, MONTHLY_BUDGET_DURATION } from '../vendors/litellm-budget.js';
import { VendorError } from '../vendors/types.js';

/**
 * Gateway enforcement (contract §7.5, vendor-apis.md §5.4): a unit's budget pushed to the account's
 * LiteLLM proxy (its oldest live LITELLM connection) for each LiteLLM rule of the unit, as
 * `max_budget` in dollars: the effective monthly ceiling of a BLOCK budget with `budget_duration
 * "1mo"`, else `null`. The outcome is recorded on the budget row; the budget itself is never undone.
 *
 * No call runs inside a transaction: the state is read, the proxy called, then the outcome recorded
 * in a short transaction holding the budget row, and only if the plan computed from the row as it
 * now stands is the one that was pushed. A budget written meanwhile makes the run push again (at most
 * MAX_ROUNDS times; the writer's own run settles it after that), so concurrent writes cannot leave
 * an older ceiling on the proxy than the row holds.
 */
const MAX_ROUNDS = 3;
/** A push is an idempotent update: one retry (429, 5xx, network); a read-back serves a GET: none. */
const PUSH_RETRIES = 1;
const READ_RETRIES = 0;

type GatewayState = { budget: budgets.BudgetRow | undefined; targets: GatewayTarget[]; connection: ConnectionRow | undefined };
type Decision = { plan: GatewayPlan; connection: ConnectionRow; fields?: undefined } | { plan: null; fields: EnforcementFields };
const CLEARED: EnforcementFields = { enforcement_target: null, enforced_at: null, enforcement_error: null };

/**
 * Pushes the unit's budget to the gateway and records the outcome (`enforcement_target`,
 * `enforced_at`, `enforcement_error`). Call after the budget write has committed: after PUT, bump,
 * end-bump, and by the evaluation when it drops an expired bump. Without a LiteLLM rule on the unit
 * nothing is pushed and the fields are cleared; a BLOCK ceiling with rules but no LITELLM connection
 * is recorded as an error. Never throws for the proxy's refusal.
 */
export async function enforceUnitBudget(ctx: AppContext, accountId: string, unitId: string): Promise<void> {
  let pushedLimit: { plan: GatewayPlan; connection: ConnectionRow } | null = null;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const state = await loadState(ctx.db, accountId, unitId);
    if (!state.budget) {
      // Deleted while this run pushed a limit: the delete's null may have reached the proxy first.
      if (pushedLimit) await pushPlan(ctx, pushedLimit.connection, { ...pushedLimit.plan, maxBudgetDollars: null });
      return;
    }
    const decision = decide(state, ctx.clock.now());
    const failures = decision.plan ? await pushPlan(ctx, decision.connection, decision.plan) : [];
    if (decision.plan && decision.plan.maxBudgetDollars !== null) pushedLimit = { plan: decision.plan, connection: decision.connection };
    const settled = await withTransaction(ctx.db, async (tx) => {
      const fresh = await loadState(tx, accountId, unitId, { lock: true });
      if (!fresh.budget) return false;
      const now = ctx.clock.now();
      if (!sameDecision(decide(fresh, now), decision)) return false;
      await budgets.updateBudget(tx, accountId, unitId, decision.plan ? enforcementFieldsOf(decision.plan, failures, now) : decision.fields);
      return true;
    });
    if (settled) return;
  }
}

/**
 * Every budget of the account that has a gateway target, enforced again one after the other: after
 * the gateway itself changes (a LITELLM connection created, its key replaced, or deleted).
 */
export async function enforceAccountBudgets(ctx: AppContext, accountId: string): Promise<void> {
  for (const unitId of await repo.listGatewayBudgetUnits(ctx.db, accountId)) await enforceUnitBudget(ctx, accountId, unitId);
}

/** Units whose budget records a failed (or impossible) push: the evaluation tries them again. */
export function failedEnforcementUnits(ctx: AppContext, accountId: string): Promise<string[]> {
  return repo.listFailedEnforcementUnits(ctx.db, accountId);
}

/** The proxy may hold a ceiling of ours: a BLOCK budget, or a recorded target or error. */
function mayHoldLimit(budget: budgets.BudgetRow): boolean {
  return budget.monthly_mode === 'BLOCK' || budget.enforcement_target !== null || budget.enforcement_error !== null;
}

/**
 * Before a budget (or its unit) is deleted: `max_budget: null` to each target, when the proxy may
 * hold something of ours. Returns the proxy's message on failure, recorded on the budget (the
 * caller keeps it and answers keptByGateway), else null.
 */
export async function releaseUnitBudget(ctx: AppContext, accountId: string, unitId: string, budget: budgets.BudgetRow): Promise<string | null> {
  if (!mayHoldLimit(budget)) return null;
  const state = await loadState(ctx.db, accountId, unitId);
  if (state.targets.length === 0 || !state.connection) return null;
  const plan: GatewayPlan = { connectionId: state.connection.id, targets: state.targets, maxBudgetDollars: null };
  const failures = await pushPlan(ctx, state.connection, plan);
  if (failures.length === 0) return null;
  const fields = enforcementFieldsOf(plan, failures, ctx.clock.now());
  await budgets.updateBudget(ctx.db, accountId, unitId, fields);
  return fields.enforcement_error;
}

/**
 * Before a LiteLLM rule is deleted: `max_budget: null` to its target when the unit's budget may have
 * put a ceiling there. Returns the proxy's message on refusal (the caller keeps the rule), else null.
 * Afterwards the caller runs enforceUnitBudget, which re-records the remaining targets.
 */
export async function releaseRuleTarget(ctx: AppContext, accountId: string, rule: RuleRow): Promise<string | null> {
  const [target] = gatewayTargetsOf([rule]);
  if (!target) return null;
  const budget = await budgets.findBudget(ctx.db, accountId, rule.spend_unit_id);
  const connection = budget && mayHoldLimit(budget) ? await repo.findGatewayConnection(ctx.db, accountId) : undefined;
  if (!connection) return null;
  const [failure] = await pushPlan(ctx, connection, { connectionId: connection.id, targets: [target], maxBudgetDollars: null });
  return failure ? `${target.label}: ${failure.message}` : null;
}

/** 502 vendor_error: `what` stays because the proxy may still hold its ceiling. */
export function keptByGateway(what: string, refusal: string): AppError {
  return new AppError('vendor_error', `${what} was kept: LiteLLM refused to lift its ceiling (${refusal})`);
}

/**
 * What LiteLLM itself counts this month for the unit's LiteLLM rules, in cents; null without one.
 * While a ceiling is enforced (a target recorded), the proxy's own counters are read back
 * (`/team/info`, `/key/info`: Σ `spend`), each reset monthly by the pushed `budget_duration`.
 * Otherwise, and whenever the read-back is impossible (a user target, which the doc gives no
 * read-back for), refused, or not a monthly counter, it is the proxy's per-request spend synced from
 * its spend logs for the UTC month. A proxy failure never fails the budget GET.
 */
export async function gatewaySpentCents(ctx: AppContext, accountId: string, budget: budgets.BudgetRow, now: Date): Promise<Decimal | null> {
  const targets = gatewayTargetsOf(await repo.listUnitLiteLlmRules(ctx.db, accountId, budget.spend_unit_id));
  if (targets.length === 0) return null;
  if (budget.enforcement_target !== null) {
    const live = await readBackCents(ctx, accountId, targets);
    if (live !== null) return live;
  }
  const w = budgetWindows(now);
  return dec((await repo.syncedGatewayCents(ctx.db, accountId, budget.spend_unit_id, dayOf(w.monthStart), dayOf(w.monthlyResetsAt))) ?? 0);
}

async function readBackCents(ctx: AppContext, accountId: string, targets: GatewayTarget[]): Promise<Decimal | null> {
  const connection = await repo.findGatewayConnection(ctx.db, accountId);
  if (!connection || targets.some((t) => t.kind === 'user')) return null;
  const client = createLiteLlmBudgetClient(vendorOptionsFor(ctx, connection, { timeoutMs: ctx.config.spend.gatewayTimeoutMs, maxRetries: READ_RETRIES }));
  try {
    const infos = await Promise.all(targets.map((t) => client.budgetInfo({ kind: t.kind as 'team' | 'key', id: t.id })));
    if (infos.some((i) => i.spendDollars === null || i.budgetDuration !== MONTHLY_BUDGET_DURATION)) return null;
    return infos.reduce((sum, i) => sum.plus(i.spendDollars!), dec(0)).mul(100);
  } catch (err) {
    if (err instanceof VendorError) return null;
    throw err;
  }
}

async function loadState(db: Executor, accountId: string, unitId: string, options: { lock?: boolean } = {}): Promise<GatewayState> {
  const budget = options.lock ? await budgets.lockBudget(db, accountId, unitId) : await budgets.findBudget(db, accountId, unitId);
  const [rules, connection] = await Promise.all([repo.listUnitLiteLlmRules(db, accountId, unitId), repo.findGatewayConnection(db, accountId)]);
  return { budget, targets: gatewayTargetsOf(rules), connection };
}

function decide(state: GatewayState, now: Date): Decision {
  const budget = state.budget
    ? {
        monthlyMode: state.budget.monthly_mode,
        monthlyCents: state.budget.monthly_cents === null ? null : dec(state.budget.monthly_cents),
        bumpMonthlyCents: state.budget.bump_monthly_cents === null ? null : dec(state.budget.bump_monthly_cents),
        bumpExpiresAt: state.budget.bump_expires_at,
      }
    : null;
  const maxBudgetDollars = maxBudgetDollarsOf(budget, now);
  if (state.targets.length === 0) return { plan: null, fields: CLEARED };
  if (!state.connection) return { plan: null, fields: maxBudgetDollars === null ? CLEARED : { enforcement_target: null, enforcement_error: NO_GATEWAY_MESSAGE } };
  return { plan: { connectionId: state.connection.id, targets: state.targets, maxBudgetDollars }, connection: state.connection };
}

function sameDecision(a: Decision, b: Decision): boolean {
  if (a.plan && b.plan) return samePlan(a.plan, b.plan);
  return !a.plan && !b.plan && a.fields.enforcement_error === b.fields.enforcement_error;
}

/** One push per target, in rule order, each on its own (a refusal does not stop the others). */
async function pushPlan(ctx: AppContext, connection: ConnectionRow, plan: GatewayPlan): Promise<{ target: GatewayTarget; message: string }[]> {
  const client = createLiteLlmBudgetClient(vendorOptionsFor(ctx, connection, { timeoutMs: ctx.config.spend.gatewayTimeoutMs, maxRetries: PUSH_RETRIES }));
  const failures: { target: GatewayTarget; message: string }[] = [];
  for (const target of plan.targets) {
    try {
      await client.setMaxBudget(target, plan.maxBudgetDollars);
    } catch (err) {
      if (!(err instanceof VendorError)) throw err;
      failures.push({ target, message: err.message });
    }
  }
  return failures;
}
