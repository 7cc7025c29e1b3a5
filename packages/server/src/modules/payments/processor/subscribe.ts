import type { AppContext } from '../../../platform/context.js';
import type { Tx } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { AppError, conflict, invalid } from '../../../platform/errors/app-error.js';
import type { Principal } from '../../../platform/http/principal.js';
import { newId } from '../../../platform/ids.js';
import { dec } from '../../../platform/money.js';
import { listCustomerSubscriptions, type ProcessorSubscribeOutcome, type SubscribePayment } from '../../billing/index.js';
import type { Plan } from '../../catalog/index.js';
import { getAccountSettings, type AccountSettings } from '../../settings/index.js';
import { processorKey } from '../connection.js';
import { requireWithinSpendCap } from '../domain.js';
import { METADATA } from '../events.js';
import { ensurePlanPrices, subscriptionItems, type MeteredPrice } from '../plan-sync.js';
import { ensureProcessorCustomer } from './customers.js';
import { linkProcessorSubscription } from './apply.js';
import { isCardError, processorMessage, stripeProcessor, type Processor, type ProcessorSubscription } from './stripe.js';
import * as repo from '../repo.js';
import { movesMoney } from '../subscribe.js';

/**
 * A paid in-advance subscribe in PROCESSOR_INTEGRATION (contract §4.5): the processor owns the
 * subscription. Our id for it is chosen first and committed in a PENDING `processor_subscriptions`
 * row (at most one per customer), then keys the processor calls and rides in their metadata:
 *
 * - with a supplied or saved payment method, the processor subscription is created and charged
 *   off-session; ours is written active from its answer (201), and the webhooks find it;
 * - without one, or after a declined charge, a Checkout Session in subscription mode: 402 for a
 *   customer key, 201 with the same data for a tenant key; the webhook creates ours once paid.
 *
 * A retry with the same customer and plan finds the PENDING row: its open checkout is returned, or
 * the charge is repeated under the same idempotency key (the processor replays its first answer).
 */
export async function subscribeThroughProcessor(
  ctx: AppContext,
  principal: Principal,
  input: SubscribePayment & { returnBaseUrl: string },
): Promise<ProcessorSubscribeOutcome | null> {
  const accountId = principal.accountId;
  const settings = await getAccountSettings(ctx.db, accountId);
  if (settings.stripeMode !== 'PROCESSOR_INTEGRATION') return null;
  const key = await processorKey(ctx, accountId);
  if (!key) return null;
  const processor = stripeProcessor(ctx.config, key, ctx.metrics);
  let intent = await withTransaction(ctx.db, (tx) => beginSubscribe(tx, principal, input, settings, ctx.clock.now()));
  const link = await ensureProcessorCustomer(ctx, processor, input.customer);
  const prices = await ensurePlanPrices(ctx, processor, input.plan);
  const paymentMethod = input.paymentMethodId ?? link.default_payment_method_id;
  let declineReason: string | undefined;
  if (paymentMethod && !intent.checkout_session_id) {
    const charged = await chargeSubscription(ctx, processor, intent, { customer: link.processor_customer_id, prices, paymentMethod });
    if (charged) return { kind: 'subscribed', subscriptionId: intent.subscription_id };
    declineReason = 'off-session charge declined';
    intent = await withTransaction(ctx.db, async (tx) => {
      const now = ctx.clock.now();
      await repo.updateProcessorSubscription(tx, accountId, intent.subscription_id, { status: 'DECLINED', modified_at: now });
      return insertIntent(tx, accountId, input, now);
    });
  }
  const session = await openSubscriptionCheckout(ctx, processor, intent, { processorCustomerId: link.processor_customer_id, prices, plan: input.plan, settings, returnBaseUrl: input.returnBaseUrl });
  return { kind: 'checkout', checkoutUrl: session.checkoutUrl, checkoutSessionId: session.id, paymentRequired: principal.kind === 'customer', ...(declineReason ? { declineReason } : {}) };
}

export const ONE_ACTIVE_SUBSCRIPTION_MESSAGE =
  'STRIPE_INTEGRATION accounts only support one active subscription per customer. Cancel the current subscription or change its plan instead of subscribing again.';

/** Checks (one active subscription, the spend cap) and the PENDING row: a new one, or the retry's. */
async function beginSubscribe(tx: Tx, principal: Principal, input: SubscribePayment, settings: AccountSettings, now: Date) {
  const subscriptions = await listCustomerSubscriptions(tx, principal.accountId, input.customer.id);
  if (subscriptions.some((s) => s.is_active && !s.ended_at)) throw invalid(ONE_ACTIVE_SUBSCRIPTION_MESSAGE);
  if (await movesMoney(tx, principal, input)) requireWithinSpendCap(dec(input.plan.price_amount ?? '0'), input.plan.currency, settings.agentMaxTopupAmount);
  const pending = await repo.findPendingProcessorSubscription(tx, principal.accountId, input.customer.id);
  if (pending) return requireSamePlan(pending, input.plan);
  return insertIntent(tx, principal.accountId, input, now);
}

