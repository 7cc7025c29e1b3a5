import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/database.js';
import { toUniqueConflict, UNIQUE_CONSTRAINTS } from '../../platform/db/errors.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, conflict, invalid, invalidField, notFound } from '../../platform/errors/app-error.js';
import { newId } from '../../platform/ids.js';
import { Money, dec, type Decimal } from '../../platform/money.js';
import { minorUnits } from '../../platform/currency.js';
import { ACTIVE_PLAN_IMMUTABLE, activationProblems, checkPlanTransition, type ActivationProblem } from './domain.js';
import { planCreditAllocations } from './extensions.js';
import * as repo from './repo.js';
import type { FeatureCreate, FeatureUpdate, PlanCreate, PlanUpdate, RuleRequest } from './schema.js';
import { fromStoredRuleValue, parseRuleValue, toRuleValueJson, toStoredRuleValue } from './rule-value.js';

export function toFeature(row: repo.FeatureRow) {
  return {
    id: row.id,
    name: row.name,
    key: row.key,
    description: row.description,
    featureType: row.feature_type,
    isEnabled: row.is_enabled,
    metadata: row.metadata,
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}

export function toPlan(row: repo.PlanRow) {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    priceAmount: row.price_amount === null ? null : dec(row.price_amount),
    currency: row.currency,
    intervalMonths: row.interval_months,
    billingTiming: row.billing_timing,
    status: row.status,
    metadata: row.metadata,
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}

export function toRule(row: repo.RuleRow, model?: { name: string; denomination: string } | null) {
  return {
    id: row.id,
    planId: row.plan_id,
    featureId: row.feature_id,
    type: row.type,
    enabled: row.is_enabled,
    value: toRuleValueJson(fromStoredRuleValue(row.value)),
    creditModelId: row.credit_model_id,
    creditModelName: model?.name ?? null,
    creditDenomination: model?.denomination ?? null,
  };
}

/** The rule as the API shows it, with its credit model's name and denomination. */
async function toRuleView(db: Executor, row: repo.RuleRow) {
  const model = row.credit_model_id
    ? await repo.findCreditModelLabel(db, row.account_id, row.credit_model_id)
    : null;
  return toRule(row, model);
}

// Features

export async function createFeature(ctx: AppContext, accountId: string, input: FeatureCreate) {
  const now = ctx.clock.now();
  try {
    const row = await repo.insertFeature(ctx.db, {
      id: newId(),
      account_id: accountId,
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      feature_type: input.featureType ?? 'METERED',
      is_enabled: input.isEnabled ?? true,
      metadata: input.metadata ?? {},
      created_at: now,
      modified_at: now,
    });
    return toFeature(row);
  } catch (err) {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.featureKey]: `Feature with key: ${input.key} already exists` });
  }
}

export async function getFeature(ctx: AppContext, accountId: string, id: string) {
  const row = await repo.findFeature(ctx.db, accountId, id);
  if (!row) throw notFound(`Feature not found: ${id}`);
  return row;
}

/** PATCH: only the fields sent change. The row is locked while read and written, so concurrent PATCHes never lose an update. */
export async function updateFeature(ctx: AppContext, accountId: string, id: string, input: FeatureUpdate) {
  try {
    return await withTransaction(ctx.db, async (tx) => {
      const row = await repo.lockFeature(tx, accountId, id);
      if (!row) throw notFound(`Feature not found: ${id}`);
      const updated = await repo.updateFeature(tx, {
        ...row,
        key: input.key ?? row.key,
        name: input.name ?? row.name,
        description: input.description === undefined ? row.description : input.description,
        is_enabled: input.isEnabled ?? row.is_enabled,
        metadata: input.metadata ?? row.metadata,
        modified_at: ctx.clock.now(),
      });
      return toFeature(updated);
    });
  } catch (err) {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.featureKey]: `Feature with key: ${input.key} already exists` });
  }
}

