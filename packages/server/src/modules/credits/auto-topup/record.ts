import type { AppContext } from '../../../platform/context.js';
import type { Tx } from '../../../platform/db/database.js';
import { afterCommit } from '../../../platform/db/transaction.js';
import { newId } from '../../../platform/ids.js';
import { dec } from '../../../platform/money.js';
import type { PoolRow } from '../tables.js';
import { cachedPriceAt } from '../tariff/cache.js';
import { findPriceAt } from '../tariff/service.js';
import { attemptPlan, monthStartOf } from './domain.js';
import * as repo from './repo.js';
import { autoTopupSpendCapSql, chargeAutoTopup } from './slots.js';

/** What recording needs beyond the transaction: the node cache (prices) and, for the charge after commit, the runtime. */
export type AutoTopupContext = AppContext;

/** A pool a draw of this transaction changed, as the draw left it, with the DEDUCTION row that did. */
export type DrawnPool = { pool: PoolRow; transactionId: string };

/**
 * Whether the draw's pool needs a look at its rule: the threshold is on the locked row the draw
 * already read (null unless an enabled rule exists), so a pool without one costs nothing here.
 */
export const belowAutoTopupThreshold = (pool: PoolRow) =>
  pool.auto_topup_threshold !== null && (pool.status === 'ACTIVE' || pool.status === 'DEPLETED') && dec(pool.balance).lt(dec(pool.auto_topup_threshold));

/**
 * Records the auto top-up attempts of a draw's transaction (money §2.3), after its deductions and
 * under the pools' locks: for each pool left strictly below its threshold, the rule's caps and retry
 * block are checked and one PENDING attempt is inserted unless the pool has one. Never throws for a
 * business reason and never waits: the rule read and the insert touch no row another draw holds (the
 * pool lock already orders the draws of a pool). The charge runs after commit.
 */
export async function recordAutoTopups(ctx: AutoTopupContext, tx: Tx, drawn: DrawnPool[], now: Date): Promise<void> {
  for (const { pool, transactionId } of drawn) {
    if (!belowAutoTopupThreshold(pool)) continue;
    const facts = await repo.readRecordingFacts(tx, pool.account_id, pool.id, monthStartOf(now), autoTopupSpendCapSql.call);
    if (!facts || facts.pending) continue;
    const cached = await cachedPriceAt(ctx.cache, tx, pool.account_id, pool.denomination, now);
    const price = cached ? (cached.price ?? null) : await findPriceAt(tx, pool.account_id, pool.denomination, now);
    const plan = attemptPlan(
      {
        enabled: facts.enabled,
        retryAfter: facts.retry_after,
        topupCredits: dec(facts.topup_credits),
        maxMonthlyAmount: facts.max_monthly_amount === null ? null : dec(facts.max_monthly_amount),
        pending: false,
        monthToDate: dec(facts.month_to_date),
        price,
        spendCap: facts.spend_cap === null ? null : dec(facts.spend_cap),
      },
      now,
    );
    if (!plan) continue;
    const id = newId();
    const recorded = await repo.insertPendingAttempt(tx, {
      id, account_id: pool.account_id, credit_pool_id: pool.id, customer_id: facts.customer_id, status: 'PENDING',
      credits: plan.credits.toFixed(), price_per_credit: plan.pricePerCredit.toFixed(), amount: plan.amount.toFixed(), currency: plan.currency,
      balance_at_trigger: pool.balance, trigger_transaction_id: transactionId, payment_method_id: null, payment_intent_id: null, grant_id: null,
      failure_code: null, failure_message: null, created_at: now, completed_at: null,
    });
    // Started after commit and not awaited: the draw's answer never waits for the processor. A
    // charge that dies with the process is the recovery job's (the attempt stays PENDING).
    if (recorded) afterCommit(tx, 'credits.charge_auto_topup', () => void chargeAutoTopup.call(ctx, pool.account_id, id).catch(() => undefined));
  }
}
