import { toJsonb, type Jsonb } from '../../../platform/db/jsonb.js';
import { dec, roundCredits, type Decimal } from '../../../platform/money.js';
import { computeCost, computeUsageRevenue, fromStoredRuleValue, type Pricing, type RuleValue } from '../../catalog/index.js';
import { periodContaining } from '../domain.js';
import type { CheckContext, CounterKey, IngestContext, NewEvent } from '../repo.js';
import type { ThresholdWatch } from '../thresholds.js';
import type { EventRequest } from '../schema.js';

/**
 * The pure part of ingestion (compute): what one usage event writes, from facts its setup read.
 * No database, no clock, no id generator: `event.ts` and `apply.ts` read the facts (setup) and applies the plan
 * (execute).
 */

/** Weight resolution looks at occurredAt clamped to [now − 48h, now + 5 min]; the event keeps what was sent. */
const OCCURRED_AT_CLAMP = { pastMs: 48 * 3600_000, futureMs: 5 * 60_000 };

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

export const isCreditBacked = (c: CheckContext) => Boolean(c.credit_denomination && c.subscription_id && c.rule_enabled);

/** The enabled rule of the context, parsed; null when the plan has none for the feature or it is disabled. */
/** Parsed rule values per context row: a remembered context serves many events, its rule is parsed once. */
const parsedRules = new WeakMap<CheckContext, RuleValue | null>();
const ruleOf = (c: CheckContext): RuleValue | null => {
  let rule = parsedRules.get(c);
  if (rule === undefined) parsedRules.set(c, (rule = c.rule_enabled && c.rule_value ? fromStoredRuleValue(c.rule_value) : null));
  return rule;
};

/**
 * The counter an event counts in: the subscription's period containing `now` (the period the
 * rollover will create when the cycle job is late). Null without a subscription rule.
 */
export function counterKeyOf(accountId: string, c: CheckContext, now: Date): CounterKey | null {
  if (!c.subscription_id || !c.rule_value || !c.feature_id) return null;
  return {
    accountId,
    subscriptionId: c.subscription_id,
    featureId: c.feature_id,
    periodStart: periodContaining({ start: c.current_period_start!, end: c.current_period_end! }, c.interval_months!, c.billing_anchor_day!, now).start,
  };
}

/** Whether the context's rule has a limit (max_usage > 0): the rules usage thresholds watch. */
export const hasLimit = (c: CheckContext): boolean => Boolean(c.subscription_id && c.feature_id && ruleOf(c)?.pricing?.maxUsage?.gt(0));

/** Whether an event of this context is watched for usage.threshold_reached (the account has percents and the rule a limit). */
export const thresholdsApply = (c: IngestContext): boolean => (c.threshold_percents?.length ?? 0) > 0 && hasLimit(c);

/**
 * The threshold watch of a planned event (null: none applies): the percents, the limit, the usage
 * outside its counter, and the window — the counter's period, or for accumulate the subscription's
 * creation with no end (api-contract-events.md §E5.8).
 */
export function thresholdWatchOf(c: IngestContext, plan: EventPlan, ref: string, featureKey: string): ThresholdWatch | null {
  if (!thresholdsApply(c) || !plan.counter?.cap) return null;
  const pricing = ruleOf(c)!.pricing!;
  const accumulate = pricing.resetMode === 'accumulate';
  const period = accumulate ? null : periodContaining({ start: c.current_period_start!, end: c.current_period_end! }, c.interval_months!, c.billing_anchor_day!, plan.now);
  return {
    percents: c.threshold_percents.map(Number).sort((a, b) => a - b),
    limit: dec(plan.counter.cap.maxUsage),
    elsewhere: dec(plan.counter.cap.alreadyUsedElsewhere),
    subscriptionId: c.subscription_id!,
    featureId: c.feature_id!,
    customerReferenceId: ref,
    featureKey,
    windowStart: period ? period.start : new Date(c.subscription_created_at!),
    windowEnd: period ? period.end : null,
  };
}

/** Whether the plan needs the counter's period usage (accumulate mode with a cap counts other periods). */
export function needsPeriodUsage(c: CheckContext): boolean {
  const pricing = ruleOf(c)?.pricing;
  return Boolean(c.subscription_id && c.feature_id && pricing?.maxUsage && pricing.resetMode === 'accumulate');
}

/** What the setup read: the check context and, in accumulate mode, the usage in the counter's period. */
export type EventFacts = {
  accountId: string;
  context: CheckContext;
  input: EventRequest;
  key: string;
  eventId: string;
  now: Date;
  /** Usage already counted in the counter's period (accumulate mode only; null: none or not read). */
  usedInCounterPeriod: string | null;
};