export async function deleteFeature(ctx: AppContext, accountId: string, id: string) {
  // Checks of this node written behind count as events of the feature (ADR 0013).
  await ctx.batches.flush();
  await withTransaction(ctx.db, async (tx) => {
    if (!(await repo.findFeature(tx, accountId, id))) throw notFound(`Feature not found: ${id}`);
    if (await repo.isFeatureReferenced(tx, accountId, id)) {
      throw conflict('Feature is linked to a plan or has usage events; unlink it or disable it instead');
    }
    await repo.deleteFeature(tx, accountId, id);
  });
}

// Plans

export async function createPlan(ctx: AppContext, accountId: string, input: PlanCreate) {
  const now = ctx.clock.now();
  try {
    const row = await repo.insertPlan(ctx.db, {
      id: newId(),
      account_id: accountId,
      key: input.key,
      name: input.name ?? null,
      description: input.description ?? null,
      price_amount: planPrice(input.priceAmount ?? null, input.currency ?? 'USD'),
      currency: input.currency ?? 'USD',
      interval_months: input.intervalMonths ?? null,
      billing_timing: input.billingTiming ?? 'IN_ADVANCE',
      status: 'DRAFT', // whatever was sent: plans start as drafts
      metadata: input.metadata ?? {},
      created_at: now,
      modified_at: now,
    });
    return toPlan(row);
  } catch (err) {
    throw planUniqueError(err, input);
  }
}

/**
 * The stored text of a plan price in its currency: at most the currency's ISO 4217 minor units
 * (JPY 0, USD 2, KWD 3), refused (never rounded) beyond them. Checked on every write, so a PATCH of
 * the currency alone cannot leave a price with more places than its new currency has.
 */
function planPrice(price: Decimal | string | null, currency: string): string | null {
  if (price === null) return null;
  const money = Money.of(price, currency);
  if (!money.fitsMinorUnits()) {
    const places = minorUnits(currency);
    throw invalidField('priceAmount', `must have at most ${places} decimal place${places === 1 ? '' : 's'} for ${currency}`);
  }
  return money.toFixed();
}

function planUniqueError(err: unknown, input: { key?: string | undefined; name?: string | null | undefined }): unknown {
  return toUniqueConflict(err, {
    [UNIQUE_CONSTRAINTS.planKey]: `Plan with key: ${input.key} already exists`,
    [UNIQUE_CONSTRAINTS.planName]: `Plan with name: ${input.name} already exists`,
  });
}

export async function getPlan(ctx: AppContext, accountId: string, id: string) {
  const row = await repo.findPlan(ctx.db, accountId, id);
  if (!row) throw notFound(`Plan not found: ${id}`);
  return row;
}

/** Stored values compare as text, except the price, which compares as a number ("30.00" is "30.0000"). */
function sameValue(column: (typeof ACTIVE_PLAN_IMMUTABLE)[number][1], a: repo.PlanRow, b: repo.PlanRow): boolean {
  if (column !== 'price_amount') return String(a[column]) === String(b[column]);
  return a.price_amount === null || b.price_amount === null ? a.price_amount === b.price_amount : dec(a.price_amount).eq(dec(b.price_amount));
}

/** One 400 for a refused activation: the contract's first message, every unmet precondition in `fields[]`. */
function activationRefused(problems: ActivationProblem[]): AppError {
  return invalid(problems[0]!.message, {
    fields: problems.map((p) => ({ field: p.field, message: `${p.message}: ${p.hint}` })),
    detail: `Missing before activation: ${problems.map((p) => p.field).join(', ')}`,
  });
}