async function insertIntent(tx: Tx, accountId: string, input: SubscribePayment, now: Date) {
  const row: repo.ProcessorSubscriptionRow = {
    account_id: accountId, subscription_id: newId(), customer_id: input.customer.id, plan_id: input.plan.id, status: 'PENDING',
    processor_subscription_id: null, checkout_session_id: null, created_at: now, modified_at: now,
  };
  if (await repo.insertProcessorSubscription(tx, row)) return row;
  // A concurrent subscribe of the same customer committed its PENDING row first.
  return requireSamePlan((await repo.findPendingProcessorSubscription(tx, accountId, input.customer.id))!, input.plan);
}

function requireSamePlan(pending: repo.ProcessorSubscriptionRow, plan: Plan) {
  if (pending.plan_id !== plan.id) {
    throw conflict('A subscription to another plan is already being paid for this customer; complete or let its checkout expire first');
  }
  return pending;
}

/** The off-session subscription; true when it is paid and ours is written, false when declined. */
async function chargeSubscription(
  ctx: AppContext,
  processor: Processor,
  intent: repo.ProcessorSubscriptionRow,
  call: { customer: string; prices: { priceId: string; metered: MeteredPrice[] }; paymentMethod: string },
): Promise<boolean> {
  let subscription: ProcessorSubscription;
  try {
    // A failed first payment is an error (a card error), not an incomplete subscription left behind.
    subscription = await processor.createSubscription(
      { customer: call.customer, items: subscriptionItems(call.prices), paymentMethod: call.paymentMethod, metadata: intentMetadata(intent) },
      `tally-subscription-${intent.subscription_id}`,
    );
  } catch (err) {
    if (isCardError(err)) return false;
    throw new AppError('vendor_error', `Stripe did not create the subscription: ${processorMessage(err)}`, { cause: err });
  }
  if (subscription.status !== 'active' && subscription.status !== 'trialing') return false;
  await withTransaction(ctx.db, (tx) => linkProcessorSubscription(tx, intent.account_id, subscription, ctx.clock.now()));
  return true;
}

const intentMetadata = (intent: repo.ProcessorSubscriptionRow) => ({
  [METADATA.account]: intent.account_id,
  [METADATA.customer]: intent.customer_id,
  [METADATA.plan]: intent.plan_id,
  [METADATA.subscription]: intent.subscription_id,
});

/**
 * The Checkout Session the subscription will come from, for the PENDING row. Our session row is
 * committed (and linked to the row) before the processor call, which it keys; a retry finds it.
 */
async function openSubscriptionCheckout(
  ctx: AppContext,
  processor: Processor,
  intent: repo.ProcessorSubscriptionRow,
  input: { processorCustomerId: string; prices: { priceId: string; metered: MeteredPrice[] }; plan: Plan; settings: AccountSettings; returnBaseUrl: string },
): Promise<{ id: string; checkoutUrl: string }> {
  const accountId = intent.account_id;
  let row = intent.checkout_session_id ? await repo.findCheckoutSession(ctx.db, accountId, intent.checkout_session_id) : undefined;
  if (row?.checkout_url) return { id: row.id, checkoutUrl: row.checkout_url };
  if (!row) {
    row = await withTransaction(ctx.db, async (tx) => {
      const now = ctx.clock.now();
      const session = await repo.insertCheckoutSession(tx, {
        id: newId(), account_id: accountId, customer_id: intent.customer_id, purpose: 'SUBSCRIPTION', status: 'PENDING',
        processor_session_id: null, processor_invoice_id: null, checkout_url: null, plan_id: intent.plan_id, subscription_id: null,
        invoice_id: null, credit_pool_id: null, credits: null, price_per_credit: null, amount: dec(input.plan.price_amount ?? '0').toFixed(),
        currency: input.plan.currency, grant_id: null, created_at: now, completed_at: null, modified_at: now,
      });
      await repo.updateProcessorSubscription(tx, accountId, intent.subscription_id, { checkout_session_id: session.id, modified_at: now });
      return session;
    });
  }
  const metadata = { ...intentMetadata(intent), [METADATA.checkoutSession]: row.id };
  const base = `${input.returnBaseUrl}/`;
  let session: { id: string; url: string | null };
  try {
    session = await processor.createSubscriptionCheckout(
      {
        customer: input.processorCustomerId,
        clientReferenceId: row.id,
        successUrl: input.settings.stripeCheckoutSuccessUrl ?? base,
        cancelUrl: input.settings.stripeCheckoutCancelUrl ?? base,
        items: subscriptionItems(input.prices),
        metadata,
      },
      `tally-checkout-${row.id}`,
    );
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the checkout session: ${processorMessage(err)}`, { cause: err });
  }
  await withTransaction(ctx.db, (tx) =>
    repo.updateCheckoutSession(tx, accountId, row.id, { processor_session_id: session.id, checkout_url: session.url, modified_at: ctx.clock.now() }),
  );
  return { id: row.id, checkoutUrl: session.url! };
}
