import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { isUniqueViolation, UNIQUE_CONSTRAINTS } from '../../platform/db/errors.js';
import { withStatement, withTransaction } from '../../platform/db/transaction.js';
import { AppError } from '../../platform/errors/app-error.js';
import { toJsonb } from '../../platform/db/jsonb.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { dec, roundCredits, type Decimal } from '../../platform/money.js';
import { ensureFeatureForEvent, computeCost, computeUsageRevenue, fromStoredRuleValue, type Pricing, type RuleValue } from '../catalog/index.js';
import { customerReferenceRequired, ensureCustomerForEvent, getCustomerById } from '../customers/index.js';
import { resolveWeight, type ResolvedWeight } from '../credits/index.js';
import { drawCredits, type CreditReceipt } from './credits-seam.js';
import { periodContaining } from './domain.js';
import * as repo from './repo.js';
import type { EventRequest } from './schema.js';

/** Weight resolution looks at occurredAt clamped to [now − 48h, now + 5 min]; the event keeps what was sent. */
export const OCCURRED_AT_CLAMP = { pastMs: 48 * 3600_000, futureMs: 5 * 60_000 };

export function parseOccurredAt(value: unknown, now: Date): { occurredAt: Date; valid: boolean } {
  if (typeof value !== 'string') return { occurredAt: now, valid: value === undefined || value === null };
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? { occurredAt: now, valid: false } : { occurredAt: parsed, valid: true };
}

export function clampOccurredAt(occurredAt: Date, now: Date): Date {
  const min = now.getTime() - OCCURRED_AT_CLAMP.pastMs;
  const max = now.getTime() + OCCURRED_AT_CLAMP.futureMs;
  return new Date(Math.min(max, Math.max(min, occurredAt.getTime())));
}

/**
 * Ingests one usage event: the event, its revenue and cost, the usage counter and (for
 * credit-backed features) the credit draw-down commit together or not at all. A repeated
 * eventIdempotencyKey is 409 and leaves the first event as it was.
 *
 * Setup (lock-free reads) → compute (a plan of what to write) → execute: an event that draws no
 * credits is one statement; a credit-backed event is one transaction holding the counter and pool
 * locks for its writes only.
 */
export async function ingestEvent(ctx: AppContext, principal: Principal, input: EventRequest, headerKey: string | undefined) {
  const now = ctx.clock.now();
  const ref = await callerReference(ctx, principal, input.customerReferenceId);
  const key = headerKey ?? input.eventIdempotencyKey ?? newId();
  const preloaded = await repo.loadCheckContext(ctx.db, principal.accountId, ref, input.featureKey);
  try {
    if (preloaded?.feature_id && !isCreditBacked(preloaded)) {
      const plan = await planEvent(ctx.db, principal.accountId, preloaded, input, key, now);
      // One statement; under an Idempotency-Key it runs in a transaction that records its receipt.
      return await withStatement(ctx.db, async (db) => {
        if (!plan.counter) {
          if (!(await repo.insertEvent(db, plan.event))) throw duplicate(key);
          return receiptOf(plan, false, null);
        }
        const counted = await repo.insertEventCounting(db, plan.event, zeroedColumns(plan), plan.counter);
        return receiptOf(plan, !counted, null);
      });
    }
    const weight =
      preloaded?.feature_id && isCreditBacked(preloaded)
        ? await resolveWeight(ctx.db, principal.accountId, preloaded.feature_id, input.costInput?.model ?? null, clampOccurredAt(parseOccurredAt(input.occurredAt, now).occurredAt, now))
        : undefined;
    return await withTransaction(ctx.db, async (tx) => {
      const c = preloaded?.feature_id ? preloaded : await loadOrCreateContext(tx, principal.accountId, ref, input.featureKey, now);
      const plan = await planEvent(tx, principal.accountId, c, input, key, now);
      return recordInTransaction(tx, plan, weight);
    });
  } catch (err) {
    if (isUniqueViolation(err, UNIQUE_CONSTRAINTS.usageEventKey)) throw duplicate(key);
    throw err;
  }
}

const duplicate = (key: string) => new AppError('conflict', `Event with eventIdempotencyKey '${key}' was already ingested`);

const isCreditBacked = (c: repo.CheckContext) => Boolean(c.credit_denomination && c.subscription_id && c.rule_enabled);

type EventPlan = {
  event: repo.NewEvent;
  units: Decimal;
  pricing: Pricing | null;
  revenueAmountOverride: Decimal | null;
  context: Record<string, unknown>;
  /** The counter the event counts in, with its cap; null when no subscription rule applies. */
  counter: { key: repo.CounterKey; cap: { maxUsage: string; alreadyUsedElsewhere: string } | null } | null;
  creditBacked: boolean;
  denomination: string | null;
  clampedOccurredAt: Date;
  now: Date;
};

