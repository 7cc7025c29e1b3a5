import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import { isUniqueViolation, UNIQUE_CONSTRAINTS } from '../../../platform/db/errors.js';
import { isRecorded, withStatement } from '../../../platform/db/transaction.js';
import { AppError } from '../../../platform/errors/app-error.js';
import type { Principal } from '../../../platform/http/principal.js';
import { newId } from '../../../platform/ids.js';
import { customerReferenceRequired, getCustomerById } from '../../customers/index.js';
import { applyEvents, type EventItem, type EventOutcome } from './apply.js';
import { counterKeyOf, hasLimit, isCreditBacked, needsPeriodUsage, planEvent, thresholdsApply, zeroedColumns, type EventPlan } from './plan.js';
import { hotPoolQueue } from './lane.js';
import { duplicate, receiptOf } from './receipts.js';
import { usageRecorded } from '../recorded.js';
import { contextMemory } from './context-memory.js';
import * as repo from '../repo.js';
import type { EventRequest } from '../schema.js';

/**
 * Ingests one usage event: the event, its revenue and cost, the usage counter and (for
 * credit-backed features) the credit draw-down commit together or not at all. A repeated
 * eventIdempotencyKey is 409 and leaves the first event as it was.
 *
 * Setup (lock-free reads) → plan (plan.ts) → execute. A plain counted event is one statement.
 * Every other event (credit-backed, of a flow, recorded for payments, or of a customer or feature
 * still to be created) goes through the one executor, `applyEvents` (apply.ts): in its
 * account's lane (lane.ts) with the events that arrived meanwhile, or as a group of one.
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
  const accountId = principal.accountId;
  const ref = await callerReference(ctx, principal, input.customerReferenceId);
  const key = headerKey ?? input.eventIdempotencyKey ?? newId();
  const memory = contextMemory(ctx);
  const flowId = input.flowId ?? input.context?.flowId ?? null;
  // Concurrent events of an account share a transaction in its lane (ADR 0011, 0028), except under an
  // Idempotency-Key (its request's transactions are replayed by position, ADR 0004, so a retry must
  // take the same path as the first attempt, whatever this node remembers) and an event of a flow
  // (the hold its evaluate reserved is settled in a transaction of its own, ADR 0012).
  const lane = ctx.config.ingestGroupMaxEvents > 1 && !isRecorded();
  try {
    const remembered = memory.get(accountId, ref, input.featureKey);
    if (remembered?.feature_id && isCreditBacked(remembered) && lane && flowId === null) {
      // The group reads the contexts of all its events in one statement (apply.ts).
      return await submitToLane(ctx, accountId, { input, ref, key, ...budgetOf(principal) });
    }
    // A plain counted event of a known (customer, feature): one statement that checks the
    // remembered context and writes (repo.insertEventCounting's guard); a changed context reads it again.
    if (remembered && plannableFromMemory(remembered) && !isRecorded()) {
      const alone = async (): Promise<EventOutcome | null> => {
        const plan = planEvent({ accountId, context: remembered, input, key, eventId: newId(), now, usedInCounterPeriod: null });
        const guard = { customerRef: ref, featureKey: input.featureKey, fingerprint: remembered.fingerprint, limited: hasLimit(remembered) };
        const counted = await withStatement(ctx.db, (db) => repo.insertEventCounting(db, plan.event, zeroedColumns(plan), plan.counter!, guard));
        if (counted === null) {
          memory.forget(accountId, ref, input.featureKey);
          return null;
        }
        const { status, receipt } = receiptOf(plan, !counted, null);
        return { status: 'stored', httpStatus: status, receipt };
      };
      // Concurrent plain events of the account share a transaction (ADR 0028); one event alone is
      // still the one guarded statement, and a changed context is read again by the group.
      if (ctx.config.ingestGroupMaxEvents > 1) return await submitToLane(ctx, accountId, { input, ref, key, alone });
      const outcome = await alone();
      if (outcome?.status === 'stored') return { status: outcome.httpStatus, receipt: outcome.receipt };
    }
    const preloaded = await repo.loadIngestContext(ctx.db, accountId, ref, input.featureKey);
    if (!preloaded?.feature_id) {
      // The customer or feature is still to be created: a group of one, which creates them first.
      return answer(await applyEvents(ctx, accountId, [{ input, ref, key, ...budgetOf(principal) }], isRecorded()));
    }
    memory.set(accountId, ref, input.featureKey, preloaded);
    // A plain event of an account without subscribers to usage_recorded, and without usage thresholds
    // on a limited rule: one statement (under an Idempotency-Key, in a transaction that records its receipt).
    if (!isCreditBacked(preloaded) && !(preloaded.recorded_wanted && usageRecorded.subscribers().length > 0) && !thresholdsApply(preloaded)) {
      const plan = await planPlain(ctx.db, accountId, preloaded, input, key, now);
      return await withStatement(ctx.db, (db) => writePlain(db, plan));
    }
    const item: EventItem = { input, ref, key, context: preloaded, ...budgetOf(principal) };
    if (lane && flowId === null) return await submitToLane(ctx, accountId, item);
    return answer(await applyEvents(ctx, accountId, [item], isRecorded()));
  } catch (err) {
    if (isUniqueViolation(err, UNIQUE_CONSTRAINTS.usageEventKey)) throw duplicate(key);
    throw err;
  }
}

/** A credit-backed or recorded event through its account's lane (lane.ts): its own outcome once its group committed. */
async function submitToLane(ctx: AppContext, accountId: string, item: EventItem) {
  return answer([await hotPoolQueue(ctx).submit(accountId, item)]);
}