/** PATCH: only the fields sent change; status drives the transitions and activation checks. */
export async function updatePlan(ctx: AppContext, accountId: string, id: string, input: PlanUpdate) {
  return withTransaction(ctx.db, async (tx) => {
    const current = await repo.lockPlan(tx, accountId, id);
    if (!current) throw notFound(`Plan not found: ${id}`);
    const next: repo.PlanRow = {
      ...current,
      key: input.key ?? current.key,
      name: input.name === undefined ? current.name : input.name,
      description: input.description === undefined ? current.description : input.description,
      price_amount: planPrice(input.priceAmount === undefined ? current.price_amount : input.priceAmount, input.currency ?? current.currency),
      interval_months: input.intervalMonths === undefined ? current.interval_months : input.intervalMonths,
      billing_timing: input.billingTiming ?? current.billing_timing,
      currency: input.currency ?? current.currency,
      metadata: input.metadata ?? current.metadata,
      modified_at: ctx.clock.now(),
    };
    const requested = input.status ?? current.status;
    const transitionError = checkPlanTransition(current.status, requested);
    if (transitionError) throw invalid(transitionError);
    if (current.status === 'ARCHIVED' && Object.keys(input).some((k) => k !== 'status' && input[k as keyof PlanUpdate] !== undefined)) {
      throw invalid('Cannot modify an ARCHIVED plan');
    }
    if (current.status === 'ACTIVE') {
      for (const [field, column] of ACTIVE_PLAN_IMMUTABLE) {
        if (input[field] !== undefined && !sameValue(column, next, current)) {
          throw invalid(`Cannot change '${field}' on an ACTIVE plan`);
        }
      }
    }
    next.status = requested as repo.PlanRow['status'];
    if (next.status === 'ACTIVE' && current.status !== 'ACTIVE') {
      const problems = activationProblems(next, await repo.countLinkedFeatures(tx, accountId, id));
      if (problems.length > 0) throw activationRefused(problems);
    }
    try {
      return toPlan(await repo.updatePlan(tx, next));
    } catch (err) {
      throw planUniqueError(err, { key: next.key, name: next.name });
    }
  });
}

export async function deletePlan(ctx: AppContext, accountId: string, id: string) {
  await withTransaction(ctx.db, async (tx) => {
    if (!(await repo.lockPlan(tx, accountId, id))) throw notFound(`Plan not found: ${id}`);
    if (await repo.hasSubscriptions(tx, accountId, id)) throw conflict('Plan has subscriptions and cannot be deleted; archive it instead');
    await repo.deletePlan(tx, accountId, id);
  });
}

export async function getPlanWithFeatures(ctx: AppContext, accountId: string, id: string) {
  const plan = await getPlan(ctx, accountId, id);
  const rules = await repo.listRulesOfPlans(ctx.db, accountId, [id]);
  const features = await Promise.all(rules.map((r) => repo.findFeature(ctx.db, accountId, r.feature_id)));
  const allocations = (await planCreditAllocations.call(ctx.db, accountId, [id])).get(id) ?? [];
  return { plan: toPlan(plan), features: features.filter((f) => f !== undefined).map(toFeature), creditAllocations: allocations };
}

// Plan-feature rules

/** A rule's credit model makes the feature credit-backed; it must be a live model of the account. */
async function requireCreditModel(db: Executor, accountId: string, creditModelId: string) {
  if (!(await repo.isLiveCreditModel(db, accountId, creditModelId))) throw notFound(`Credit model not found: ${creditModelId}`);
}

/** Creates a rule. The plan must be editable (not ARCHIVED); the value document is validated. */
export async function createRule(ctx: AppContext, accountId: string, input: RuleRequest) {
  const value = parseRuleValue(input.value);
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const plan = await repo.lockPlan(tx, accountId, input.planId);
    if (!plan) throw notFound(`Plan not found: ${input.planId}`);
    if (plan.status === 'ARCHIVED') throw invalid('Cannot modify an ARCHIVED plan');
    if (!(await repo.findFeature(tx, accountId, input.featureId))) throw notFound(`Feature not found: ${input.featureId}`);
    if (input.creditModelId) await requireCreditModel(tx, accountId, input.creditModelId);
    if (await repo.findRule(tx, accountId, input.planId, input.featureId)) {
      throw conflict('A rule for this plan and feature already exists; use PATCH to change it');
    }
    const row = await repo.insertRule(tx, {
      id: newId(),
      account_id: accountId,
      plan_id: input.planId,
      feature_id: input.featureId,
      type: 'BASE',
      is_enabled: input.isEnabled ?? true,
      value: toStoredRuleValue(value),
      credit_model_id: input.creditModelId ?? null,
      created_at: now,
      modified_at: now,
    });
    return toRuleView(tx, row);
  });
}