/** Computes what an event writes: revenue and cost at ingestion, its context, its counter and cap. */
async function planEvent(db: Executor, accountId: string, c: repo.CheckContext, input: EventRequest, key: string, now: Date): Promise<EventPlan> {
  const units = input.usageUnits ?? dec(1);
  const { occurredAt, valid } = parseOccurredAt(input.occurredAt, now);
  const clamped = clampOccurredAt(occurredAt, now);
  const rule: RuleValue | null = c.rule_enabled && c.rule_value ? fromStoredRuleValue(c.rule_value) : null;
  const pricing = rule?.pricing ?? null;
  const model = input.costInput?.model ?? null;
  const revenue = input.revenueAmount ?? (pricing ? computeUsageRevenue(pricing, units) : dec(0));
  const cost = input.costAmount ?? computeCost(rule?.cost ?? null, units, {
    ...(model ? { model } : {}),
    ...(input.costInput?.inputTokens != null ? { inputTokens: input.costInput.inputTokens } : {}),
    ...(input.costInput?.outputTokens != null ? { outputTokens: input.costInput.outputTokens } : {}),
  });
  const context: Record<string, unknown> = {
    ...(input.context ?? {}),
    ...(c.subscription_id && pricing ? { sys_pricing_model: pricing.model, sys_captured_unit_price: pricing.pricePerUnit } : {}),
    ...(clamped.getTime() !== occurredAt.getTime() ? { occurred_at_clamped: true } : {}),
    ...(valid ? {} : { occurred_at_invalid: true }),
  };
  let counter: EventPlan['counter'] = null;
  if (c.subscription_id && c.rule_value) {
    const key: repo.CounterKey = {
      accountId,
      subscriptionId: c.subscription_id,
      featureId: c.feature_id!,
      periodStart: periodContaining({ start: c.current_period_start!, end: c.current_period_end! }, c.interval_months!, c.billing_anchor_day!, now).start,
    };
    const maxUsage = pricing?.maxUsage ?? null;
    const elsewhere = pricing?.resetMode === 'accumulate' ? dec(c.used_total ?? '0').minus(dec((await usedInPeriod(db, c, key)) ?? '0')) : dec(0);
    counter = { key, cap: maxUsage ? { maxUsage: maxUsage.toFixed(), alreadyUsedElsewhere: elsewhere.toFixed() } : null };
  }
  const creditBacked = isCreditBacked(c);
  return {
    event: {
      id: newId(),
      account_id: accountId,
      customer_id: c.customer_id,
      feature_id: c.feature_id!,
      subscription_id: c.subscription_id,
      event_type: 'CLIENT_TRACKED',
      event_name: input.eventName,
      event_idempotency_key: key,
      usage_units: units.toFixed(),
      // A credit-backed event's revenue depends on how much the credits cover: set after the draw.
      revenue_amount: creditBacked ? '0' : roundCredits(revenue).toFixed(),
      cost_amount: cost === null ? null : roundCredits(cost).toFixed(),
      model,
      model_provider: input.costInput?.modelProvider ?? null,
      input_tokens: input.costInput?.inputTokens ?? null,
      output_tokens: input.costInput?.outputTokens ?? null,
      flow_id: input.flowId ?? input.context?.flowId ?? null,
      occurred_at: occurredAt,
      ingested_at: now,
      context: toJsonb(context),
      meta: input.meta ? toJsonb(input.meta) : null,
    },
    units,
    pricing,
    revenueAmountOverride: input.revenueAmount ?? null,
    context,
    counter,
    creditBacked,
    denomination: creditBacked ? c.credit_denomination : null,
    clampedOccurredAt: clamped,
    now,
  };
}

/** The columns of an event that went over max_usage: stored, but with usage, revenue and cost zeroed. */
function zeroedColumns(plan: EventPlan) {
  return {
    usage_units: '0',
    revenue_amount: '0',
    cost_amount: plan.event.cost_amount === null ? null : '0',
    context: toJsonb({ ...plan.context, usage_limit_exceeded: true }),
  };
}

