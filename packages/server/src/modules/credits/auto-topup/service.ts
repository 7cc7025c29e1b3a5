import type { Db, Executor, Tx } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { recordEvent } from '../../../platform/events/outbox.js';
import { notFound } from '../../../platform/errors/app-error.js';
import { toPage, type PageQuery } from '../../../platform/http/pagination.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { getCustomerById } from '../../customers/index.js';
import { grantPurchasedCredits } from '../purchases.js';
import * as poolRepo from '../repo.js';
import { findPriceAt } from '../tariff/service.js';
import { autoTopupAmount, countersAfter, monthStartOf, ruleState, UNCOUNTED_FAILURES } from './domain.js';
import * as repo from './repo.js';
import { toAttempt, toRule, type AutoTopupRule } from './views.js';

/**
 * Auto top-up rules and the settlement of attempts (money §2.2, §2.4–§2.5), for payments, which
 * owns the routes and the charge. Lock order is the one of draws: the pool, then the attempt, then
 * the rule, so a settlement and a draw never wait on each other in opposite orders.
 */

export type RuleInput = { enabled: boolean; threshold: Decimal; topupCredits: Decimal; maxMonthlyAmount: Decimal | null };

/** A customer pool's rule as the Rule object, derived now; null: no rule. */
export async function describeAutoTopupRule(db: Executor, accountId: string, customerReferenceId: string, poolId: string, spendCap: Decimal | null, now: Date): Promise<AutoTopupRule | null> {
  const rule = await repo.findRule(db, accountId, poolId);
  return rule ? describe(db, rule, customerReferenceId, spendCap, now) : null;
}

async function describe(db: Executor, rule: repo.AutoTopupRuleRow, customerReferenceId: string, spendCap: Decimal | null, now: Date): Promise<AutoTopupRule> {
  const pool = (await poolRepo.findPool(db, rule.account_id, rule.credit_pool_id))!;
  const [price, totals, [last]] = await Promise.all([
    findPriceAt(db, rule.account_id, pool.denomination, now),
    repo.poolAttemptTotals(db, rule.account_id, rule.credit_pool_id, monthStartOf(now)),
    repo.listAttempts(db, rule.account_id, rule.credit_pool_id, { limit: 1, offset: 0 }),
  ]);
  const topupCredits = dec(rule.topup_credits);
  const monthToDate = dec(totals.month_to_date);
  const state = ruleState(
    {
      enabled: rule.enabled, retryAfter: rule.retry_after, topupCredits, maxMonthlyAmount: rule.max_monthly_amount === null ? null : dec(rule.max_monthly_amount),
      pending: totals.pending, monthToDate, price, spendCap,
    },
    now,
  );
  return toRule(rule, {
    customerReferenceId,
    currency: price?.currency ?? null,
    pricePerCredit: price?.pricePerCredit ?? null,
    amountPerTopup: price ? autoTopupAmount(topupCredits, price.pricePerCredit, price.currency) : null,
    monthToDateAmount: monthToDate,
    state,
    lastAttempt: last ? toAttempt(last) : null,
  });
}

/**
 * Creates or replaces a pool's rule (money §2.2) under the pool's lock, and keeps the pool's
 * denormalised threshold in step (the rule's while enabled, else null). Re-enabling a disabled rule
 * resets its failures and retry block; disabling sets MANUAL.
 */
export async function saveAutoTopupRule(db: Db, accountId: string, customerId: string, poolId: string, input: RuleInput, now: Date) {
  return withTransaction(db, async (tx) => {
    const [pool] = await poolRepo.lockPools(tx, accountId, [poolId]);
    if (!pool) throw notFound(`Credit pool not found: ${poolId}`);
    const existing = await repo.lockRule(tx, accountId, poolId);
    const reenabled = input.enabled && (!existing || !existing.enabled);
    const rule = await repo.upsertRule(tx, {
      account_id: accountId,
      credit_pool_id: poolId,
      customer_id: customerId,
      enabled: input.enabled,
      threshold: input.threshold.toFixed(),
      topup_credits: input.topupCredits.toFixed(),
      max_monthly_amount: input.maxMonthlyAmount?.toFixed() ?? null,
      consecutive_failures: reenabled ? 0 : (existing?.consecutive_failures ?? 0),
      retry_after: reenabled ? null : (existing?.retry_after ?? null),
      disabled_reason: input.enabled ? null : 'MANUAL',
      created_at: existing?.created_at ?? now,
      modified_at: now,
    });
    await repo.setPoolThreshold(tx, accountId, poolId, input.enabled ? rule.threshold : null);
    return rule;
  });
}

/** Removes a pool's rule and nothing else (attempts stay; a PENDING one is still charged). Idempotent. */
export async function deleteAutoTopupRule(db: Db, accountId: string, poolId: string) {
  await withTransaction(db, async (tx) => {
    const [pool] = await poolRepo.lockPools(tx, accountId, [poolId]);
    if (!pool) return;
    await repo.deleteRule(tx, accountId, poolId);
    await repo.setPoolThreshold(tx, accountId, poolId, null);
  });
}

