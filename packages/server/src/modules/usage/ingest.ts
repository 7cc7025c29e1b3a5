import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { isUniqueViolation, UNIQUE_CONSTRAINTS } from '../../platform/db/errors.js';
import { isRecorded, withStatement, withTransaction } from '../../platform/db/transaction.js';
import { AppError } from '../../platform/errors/app-error.js';
import { toJsonb } from '../../platform/db/jsonb.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import type { Decimal } from '../../platform/money.js';
import { ensureFeatureForEvent } from '../catalog/index.js';
import { customerReferenceRequired, ensureCustomerForEvent, getCustomerById } from '../customers/index.js';
import { resolveWeightCached, type ResolvedWeight } from '../credits/index.js';
import { captureForEvent, drawCredits, flowHasOpenHold } from './credits-seam.js';
import { afterDraw, drawInputOf, clampOccurredAt, counterKeyOf, isCreditBacked, needsPeriodUsage, parseOccurredAt, planEvent, zeroedColumns, type EventPlan } from './event-plan.js';
import type { EventItem, EventOutcome } from './apply-events.js';
import { hotPoolQueue } from './hot-queue.js';
import { duplicate, receiptOf } from './receipts.js';
import { usageRecorded } from './recorded.js';
import { contextMemory } from './context-memory.js';
import * as repo from './repo.js';
import type { EventRequest } from './schema.js';

/**
 * Ingests one usage event: the event, its revenue and cost, the usage counter and (for
 * credit-backed features) the credit draw-down commit together or not at all. A repeated
 * eventIdempotencyKey is 409 and leaves the first event as it was.
 *
 * Setup (lock-free reads) → compute (a plan of what to write) → execute: an event that draws no
 * credits is one statement; a credit-backed event joins its account's lane (hot-queue.ts), whose
 * concurrent events share one transaction (apply-events.ts), each decided as if alone; under an
 * Idempotency-Key (whose journal records this request's own transactions) or with grouping off it
 * is one transaction of its own holding the counter and pool locks for its writes only.
 */
export async function ingestEvent(ctx: AppContext, principal: Principal, input: EventRequest, headerKey: string | undefined) {
  try {
    const result = await ingestOne(ctx, principal, input, headerKey);
    ctx.metrics.eventsIngested('single', 'stored');
    if (result.receipt.creditsDeducted) ctx.metrics.creditsDrawn(result.receipt.creditsDeducted);
    return result;
  } catch (err) {
    if (err instanceof AppError && (err.code === 'conflict' || err.code === 'insufficient_credits')) {
      ctx.metrics.eventsIngested('single', err.code === 'conflict' ? 'duplicate' : 'refused');
    }
    throw err;
  }
}