/** The HTTP answer of an event applied alone or in a group: its receipt, or its refusal as the error. */
function answer([outcome]: EventOutcome[]) {
  if (outcome!.status !== 'stored') throw outcome!.error;
  return { status: outcome!.httpStatus, receipt: outcome!.receipt };
}

/**
 * Whether an event of this context can be planned from memory and written by one guarded statement:
 * a counted event without credits, without the period usage of accumulate mode, in an account
 * that wants no `usage_recorded` and watches no usage threshold of its limited rule (the statement
 * checks the last three again).
 */
const plannableFromMemory = (c: repo.IngestContext) =>
  Boolean(c.feature_id && c.subscription_id && c.rule_value) && !isCreditBacked(c) && !needsPeriodUsage(c) && !c.recorded_wanted && !thresholdsApply(c);

/** A plain event's plan: the period usage accumulate mode needs (from the context row when it is the current period, else one read), then the pure plan. */
async function planPlain(db: Executor, accountId: string, c: repo.CheckContext, input: EventRequest, key: string, now: Date): Promise<EventPlan> {
  const counterKey = needsPeriodUsage(c) ? counterKeyOf(accountId, c, now) : null;
  const usedInCounterPeriod = counterKey ? await repo.usedInPeriod(db, c, counterKey) : null;
  return planEvent({ accountId, context: c, input, key, eventId: newId(), now, usedInCounterPeriod });
}

/** The one statement of a plain event: the event with its counter increment (over max_usage: stored zeroed), or the event alone when nothing counts it. */
async function writePlain(db: Executor, plan: EventPlan) {
  if (!plan.counter) {
    if (!(await repo.insertEvent(db, plan.event))) throw duplicate(plan.event.event_idempotency_key);
    return receiptOf(plan, false, null);
  }
  const counted = await repo.insertEventCounting(db, plan.event, zeroedColumns(plan), plan.counter);
  return receiptOf(plan, !counted, null);
}

/**
 * The calling customer key, whose budget (if it has one) its credit draws count against (§2.5); a
 * tenant key or portal token has none. Whether it has one is read under the lock in the group's
 * transaction (apply.ts), never from a node's memory, so a budget set on another node binds at once.
 */
export function budgetOf(principal: Principal): { budgetKeyId?: string } {
  return principal.kind === 'customer' && principal.portalSessionId === undefined ? { budgetKeyId: principal.keyId } : {};
}

async function callerReference(ctx: AppContext, principal: Principal, ref: string | undefined): Promise<string> {
  if (principal.kind === 'customer') return (await getCustomerById(ctx.db, principal.accountId, principal.customerId)).customer_reference_id;
  if (!ref) throw customerReferenceRequired();
  return ref;
}
