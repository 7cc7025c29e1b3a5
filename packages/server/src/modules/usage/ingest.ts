import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError } from '../../platform/errors/app-error.js';
import { stringifyJsonForStorage } from '../../platform/http/json.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { dec, roundCredits, type Decimal } from '../../platform/money.js';
import { ensureFeatureForEvent } from '../catalog/service.js';
import { computeCost, computeUsageRevenue, fromStoredRuleValue, type RuleValue } from '../catalog/rule-value.js';
import { ensureCustomerForEvent, getCustomerById } from '../customers/service.js';
import { resolveWeight } from '../credits/tariff/service.js';
import { drawCredits } from './credits-seam.js';
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
 * Ingests one usage event in one transaction: the event, its revenue and cost, the usage counter
 * and (for credit-backed features) the credit draw-down commit together or not at all. A repeated
 * eventIdempotencyKey is 409 and leaves the first event as it was.
 */
export async function ingestEvent(ctx: AppContext, principal: Principal, input: EventRequest, headerKey: string | undefined) {
  const now = ctx.clock.now();
  const ref = await callerReference(ctx, principal, input.customerReferenceId);
  const key = headerKey ?? input.eventIdempotencyKey ?? newId();
  const units = input.usageUnits ?? dec(1);
  const { occurredAt, valid: occurredAtValid } = parseOccurredAt(input.occurredAt, now);
  const clamped = clampOccurredAt(occurredAt, now);

  // Reads that take no locks happen before the transaction, so the row locks below (counter, pools)
  // are held for the writes only. A first event for an unknown customer or feature loads inside.
  const preloaded = await repo.loadCheckContext(ctx.db, principal.accountId, ref, input.featureKey);
  const weight =
    preloaded?.feature_id && preloaded.credit_denomination && preloaded.subscription_id && preloaded.rule_enabled
      ? await resolveWeight(ctx.db, principal.accountId, preloaded.feature_id, input.costInput?.model ?? null, clamped)
      : undefined;

  return withTransaction(ctx.db, async (tx) => {
    const c = preloaded?.feature_id ? preloaded : await loadOrCreateContext(tx, principal.accountId, ref, input.featureKey, now);
    const rule: RuleValue | null = c.rule_enabled && c.rule_value ? fromStoredRuleValue(c.rule_value) : null;
    const pricing = rule?.pricing ?? null;
    const model = input.costInput?.model ?? null;
    let revenue = input.revenueAmount ?? (pricing ? computeUsageRevenue(pricing, units) : dec(0));
    let cost: Decimal | null = input.costAmount ?? computeCost(rule?.cost ?? null, units, {
      ...(model ? { model } : {}),
      ...(input.costInput?.inputTokens != null ? { inputTokens: input.costInput.inputTokens } : {}),
      ...(input.costInput?.outputTokens != null ? { outputTokens: input.costInput.outputTokens } : {}),
    });
    let storedUnits = units;
    let limitExceeded = false;
    const eventId = newId();
    const context: Record<string, unknown> = {
      ...(input.context ?? {}),
      ...(c.subscription_id && pricing ? { sys_pricing_model: pricing.model, sys_captured_unit_price: pricing.pricePerUnit } : {}),
      ...(clamped.getTime() !== occurredAt.getTime() ? { occurred_at_clamped: true } : {}),
      ...(occurredAtValid ? {} : { occurred_at_invalid: true }),
    };

    const creditBacked = Boolean(c.credit_denomination && c.subscription_id && c.rule_enabled);
    const counterKey = c.subscription_id && c.rule_value
      ? {
          accountId: principal.accountId,
          subscriptionId: c.subscription_id,
          featureId: c.feature_id!,
          periodStart: periodContaining({ start: c.current_period_start!, end: c.current_period_end! }, c.interval_months!, c.billing_anchor_day!, now).start,
        }
      : null;
    if (counterKey) {
      const maxUsage = pricing?.maxUsage ?? null;
      const elsewhere = pricing?.resetMode === 'accumulate'
        ? dec(c.used_total ?? '0').minus(dec((await usedInPeriod(tx, c, counterKey)) ?? '0'))
        : dec(0);
      // A credit-backed event's revenue depends on how much the credits cover: added after the draw.
      const accepted = await repo.incrementCounterWithinCap(
        tx,
        counterKey,
        units.toFixed(),
        creditBacked ? '0' : roundCredits(revenue).toFixed(),
        maxUsage ? { maxUsage: maxUsage.toFixed(), alreadyUsedElsewhere: elsewhere.toFixed() } : null,
      );
      if (!accepted) {
        limitExceeded = true;
        storedUnits = dec(0);
        revenue = dec(0);
        cost = cost === null ? null : dec(0);
        context.usage_limit_exceeded = true;
      }
    }

    const receipt = limitExceeded
      ? null
      : await drawCredits(tx, {
          accountId: principal.accountId,
          customerId: c.customer_id,
          featureId: c.feature_id!,
          denomination: creditBacked ? c.credit_denomination : null,
          ...(weight ? { weight } : {}),
          units,
          model,
          now,
          subscriptionId: c.subscription_id,
          eventId,
          occurredAt: clamped,
          ingestedAt: now,
        });
    if (receipt) {
      // Usage the credits covered is not billed again; the rest stays billable usage.
      const billableUnits = units.minus(receipt.usageCovered);
      revenue = input.revenueAmount ?? (pricing ? computeUsageRevenue(pricing, billableUnits) : dec(0));
      Object.assign(context, {
        credit_deducted: receipt.creditsDeducted,
        usage_covered_by_credits: receipt.usageCovered,
        credit_remaining_usage: billableUnits,
        credit_weight_id: receipt.weightId,
        credit_weight_match: receipt.weightMatch,
      });
    }
    if (counterKey && creditBacked && !limitExceeded && revenue.gt(0)) await repo.addCounterRevenue(tx, counterKey, roundCredits(revenue).toFixed());

    const inserted = await repo.insertEvent(tx, {
      id: eventId,
      account_id: principal.accountId,
      customer_id: c.customer_id,
      feature_id: c.feature_id!,
      subscription_id: c.subscription_id,
      event_type: 'CLIENT_TRACKED',
      event_name: input.eventName,
      event_idempotency_key: key,
      usage_units: storedUnits.toFixed(),
      revenue_amount: roundCredits(revenue).toFixed(),
      cost_amount: cost === null ? null : roundCredits(cost).toFixed(),
      model,
      model_provider: input.costInput?.modelProvider ?? null,
      input_tokens: input.costInput?.inputTokens ?? null,
      output_tokens: input.costInput?.outputTokens ?? null,
      flow_id: input.flowId ?? input.context?.flowId ?? null,
      occurred_at: occurredAt,
      ingested_at: now,
      context: stringifyJsonForStorage(context),
      meta: input.meta ? stringifyJsonForStorage(input.meta) : null,
    });
    if (!inserted) throw new AppError('conflict', `Event with eventIdempotencyKey '${key}' was already ingested`);

    return {
      status: (limitExceeded ? 200 : 201) as 200 | 201,
      receipt: {
        eventId,
        eventIdempotencyKey: key,
        ...(limitExceeded
          ? { usageLimitExceeded: true, message: `Usage limit of ${pricing!.maxUsage!.toFixed()} exceeded. Event recorded but zeroed out.` }
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
  });
}

async function callerReference(ctx: AppContext, principal: Principal, ref: string | undefined): Promise<string> {
  if (principal.kind === 'customer') return (await getCustomerById(ctx.db, principal.accountId, principal.customerId)).customer_reference_id;
  if (!ref) {
    throw new AppError('validation_failed', 'Validation failed: customerReferenceId: is required', {
      fields: [{ field: 'customerReferenceId', message: 'is required' }],
    });
  }
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
export async function usedInPeriod(db: Tx | AppContext['db'], c: repo.CheckContext, key: repo.CounterKey): Promise<string | null> {
  return c.current_period_start && c.current_period_start.getTime() === key.periodStart.getTime()
    ? c.used_current
    : repo.findCounterUsed(db, key);
}