async function ingestOne(ctx: AppContext, principal: Principal, input: EventRequest, headerKey: string | undefined) {
  const now = ctx.clock.now();
  const ref = await callerReference(ctx, principal, input.customerReferenceId);
  const key = headerKey ?? input.eventIdempotencyKey ?? newId();
  const memory = contextMemory(ctx);
  try {
    // A plain counted event of a known (customer, feature): one statement that checks the
    // remembered context and writes (repo.insertEventCounting's guard); a changed context reads it again.
    const remembered = memory.get(principal.accountId, ref, input.featureKey);
    const flowId = input.flowId ?? input.context?.flowId ?? null;
    const grouped = (c: repo.IngestContext) => Boolean(c.feature_id) && isCreditBacked(c) && ctx.config.ingestGroupMaxEvents > 1 && !isRecorded() && flowId === null;
    if (remembered && grouped(remembered)) {
      // A credit-backed event of a known customer joins its account's lane at once: the group reads the
      // contexts of all its events in one statement (apply-events.ts).
      return await submitToLane(ctx, principal.accountId, { input, ref, key });
    }
    // Not under an Idempotency-Key: its request's transactions are replayed by position (ADR 0004),
    // so a retry must take the same path as the first attempt, whatever this node remembers.
    if (remembered && plannableFromMemory(remembered) && !isRecorded()) {
      const alone = async (): Promise<EventOutcome | null> => {
        const plan = planEvent({ accountId: principal.accountId, context: remembered, input, key, eventId: newId(), now, usedInCounterPeriod: null });
        const guard = { customerRef: ref, featureKey: input.featureKey, fingerprint: remembered.fingerprint };
        const counted = await withStatement(ctx.db, (db) => repo.insertEventCounting(db, plan.event, zeroedColumns(plan), plan.counter!, guard));
        if (counted === null) {
          memory.forget(principal.accountId, ref, input.featureKey);
          return null;
        }
        const { status, receipt } = receiptOf(plan, !counted, null);
        return { status: 'stored', httpStatus: status, receipt };
      };
      // Concurrent plain events of the account share a transaction (ADR 0028); one event alone is
      // still the one guarded statement, and a changed context is read again by the group.
      if (ctx.config.ingestGroupMaxEvents > 1) return await submitToLane(ctx, principal.accountId, { input, ref, key, alone });
      const outcome = await alone();
      if (outcome?.status === 'stored') return { status: outcome.httpStatus, receipt: outcome.receipt };
    }
    const preloaded = await repo.loadIngestContext(ctx.db, principal.accountId, ref, input.featureKey);
    if (preloaded?.feature_id) memory.set(principal.accountId, ref, input.featureKey, preloaded);
    if (preloaded?.feature_id && !isCreditBacked(preloaded)) {
      const plan = await planFromFacts(ctx.db, principal.accountId, preloaded, input, key, now);
      const write = async (db: Executor) => {
        if (!plan.counter) {
          if (!(await repo.insertEvent(db, plan.event))) throw duplicate(key);
          return receiptOf(plan, false, null);
        }
        const counted = await repo.insertEventCounting(db, plan.event, zeroedColumns(plan), plan.counter);
        return receiptOf(plan, !counted, null);
      };
      // One statement; under an Idempotency-Key it runs in a transaction that records its receipt.
      // A counted event with subscribers to usage_recorded needs a transaction for their writes.
      const wanted = plan.counter !== null && usageRecorded.subscribers().length > 0 && preloaded.recorded_wanted;
      if (!wanted) return await withStatement(ctx.db, write);
      return await withTransaction(ctx.db, async (tx) => {
        const result = await write(tx);
        if (result.status === 201) await emitRecorded(tx, plan, plan.units, input.featureKey);
        return result;
      });
    }
    if (preloaded?.feature_id && grouped(preloaded)) {
      // Concurrent events of this account share one transaction per group (ADR 0011, 0028). An event of a
      // flow keeps its own transaction, the path where a reservation held for the flow is settled (ADR 0012).
      return await submitToLane(ctx, principal.accountId, { input, ref, key, context: preloaded });
    }
    const weight =
      preloaded?.feature_id && isCreditBacked(preloaded)
        ? await resolveWeightCached(ctx, principal.accountId, preloaded.feature_id, input.costInput?.model ?? null, clampOccurredAt(parseOccurredAt(input.occurredAt, now).occurredAt, now))
        : undefined;
    // A flow whose evaluate reserved credits (ADR 0012): its event captures the hold instead of drawing.
    const capturesHold = weight !== undefined && flowId !== null && (await flowHasOpenHold(ctx.db, principal.accountId, flowId));
    return await withTransaction(ctx.db, async (tx) => {
      const c = preloaded?.feature_id ? preloaded : await loadOrCreateContext(tx, principal.accountId, ref, input.featureKey, now);
      const plan = await planFromFacts(tx, principal.accountId, c, input, key, now);
      return recordInTransaction(tx, plan, weight, input.featureKey, capturesHold);
    });
  } catch (err) {
    if (isUniqueViolation(err, UNIQUE_CONSTRAINTS.usageEventKey)) throw duplicate(key);
    throw err;
  }
}

