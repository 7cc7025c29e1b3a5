import type { AppContext } from '../../../platform/context.js';
import { invalidField } from '../../../platform/errors/app-error.js';
import type { Principal } from '../../../platform/http/principal.js';
import { newId } from '../../../platform/ids.js';
import { getCustomerById } from '../../customers/index.js';
import { isRecorded } from '../../../platform/db/transaction.js';
import { applyEvents, type EventItem } from './apply.js';
import { budgetOf } from './event.js';
import { hotPoolQueue } from './lane.js';
import type { EventBatchRequest, EventBatchResult } from '../schema.js';

/**
 * POST /events/batch: every event applied as if sent alone, in order, in one transaction
 * (apply.ts; with the account's other concurrent batches, lane.ts), answered per event. A customer key's own customer is used for every event
 * (as on POST /events). Retrying the whole batch is safe for events that carry an
 * eventIdempotencyKey: the stored ones come back `duplicate`, nothing is drawn twice.
 */
export async function ingestBatch(ctx: AppContext, principal: Principal, body: EventBatchRequest): Promise<EventBatchResult> {
  const own = principal.kind === 'customer' ? (await getCustomerById(ctx.db, principal.accountId, principal.customerId)).customer_reference_id : null;
  const budget = budgetOf(principal);
  const items: EventItem[] = body.events.map((input, i) => {
    const ref = own ?? input.customerReferenceId;
    if (!ref) throw invalidField(`events[${i}].customerReferenceId`, 'is required');
    return { input, ref, key: input.eventIdempotencyKey ?? newId(), ...budget };
  });
  // A batch over several customers goes through the account's lane, grouped with its other
  // concurrent batches and events (lane.ts): they lock the same counters and pools, so apart they only
  // wait for each other. A batch of one customer keeps its own transaction (batches of different
  // customers then run in parallel). Never under an Idempotency-Key (its transactions are recorded)
  // nor with an event that closes a flow's reservation.
  const laned =
    ctx.config.ingestGroupMaxEvents > 1 &&
    !isRecorded() &&
    new Set(items.map((item) => item.ref)).size > 1 &&
    items.every((item) => (item.input.flowId ?? item.input.context?.flowId ?? null) === null);
  const outcomes = laned ? await hotPoolQueue(ctx).submitMany(principal.accountId, items) : await applyEvents(ctx, principal.accountId, items);
  countOutcomes(ctx, outcomes);
  return {
    results: outcomes.map((o, index) => {
      if (o.status === 'duplicate') return { index, status: o.status, eventId: o.eventId, eventIdempotencyKey: o.key, error: { code: 'conflict' as const, message: o.error.message } };
      if (o.status === 'refused') return { index, status: o.status, eventIdempotencyKey: o.key, error: { code: o.error.code === 'budget_exceeded' ? ('budget_exceeded' as const) : ('insufficient_credits' as const), message: o.error.message } };
      const r = o.receipt;
      return {
        index,
        status: o.status,
        eventId: r.eventId,
        eventIdempotencyKey: r.eventIdempotencyKey,
        ...(r.usageLimitExceeded ? { usageLimitExceeded: true } : {}),
        ...(r.creditsDeducted ? { creditsDeducted: r.creditsDeducted, weightApplied: r.weightApplied, remainingBalance: r.remainingBalance } : {}),
      };
    }),
  };
}

function countOutcomes(ctx: AppContext, outcomes: Awaited<ReturnType<typeof applyEvents>>): void {
  const counts = { stored: 0, duplicate: 0, refused: 0 };
  for (const o of outcomes) {
    counts[o.status] += 1;
    if (o.status === 'stored' && o.receipt.creditsDeducted) ctx.metrics.creditsDrawn(o.receipt.creditsDeducted);
  }
  for (const outcome of ['stored', 'duplicate', 'refused'] as const) ctx.metrics.eventsIngested('batch', outcome, counts[outcome]);
}
