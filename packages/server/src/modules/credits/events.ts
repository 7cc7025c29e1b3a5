import type { Db, Executor } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { dec, type Decimal } from '../../platform/money.js';
import { computePoolSignals } from './domain.js';
import * as repo from './repo.js';
import { toGrant, toPool, toTransaction } from './views.js';

/**
 * The credits events of api-contract-events.md §E5.6, recorded in the transaction of the ledger
 * change that causes them. The once-only flags live on the pool row the writer has locked and are
 * written back by the same statement that writes its balance (ledger.ts), so firing costs an insert
 * into the outbox only when a trigger fires, and concurrent draws record each crossing once.
 */

export type PoolSignals = { lowBalance: boolean; depleted: boolean };

/** Applies one balance change to a locked pool's flags (in place) and says what it fires. */
export function signalsOf(pool: repo.PoolRow, before: Decimal, after: Decimal): PoolSignals {
  const threshold = pool.low_balance_threshold === null ? null : dec(pool.low_balance_threshold);
  const s = computePoolSignals({ threshold, hardLimit: pool.hard_limit, lowArmed: pool.low_balance_armed, depletedArmed: pool.depleted_armed }, before, after);
  pool.low_balance_armed = s.lowArmed;
  pool.depleted_armed = s.depletedArmed;
  return { lowBalance: s.lowBalance, depleted: s.depleted };
}

/** credits.balance_low, then credits.depleted (BALANCE_ZERO), for `snapshot`, the pool as of the change. */
export async function recordPoolSignals(tx: Executor, snapshot: repo.PoolRow, fired: PoolSignals, now: Date) {
  if (fired.lowBalance) {
    await recordEvent(tx, {
      accountId: snapshot.account_id,
      type: 'credits.balance_low',
      object: toPool(snapshot),
      extra: { lowBalanceThreshold: dec(snapshot.low_balance_threshold!), availableBalance: dec(snapshot.balance) },
      now,
    });
  }
  if (fired.depleted) await recordDepleted(tx, snapshot, 'BALANCE_ZERO', null, now);
}

/** credits.depleted for `pool` as of the change or refusal. */
export const recordDepleted = (tx: Executor, pool: repo.PoolRow, reason: 'BALANCE_ZERO' | 'EVENT_REFUSED', requestedCredits: Decimal | null, now: Date) =>
  recordEvent(tx, { accountId: pool.account_id, type: 'credits.depleted', object: toPool(pool), extra: { reason, requestedCredits }, now });

/**
 * A refusal by hard-limit pools (usage event or hold, 409 insufficient_credits): each armed one
 * records credits.depleted (EVENT_REFUSED) and is disarmed, in the caller's transaction under its
 * lock. Returns the pools it disarmed, whose flag the caller writes.
 */
export async function recordRefusal(tx: Executor, pools: repo.PoolRow[], requestedCredits: Decimal, now: Date) {
  const fired = pools.filter((p) => p.hard_limit && p.depleted_armed);
  for (const p of fired) {
    p.depleted_armed = false;
    await recordDepleted(tx, p, 'EVENT_REFUSED', requestedCredits, now);
  }
  return fired;
}

/**
 * A refused hold: its own transaction right after the refusal (the refused request rolled back),
 * under the pools' locks; the only thing a refused request records.
 */
export async function recordRefusalAlone(db: Db, accountId: string, poolIds: string[], requestedCredits: Decimal, now: Date) {
  await withTransaction(db, async (tx) => {
    const locked = await repo.lockPools(tx, accountId, poolIds);
    const fired = await recordRefusal(tx, locked, requestedCredits, now);
    if (fired.length > 0) await repo.disarmDepleted(tx, accountId, fired.map((p) => p.id));
  });
}

export const recordGranted = (tx: Executor, grant: repo.GrantRow, pool: repo.PoolRow, now: Date) =>
  recordEvent(tx, { accountId: pool.account_id, type: 'credits.granted', object: toGrant(grant), extra: { pool: toPool(pool) }, now });

export type ExpiryReason = 'EXPIRED' | 'ROLLOVER' | 'CLAWBACK';

export const recordExpired = (tx: Executor, transaction: repo.TransactionRow, pool: repo.PoolRow, reason: ExpiryReason, now: Date) =>
  recordEvent(tx, { accountId: pool.account_id, type: 'credits.expired', object: toTransaction(transaction), extra: { grantId: transaction.credit_grant_id, pool: toPool(pool), reason }, now });