/** A credit-backed event through its account's lane (hot-queue.ts): its own outcome once its group committed. */
async function submitToLane(ctx: AppContext, accountId: string, item: EventItem) {
  const outcome = await hotPoolQueue(ctx).submit(accountId, item);
  if (outcome.status !== 'stored') throw outcome.error;
  return { status: outcome.httpStatus, receipt: outcome.receipt };
}

/**
 * Whether an event of this context can be planned from memory and written by one guarded statement:
 * a counted event without credits, without the period usage of accumulate mode, in an account
 * that wants no `usage_recorded` (the statement checks the last two again).
 */
const plannableFromMemory = (c: repo.IngestContext) => Boolean(c.feature_id && c.subscription_id && c.rule_value) && !isCreditBacked(c) && !needsPeriodUsage(c) && !c.recorded_wanted;

/**
 * Setup: the one read the plan needs beyond the check context (usage in the counter's period, in
 * accumulate mode with a cap), then the pure plan (event-plan.ts).
 */
async function planFromFacts(db: Executor, accountId: string, c: repo.CheckContext, input: EventRequest, key: string, now: Date): Promise<EventPlan> {
  const counterKey = needsPeriodUsage(c) ? counterKeyOf(accountId, c, now) : null;
  const usedInCounterPeriod = counterKey ? await usedInPeriod(db, c, counterKey) : null;
  return planEvent({ accountId, context: c, input, key, eventId: newId(), now, usedInCounterPeriod });
}

/** The transactional path: counter (lock), credit draw (pool locks), revenue on uncovered units, event. */
async function recordInTransaction(tx: Tx, plan: EventPlan, weight: ResolvedWeight | undefined, featureKey: string, capturesHold = false) {
  const counted = plan.counter
    ? await repo.incrementCounterWithinCap(tx, plan.counter.key, plan.event.usage_units, plan.event.revenue_amount, plan.counter.cap)
    : true;
  if (!counted) {
    if (!(await repo.insertEvent(tx, { ...plan.event, ...zeroedColumns(plan) }))) throw duplicate(plan.event.event_idempotency_key);
    return receiptOf(plan, true, null);
  }
  const drawInput = { ...drawInputOf(plan), ...(weight ? { weight } : {}) };
  // Counter lock, then the flow's reservation row, then the pools (modules/README "Lock order").
  const captured = capturesHold && plan.event.flow_id ? await captureForEvent(tx, { ...drawInput, flowId: plan.event.flow_id }) : null;
  const receipt = captured ?? (await drawCreditsUnlessStored(tx, plan, drawInput));
  let event = plan.event;
  if (plan.creditBacked) {
    // Usage the credits covered is not billed again; the rest stays billable usage.
    const { revenue, context } = afterDraw(plan, receipt);
    event = { ...event, revenue_amount: revenue.toFixed(), context: toJsonb(context) };
    if (plan.counter && revenue.gt(0)) await repo.addCounterRevenue(tx, plan.counter.key, revenue.toFixed());
  }
  if (!(await repo.insertEvent(tx, event))) throw duplicate(event.event_idempotency_key);
  if (plan.counter) await emitRecorded(tx, plan, plan.units.minus(receipt?.usageCovered ?? 0), featureKey);
  return receiptOf(plan, false, receipt);
}

/** usage_recorded for a counted event with units the credits did not cover. */
export async function emitRecorded(tx: Tx, plan: EventPlan, billableUnits: Decimal, featureKey: string) {
  if (!plan.event.subscription_id || billableUnits.lte(0)) return;
  await usageRecorded.emit(tx, {
    accountId: plan.event.account_id,
    eventId: plan.event.id,
    customerId: plan.event.customer_id,
    subscriptionId: plan.event.subscription_id,
    featureId: plan.event.feature_id,
    featureKey,
    billableUnits,
    occurredAt: plan.event.occurred_at,
    now: plan.now,
  });
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