/** A pool's attempts, newest first, paged. */
export async function listAutoTopupAttempts(db: Executor, accountId: string, poolId: string, page: PageQuery) {
  const [rows, total] = await Promise.all([repo.listAttempts(db, accountId, poolId, page), repo.countAttempts(db, accountId, poolId)]);
  return toPage(rows.map(toAttempt), total, page);
}

export const findAutoTopupAttempt = (db: Executor, accountId: string, attemptId: string) => repo.findAttempt(db, accountId, attemptId);

/** Clears the retry block of every rule of the customer: its default payment method changed (money §2.5). */
export async function clearAutoTopupRetry(db: Executor, accountId: string, customerId: string, now: Date): Promise<void> {
  await repo.clearRetryAfter(db, accountId, customerId, now);
}

/** PENDING attempts older than `before`, across accounts (the recovery job). */
export const stalePendingAutoTopups = (db: Executor, before: Date, limit: number) => repo.stalePendingAttempts(db, before, limit);

export type Settlement =
  | { succeeded: true; paymentIntentId: string; paymentMethodId: string | null }
  | { succeeded: false; failureCode: string; failureMessage: string | null; paymentIntentId: string | null; paymentMethodId: string | null };

/**
 * Settles a PENDING attempt inside the caller's transaction (money §2.4 steps 5–6, §2.5): success
 * grants its credits (PURCHASED, book price of the attempt, key `pi_<id>`, so the charge and the
 * webhook grant once between them); a failure is stored with whether it counts. The rule's counters
 * follow, and a third counted failure disables it (clearing the pool's threshold). An attempt no
 * longer PENDING is left as it is (returns null). `beforeGrant` runs on success with the new grant's
 * id, between the grant row and its credits.granted (payments' payment.succeeded, naming its grant).
 */
export async function settleAutoTopupAttempt(tx: Tx, accountId: string, attemptId: string, outcome: Settlement, now: Date, beforeGrant?: (attempt: repo.AutoTopupAttemptRow, grantId: string) => Promise<void>) {
  const found = await repo.findAttempt(tx, accountId, attemptId);
  if (!found) return null;
  await poolRepo.lockPools(tx, accountId, [found.credit_pool_id]);
  const attempt = await repo.lockAttempt(tx, accountId, attemptId);
  if (!attempt || attempt.status !== 'PENDING') return null;
  let settled: repo.AutoTopupAttemptRow;
  if (outcome.succeeded) {
    const { grantId } = await grantPurchasedCredits(
      tx,
      {
        accountId, poolId: attempt.credit_pool_id, amount: dec(attempt.credits), unitPrice: dec(attempt.price_per_credit), currency: attempt.currency,
        idempotencyKey: `pi_${outcome.paymentIntentId}`, description: 'Auto top-up', metadata: { autoTopupAttemptId: attempt.id, paymentIntentId: outcome.paymentIntentId },
        // The payment is recorded knowing its grant, before the grant's credits.granted (events §E5.5).
        ...(beforeGrant ? { onGranted: (id: string) => beforeGrant(attempt, id) } : {}),
      },
      now,
    );
    settled = await repo.updateAttempt(tx, accountId, attempt.id, {
      status: 'SUCCEEDED', payment_intent_id: outcome.paymentIntentId, payment_method_id: outcome.paymentMethodId ?? attempt.payment_method_id, grant_id: grantId, completed_at: now,
    });
  } else {
    settled = await repo.updateAttempt(tx, accountId, attempt.id, {
      status: 'FAILED', failure_code: outcome.failureCode, failure_message: outcome.failureMessage, payment_intent_id: outcome.paymentIntentId,
      payment_method_id: outcome.paymentMethodId, counted: !UNCOUNTED_FAILURES.has(outcome.failureCode), completed_at: now,
    });
  }
  await recordEvent(tx, { accountId, type: settled.status === 'SUCCEEDED' ? 'credits.auto_topup_succeeded' : 'credits.auto_topup_failed', object: toAttempt(settled), now });
  await applyToRule(tx, settled, now);
  return settled;
}

/** The rule's counters after a settled attempt; a rule deleted meanwhile has none to change. */
async function applyToRule(tx: Tx, attempt: repo.AutoTopupAttemptRow, now: Date) {
  const rule = await repo.lockRule(tx, attempt.account_id, attempt.credit_pool_id);
  if (!rule) return;
  const before = { enabled: rule.enabled, consecutiveFailures: rule.consecutive_failures, retryAfter: rule.retry_after, disabledReason: rule.disabled_reason };
  const after = countersAfter(before, attempt.status === 'SUCCEEDED' ? { succeeded: true } : { succeeded: false, counted: attempt.counted }, attempt.completed_at ?? now);
  if (after === before) return;
  const updated = await repo.updateRule(tx, attempt.account_id, attempt.credit_pool_id, {
    enabled: after.enabled, consecutive_failures: after.consecutiveFailures, retry_after: after.retryAfter, disabled_reason: after.disabledReason, modified_at: now,
  });
  if (before.enabled && !after.enabled) {
    await repo.setPoolThreshold(tx, attempt.account_id, attempt.credit_pool_id, null);
    const customer = await getCustomerById(tx, attempt.account_id, rule.customer_id);
    const described = await describe(tx, updated!, customer.customer_reference_id, null, now);
    await recordEvent(tx, { accountId: attempt.account_id, type: 'credits.auto_topup_disabled', object: described, now });
  }
}