async function getRule(ctx: AppContext, accountId: string, planId: string, featureId: string) {
  const row = await repo.findRule(ctx.db, accountId, planId, featureId);
  if (!row) throw notFound('Plan-feature rule not found');
  return row;
}

/** A rule as the Admin API shows it (credit model name and denomination joined). */
export async function getRuleView(ctx: AppContext, accountId: string, planId: string, featureId: string) {
  return toRuleView(ctx.db, await getRule(ctx, accountId, planId, featureId));
}

export async function updateRule(ctx: AppContext, accountId: string, input: RuleRequest) {
  const value = input.value === undefined ? undefined : parseRuleValue(input.value);
  return withTransaction(ctx.db, async (tx) => {
    const plan = await repo.lockPlan(tx, accountId, input.planId);
    if (!plan) throw notFound(`Plan not found: ${input.planId}`);
    if (plan.status === 'ARCHIVED') throw invalid('Cannot modify an ARCHIVED plan');
    const row = await repo.findRule(tx, accountId, input.planId, input.featureId);
    if (!row) throw notFound('Plan-feature rule not found');
    if (input.creditModelId) await requireCreditModel(tx, accountId, input.creditModelId);
    const updated = await repo.updateRule(tx, {
      ...row,
      is_enabled: input.isEnabled ?? row.is_enabled,
      value: value === undefined ? row.value : toStoredRuleValue(value),
      credit_model_id: input.creditModelId === undefined ? row.credit_model_id : input.creditModelId,
      modified_at: ctx.clock.now(),
    });
    return toRuleView(tx, updated);
  });
}

export async function deleteRule(ctx: AppContext, accountId: string, planId: string, featureId: string) {
  await withTransaction(ctx.db, async (tx) => {
    const plan = await repo.lockPlan(tx, accountId, planId);
    if (!plan) throw notFound(`Plan not found: ${planId}`);
    const row = await repo.findRule(tx, accountId, planId, featureId);
    if (!row) throw notFound('Plan-feature rule not found');
    if (plan.status === 'ACTIVE' && (await repo.countLinkedFeatures(tx, accountId, planId)) === 1) {
      throw new AppError('validation_failed', 'An ACTIVE plan must keep at least one linked feature');
    }
    await repo.deleteRule(tx, accountId, row.id);
  });
}

/** Finds or creates the feature an event names (name = key, no plan rule), race-safe. */
export async function ensureFeatureForEvent(db: Executor, accountId: string, key: string, now: Date) {
  await repo.insertFeatureIfAbsent(db, {
    id: newId(),
    account_id: accountId,
    key,
    name: key,
    description: 'Auto-created from event',
    feature_type: 'METERED',
    is_enabled: true,
    metadata: {},
    created_at: now,
    modified_at: now,
  });
  return (await repo.findFeatureByKey(db, accountId, key))!;
}

// What other modules read of the catalog (billing, usage, credits, payments): its records as stored,
// by id or key. The repo stays private; these are the face's reads.

/** A plan as the catalog keeps it (its stored record); only the catalog writes it. */
export type Plan = repo.PlanRow;
/** A plan-feature rule as the catalog keeps it. */
export type PlanRule = repo.RuleRow;

/**
 * Features and plans by id or key (undefined when absent), a plan's rule for a feature, the ACTIVE
 * plans in the client catalog's order, and the rules of some plans with their feature's key, name and
 * description, oldest first. Each takes the caller's executor, so it reads inside its transaction.
 */
export const { findFeature, findFeatureByKey, findPlan, findPlanByKey, findRule, listActivePlans, listRulesOfPlans } = repo;
