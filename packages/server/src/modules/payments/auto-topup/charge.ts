import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import type { Tx } from '../../../platform/db/database.js';
import { dec } from '../../../platform/money.js';
import { findAutoTopupAttempt, settleAutoTopupAttempt, stalePendingAutoTopups, type AutoTopupAttemptRow, type AutoTopupSettlement } from '../../credits/index.js';
import { getAccountSettings } from '../../settings/index.js';
import { processorKey } from '../connection.js';
import { METADATA } from '../events.js';
import { formatAmount, toMinorUnitInteger } from '../domain.js';
import { processorIdOf, recordPayment } from '../outbound.js';
import { isCardError, isInvalidRequestError, processorMessage, stripeProcessor } from '../processor/stripe.js';
import * as repo from '../repo.js';

/**
 * The auto top-up charge (api-contract-money.md §2.4): after the draw's transaction committed, the
 * attempt is charged off-session with its id as the processor's idempotency key, so every retry of
 * the same attempt (this call again, the recovery job after a crash) charges at most once; credits
 * are granted only once the processor says the payment succeeded, keyed by its payment intent.
 * Runs outside any transaction; each outcome is written in one transaction of its own.
 */

/** How old a PENDING attempt is before the recovery job retries it, and when it gives up (§2.4). */
export const RECOVERY_AFTER_MS = 60 * 1000;
export const GIVE_UP_AFTER_MS = 24 * 60 * 60 * 1000;
const RECOVERY_BATCH = 100;

type Outcome = AutoTopupSettlement | 'unknown';

/** Steps 1–7 of §2.4 for one attempt; a no-op unless it is PENDING. Never throws for a processor answer. */
export async function chargeAutoTopupAttempt(ctx: AppContext, accountId: string, attemptId: string): Promise<void> {
  const attempt = await findAutoTopupAttempt(ctx.db, accountId, attemptId);
  if (attempt?.status !== 'PENDING') return;
  const outcome = await charge(ctx, attempt);
  if (outcome === 'unknown') return;
  await settle(ctx, attempt, outcome);
}

async function charge(ctx: AppContext, attempt: AutoTopupAttemptRow): Promise<Outcome> {
  const failed = (failureCode: string, failureMessage: string | null, paymentMethodId: string | null = null): Outcome =>
    ({ succeeded: false, failureCode, failureMessage, paymentIntentId: null, paymentMethodId });
  const settings = await getAccountSettings(ctx.db, attempt.account_id);
  const cap = settings.agentMaxTopupAmount;
  if (cap !== null && dec(attempt.amount).gt(cap)) {
    return failed('spend_cap_exceeded', `Amount ${formatAmount(dec(attempt.amount), attempt.currency)} exceeds this account's agent spend cap of ${formatAmount(cap, attempt.currency)}`);
  }
  const link = await repo.findProcessorCustomer(ctx.db, attempt.account_id, attempt.customer_id);
  const paymentMethod = link?.default_payment_method_id ?? null;
  if (!link || !paymentMethod) return failed('no_payment_method', 'The customer has no default payment method');
  const key = settings.stripeMode === 'NONE' ? null : await processorKey(ctx, attempt.account_id);
  if (!key) return failed('no_processor', 'No payment processor is connected', paymentMethod);
  const processor = stripeProcessor(ctx.config, key, ctx.metrics);
  try {
    const intent = await processor.chargeOffSession(
      {
        amountMinor: toMinorUnitInteger(dec(attempt.amount), attempt.currency),
        currency: attempt.currency.toLowerCase(),
        customer: link.processor_customer_id,
        paymentMethod,
        description: 'Auto top-up',
        metadata: { [METADATA.account]: attempt.account_id, [METADATA.autoTopupAttempt]: attempt.id, [METADATA.creditPool]: attempt.credit_pool_id },
      },
      attempt.id,
    );
    if (intent.status === 'succeeded') return { succeeded: true, paymentIntentId: intent.id, paymentMethodId: paymentMethod };
    if (intent.status === 'processing') return 'unknown';
    return { succeeded: false, failureCode: intent.status, failureMessage: `The payment needs ${intent.status.replaceAll('_', ' ')}`, paymentIntentId: intent.id, paymentMethodId: paymentMethod };
  } catch (err) {
    if (isCardError(err) || isInvalidRequestError(err)) {
      const paymentIntentId = processorIdOf((err as { payment_intent?: unknown }).payment_intent);
      return { succeeded: false, failureCode: (err as { code?: string }).code ?? 'payment_refused', failureMessage: processorMessage(err), paymentIntentId, paymentMethodId: paymentMethod };
    }
    // Unreachable, 5xx, timeout: the outcome is unknown; the attempt stays PENDING for the recovery job.
    return 'unknown';
  }
}

async function settle(ctx: AppContext, attempt: AutoTopupAttemptRow, outcome: AutoTopupSettlement): Promise<void> {
  const now = ctx.clock.now();
  await withTransaction(ctx.db, (tx) => settleIn(tx, attempt.account_id, attempt.id, outcome, now));
}

/** Settles inside `tx`, recording the Payment (payment.succeeded before the grant; payment.failed for a processor decline). */
async function settleIn(tx: Tx, accountId: string, attemptId: string, outcome: AutoTopupSettlement, now: Date) {
  const settled = await settleAutoTopupAttempt(tx, accountId, attemptId, outcome, now, (attempt, grantId) =>
    recordPayment(tx, { accountId, customerId: attempt.customer_id, status: 'SUCCEEDED', purpose: 'CREDIT_TOPUP', amount: attempt.amount, currency: attempt.currency, processorPaymentId: outcome.paymentIntentId, grantId, now }),
  );
  if (settled?.status === 'FAILED' && settled.counted && outcome.paymentIntentId) {
    await recordPayment(tx, {
      accountId, customerId: settled.customer_id, status: 'FAILED', purpose: 'CREDIT_TOPUP', amount: settled.amount, currency: settled.currency,
      processorPaymentId: outcome.paymentIntentId, declineReason: settled.failure_code, now,
    });
  }
}

/**
 * The webhook's `payment_intent.succeeded` for an auto top-up (§2.4): completes the attempt as step 5
 * if it is still PENDING (the grant is keyed by the payment intent, so the charge and the webhook
 * grant once between them). True when the payment intent named an attempt.
 */
export async function completeFromWebhook(tx: Tx, accountId: string, attemptId: string, paymentIntentId: string, paymentMethodId: string | null, now: Date): Promise<void> {
  await settleIn(tx, accountId, attemptId, { succeeded: true, paymentIntentId, paymentMethodId }, now);
}

/**
 * The recovery job (every minute, §2.4): PENDING attempts older than 60 s are charged again with the
 * same idempotency key; those older than 24 h fail with `processor_unavailable` (not counted).
 */
export async function recoverAutoTopups(ctx: AppContext, now: Date): Promise<void> {
  const stale = await stalePendingAutoTopups(ctx.db, new Date(now.getTime() - RECOVERY_AFTER_MS), RECOVERY_BATCH);
  for (const a of stale) {
    if (now.getTime() - a.created_at.getTime() > GIVE_UP_AFTER_MS) {
      await withTransaction(ctx.db, (tx) =>
        settleIn(tx, a.account_id, a.id, { succeeded: false, failureCode: 'processor_unavailable', failureMessage: 'The payment processor did not answer within 24 hours', paymentIntentId: null, paymentMethodId: null }, ctx.clock.now()),
      );
      continue;
    }
    await chargeAutoTopupAttempt(ctx, a.account_id, a.id);
  }
}