/** The transactional path: counter (lock), credit draw (pool locks), revenue on uncovered units, event. */
async function recordInTransaction(tx: Tx, plan: EventPlan, weight: ResolvedWeight | undefined) {
  const counted = plan.counter
    ? await repo.incrementCounterWithinCap(tx, plan.counter.key, plan.event.usage_units, plan.event.revenue_amount, plan.counter.cap)
    : true;
  if (!counted) {
    if (!(await repo.insertEvent(tx, { ...plan.event, ...zeroedColumns(plan) }))) throw duplicate(plan.event.event_idempotency_key);
    return receiptOf(plan, true, null);
  }
  const receipt = await drawCreditsUnlessStored(tx, plan, {
    accountId: plan.event.account_id,
    customerId: plan.event.customer_id,
    featureId: plan.event.feature_id,
    denomination: plan.denomination,
    ...(weight ? { weight } : {}),
    units: plan.units,
    model: plan.event.model,
    now: plan.now,
    subscriptionId: plan.event.subscription_id,
    eventId: plan.event.id,
    occurredAt: plan.clampedOccurredAt,
    ingestedAt: plan.now,
  });
  let event = plan.event;
  if (plan.creditBacked) {
    // Usage the credits covered is not billed again; the rest stays billable usage.
    const billableUnits = plan.units.minus(receipt?.usageCovered ?? dec(0));
    const revenue = roundCredits(plan.revenueAmountOverride ?? (plan.pricing ? computeUsageRevenue(plan.pricing, billableUnits) : dec(0)));
    const context = receipt
      ? {
          ...plan.context,
          credit_deducted: receipt.creditsDeducted,
          usage_covered_by_credits: receipt.usageCovered,
          credit_remaining_usage: billableUnits,
          credit_weight_id: receipt.weightId,
          credit_weight_match: receipt.weightMatch,
        }
      : plan.context;
    event = { ...event, revenue_amount: revenue.toFixed(), context: toJsonb(context) };
    if (plan.counter && revenue.gt(0)) await repo.addCounterRevenue(tx, plan.counter.key, revenue.toFixed());
  }
  if (!(await repo.insertEvent(tx, event))) throw duplicate(event.event_idempotency_key);
  return receiptOf(plan, false, receipt);
}

/**
 * Draws the event's credits. A hard-limit refusal of a retried event whose key is already stored is a
 * duplicate (409 conflict), not insufficient_credits: the event was stored, not refused. The key is
 * looked up only after the refusal, when this transaction holds the pool locks, so a concurrent first
 * attempt has committed (its key is visible) or rolled back (it is not); the unique index still
 * decides every other race.
 */
async function drawCreditsUnlessStored(tx: Tx, plan: EventPlan, input: Parameters<typeof drawCredits>[1]) {
  try {
    return await drawCredits(tx, input);
  } catch (err) {
    if (err instanceof AppError && err.code === 'insufficient_credits' && (await repo.eventKeyExists(tx, plan.event.account_id, plan.event.event_idempotency_key))) {
      throw duplicate(plan.event.event_idempotency_key);
    }
    throw err;
  }
}

function receiptOf(plan: EventPlan, limitExceeded: boolean, receipt: CreditReceipt | null) {
  return {
    status: (limitExceeded ? 200 : 201) as 200 | 201,
    receipt: {
      eventId: plan.event.id,
      eventIdempotencyKey: plan.event.event_idempotency_key,
      ...(limitExceeded
        ? { usageLimitExceeded: true, message: `Usage limit of ${plan.pricing!.maxUsage!.toFixed()} exceeded. Event recorded but zeroed out.` }
        : {}),
      ...(receipt
        ? {
            creditsDeducted: receipt.creditsDeducted,
            weightApplied: receipt.weightApplied,
            weightId: receipt.weightId,
            weightMatch: receipt.weightMatch,
            remainingBalance: receipt.remainingBalance,
          }
        : {}),
    },
  };
}

async function callerReference(ctx: AppContext, principal: Principal, ref: string | undefined): Promise<string> {
  if (principal.kind === 'customer') return (await getCustomerById(ctx.db, principal.accountId, principal.customerId)).customer_reference_id;
  if (!ref) throw customerReferenceRequired();
  return ref;
}

/** The check context, auto-creating an unknown customer (EVENT_AUTO_CREATED) or feature first. */
async function loadOrCreateContext(tx: Tx, accountId: string, ref: string, featureKey: string, now: Date) {
  const found = await repo.loadCheckContext(tx, accountId, ref, featureKey);
  if (found?.feature_id) return found;
  if (!found) await ensureCustomerForEvent(tx, accountId, ref, now);
  if (!found?.feature_id) await ensureFeatureForEvent(tx, accountId, featureKey, now);
  return (await repo.loadCheckContext(tx, accountId, ref, featureKey))!;
}

/** Usage already counted in the counter's period: from the context row when it is the current one. */
export async function usedInPeriod(db: Executor, c: repo.CheckContext, key: repo.CounterKey): Promise<string | null> {
  return c.current_period_start && c.current_period_start.getTime() === key.periodStart.getTime()
    ? c.used_current
    : repo.findCounterUsed(db, key);
}
