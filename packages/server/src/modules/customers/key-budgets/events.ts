import type { Db, Executor, Tx } from '../../../platform/db/database.js';
import { afterRollback, withTransaction } from '../../../platform/db/transaction.js';
import { recordEvent } from '../../../platform/events/outbox.js';
import type { Decimal } from '../../../platform/money.js';
import { markExceeded, toBudgetView, type BudgetAxis, type BudgetState } from './domain.js';
import * as repo from './repo.js';

/**
 * `budget.exceeded` (api-contract-events.md §E5.11): a spend refused by a key's budget, once per
 * window of that budget. The mark (`exceeded_window_start`, migration 0049) is read and set under
 * the budget row's lock, so concurrent refusals record one event; the refusals themselves write
 * nothing else.
 */

/** A refusal by a key's budget: the key, the axis it was refused on and what was asked. */
export type KeyRefusal = { keyId: string; axis: BudgetAxis; requested: Decimal };

/**
 * Records the event for `budget`, the key's budget as the refusal left it (its Budget object, §2.3),
 * naming the customer, the axis and the refused amount (ours, beside the contract's object).
 */
export async function recordExceeded(tx: Executor, accountId: string, refusal: KeyRefusal, budget: BudgetState, now: Date): Promise<void> {
  await recordEvent(tx, {
    accountId,
    type: 'budget.exceeded',
    object: toBudgetView(refusal.keyId, budget, now),
    extra: { customerReferenceId: await repo.findCustomerRef(tx, accountId, refusal.keyId), axis: refusal.axis, requested: refusal.requested },
    now,
  });
}

/**
 * Refusals decided in an ingestion group's transaction, which commits whatever its events' outcomes
 * (the refused events are not stored): marks the locked `budgets` (in place) and records each key's
 * first refusal of its window there. Returns the keys whose mark changed, for the caller to write
 * with the counters. Should the transaction roll back after all (a failed group, or a single event
 * whose gated refusal must not be replayed under its Idempotency-Key), each is recorded on its own
 * right after, as a charge's refusal is.
 */
export async function recordRefusalsInGroup(tx: Tx, accountId: string, budgets: Map<string, BudgetState>, refusals: KeyRefusal[], now: Date): Promise<Set<string>> {
  const marked = new Set<string>();
  for (const refusal of refusals) {
    const budget = budgets.get(refusal.keyId);
    const next = budget ? markExceeded(budget, now) : null;
    if (!next) continue;
    budgets.set(refusal.keyId, next);
    marked.add(refusal.keyId);
    await recordExceeded(tx, accountId, refusal, next, now);
    afterRollback(tx, 'budget.exceeded', (db) => recordRefusalAlone(db, accountId, refusal, now));
  }
  return marked;
}

/**
 * A refusal whose own transaction rolled back (an off-session charge, §2.6): the event and the mark
 * in a transaction of their own, right after, under the budget row's lock; the only thing the
 * refused request leaves behind. Mirrors credits' `recordRefusalAlone` for a refused hold.
 */
export async function recordRefusalAlone(db: Db, accountId: string, refusal: KeyRefusal, now: Date): Promise<void> {
  await withTransaction(db, async (tx) => {
    const budget = (await repo.lockBudgets(tx, accountId, [refusal.keyId])).get(refusal.keyId);
    const next = budget ? markExceeded(budget, now) : null;
    if (!next) return;
    await repo.saveCounters(tx, accountId, refusal.keyId, next, now);
    await recordExceeded(tx, accountId, refusal, next, now);
  });
}