export type EventPlan = {
  event: NewEvent;
  units: Decimal;
  pricing: Pricing | null;
  revenueAmountOverride: Decimal | null;
  context: Record<string, unknown>;
  /** The counter the event counts in, with its cap; null when no subscription rule applies. */
  counter: { key: CounterKey; cap: { maxUsage: string; alreadyUsedElsewhere: string } | null } | null;
  creditBacked: boolean;
  denomination: string | null;
  clampedOccurredAt: Date;
  now: Date;
};

/** Computes what an event writes: revenue and cost at ingestion, its context, its counter and cap. */
export function planEvent(f: EventFacts): EventPlan {
  const { context: c, input, now } = f;
  const units = input.usageUnits ?? dec(1);
  const { occurredAt, valid } = parseOccurredAt(input.occurredAt, now);
  const clamped = clampOccurredAt(occurredAt, now);
  const rule = ruleOf(c);
  const pricing = rule?.pricing ?? null;
  const model = input.costInput?.model ?? null;
  const revenue = input.revenueAmount ?? (pricing ? computeUsageRevenue(pricing, units) : dec(0));
  const cost =
    input.costAmount ??
    computeCost(rule?.cost ?? null, units, {
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
  const counterKey = counterKeyOf(f.accountId, c, now);
  const maxUsage = pricing?.maxUsage ?? null;
  const elsewhere = pricing?.resetMode === 'accumulate' ? dec(c.used_total ?? '0').minus(dec(f.usedInCounterPeriod ?? '0')) : dec(0);
  const counter = counterKey ? { key: counterKey, cap: maxUsage ? { maxUsage: maxUsage.toFixed(), alreadyUsedElsewhere: elsewhere.toFixed() } : null } : null;
  const creditBacked = isCreditBacked(c);
  return {
    event: {
      id: f.eventId,
      account_id: f.accountId,
      customer_id: c.customer_id,
      feature_id: c.feature_id!,
      subscription_id: c.subscription_id,
      event_type: 'CLIENT_TRACKED',
      event_name: input.eventName,
      event_idempotency_key: f.key,
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
export function zeroedColumns(plan: EventPlan) {
  return {
    usage_units: '0',
    revenue_amount: '0',
    cost_amount: plan.event.cost_amount === null ? null : '0',
    context: toJsonb({ ...plan.context, usage_limit_exceeded: true }),
  };
}

/** What a credit-backed event draws (or captures), less the weight: the one mapping from its plan, for every ingest path. */
export function drawInputOf(plan: EventPlan) {
  return {
    accountId: plan.event.account_id,
    customerId: plan.event.customer_id,
    featureId: plan.event.feature_id,
    denomination: plan.denomination,
    units: plan.units,
    model: plan.event.model,
    now: plan.now,
    subscriptionId: plan.event.subscription_id,
    eventId: plan.event.id,
    occurredAt: plan.clampedOccurredAt,
    ingestedAt: plan.now,
  };
}

/**
 * `afterDraw` with the context already rendered for its jsonb column, for the many-event path
 * (ADR 0029): the draw's keys are appended to the plan's rendered context instead of rendering a
 * merged object again. The same five keys the merge would set come last, and jsonb keeps the last
 * of repeated keys, so the stored context equals `toJsonb(afterDraw(…).context)`
 * (`plan.test.ts`).
 */
export function afterDrawRendered(plan: EventPlan, receipt: Parameters<typeof afterDraw>[1]): { revenue: Decimal; context: Jsonb } {
  const billableUnits = plan.units.minus(receipt?.usageCovered ?? dec(0));
  const revenue = roundCredits(plan.revenueAmountOverride ?? (plan.pricing ? computeUsageRevenue(plan.pricing, billableUnits) : dec(0)));
  if (!receipt) return { revenue, context: plan.event.context };
  const base = plan.event.context;
  const draw =
    `"credit_deducted":${receipt.creditsDeducted.toFixed()},"usage_covered_by_credits":${receipt.usageCovered.toFixed()},` +
    `"credit_remaining_usage":${billableUnits.toFixed()},"credit_weight_id":${JSON.stringify(receipt.weightId)},"credit_weight_match":${JSON.stringify(receipt.weightMatch)}}`;
  return { revenue, context: (base === '{}' ? `{${draw}` : `${base.slice(0, -1)},${draw}`) as Jsonb };
}

/**
 * A credit-backed event after its draw: only usage the credits did not cover is billed (revenue on
 * the billable units, or the sent revenueAmount), and the context records the draw.
 */
export function afterDraw(
  plan: EventPlan,
  receipt: { creditsDeducted: Decimal; usageCovered: Decimal; weightId: string | null; weightMatch: string } | null,
): { revenue: Decimal; context: Record<string, unknown> } {
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
  return { revenue, context };
}
