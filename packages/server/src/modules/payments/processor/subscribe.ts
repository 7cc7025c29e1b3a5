import type { AppContext } from '../../../platform/context.js';
import type { Tx } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { AppError, conflict, invalid } from '../../../platform/errors/app-error.js';
import type { Principal } from '../../../platform/http/principal.js';
import { newId } from '../../../platform/ids.js';
import { Money, dec, type Decimal } from '../../../platform/money.js';
import { listCustomerSubscriptions, type ProcessorSubscribeOutcome, type SubscribePayment } from '../../billing/index.js';
import type { Plan } from '../../catalog/index.js';
import { openHostedKeySpend, releaseChargeSpend, releaseKeySpend, reserveOffSessionSpend } from '../../customers/index.js';
import { getAccountSettings, type AccountSettings } from '../../settings/index.js';
import { processorKey } from '../connection.js';
import { requireWithinSpendCap } from '../domain.js';
import { METADATA } from '../events.js';
import { ensurePlanPrices, subscriptionItems, type MeteredPrice } from '../plan-sync.js';
import { ensureProcessorCustomer } from './customers.js';
import { linkProcessorSubscription } from './apply.js';
import { isCardError, processorMessage, stripeProcessor, type Processor, type ProcessorSubscription } from './stripe.js';
import * as repo from '../repo.js';
import type { DeclinedCharge } from '../checkout.js';
import { chargeDeclineReason, processorIdOf, recordPayment } from '../outbound.js';
import { movesMoney } from '../subscribe.js';
import { defaultReturnUrls } from '../return-pages.js';

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
 *
 * A customer key's charge counts as in PAYMENT_PASS_THROUGH (api-contract-agent-v2.md §2.5, §2.6
 * steps 3–5, §4.6; ADR 0040 addendum), under our subscription's id (the PENDING row's, which keys
 * the processor calls and which the spend sweep resolves): off-session, the plan's price is checked
 * and reserved against the key budget and the mandate in the transaction that writes the PENDING
 * row, before any processor call (a refusal writes nothing), settled when the processor's
 * subscription is paid (its answer or its webhooks, `linkProcessorSubscription`), given back on a
 * decline; a checkout counts against the key only when paid.
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
  const keyId = principal.kind === 'customer' && principal.portalSessionId === undefined ? principal.keyId : null;
  const begun = await withTransaction(ctx.db, (tx) => beginSubscribe(tx, principal, input, settings, keyId, ctx.clock.now()));
  let intent = begun.intent;
  const spend = { accountId, customerId: input.customer.id, id: intent.subscription_id };
  let link, prices;
  try {
    link = await ensureProcessorCustomer(ctx, processor, input.customer);
    prices = await ensurePlanPrices(ctx, processor, input.plan);
  } catch (err) {
    // Nothing was charged: what was reserved goes back now rather than at the sweep.
    if (keyId !== null && begun.offSession) await withTransaction(ctx.db, (tx) => releaseChargeSpend(tx, { ...spend, now: ctx.clock.now() }));
    throw err;
  }
  // Only what was checked (and, for a customer key, reserved) as off-session is charged so.
  const paymentMethod = begun.offSession ? input.paymentMethodId ?? link.default_payment_method_id : null;
  let declineReason: string | undefined;
  let declined: DeclinedCharge | undefined;
  if (paymentMethod) {
    const charged = await chargeSubscription(ctx, processor, intent, { customer: link.processor_customer_id, prices, paymentMethod });
    if (charged === true) return { kind: 'subscribed', subscriptionId: intent.subscription_id };
    declineReason = 'off-session charge declined';
    declined = charged;
    intent = await withTransaction(ctx.db, async (tx) => {
      const now = ctx.clock.now();
      // Declined: the reservation goes (customer row, then the key, before the rows below).
      if (keyId !== null) await releaseChargeSpend(tx, { ...spend, now });
      await repo.updateProcessorSubscription(tx, accountId, intent.subscription_id, { status: 'DECLINED', modified_at: now });
      const next = await insertIntent(tx, accountId, input, newId(), now);
      // The checkout counts against the key when it is paid (never against the mandate).
      if (keyId !== null) await openHostedSpend(tx, { accountId, keyId, id: next.subscription_id, amount: firstInvoiceAmount(input.plan), now });
      return next;
    });
  }
  const session = await openSubscriptionCheckout(ctx, processor, intent, {
    processorCustomerId: link.processor_customer_id, prices, plan: input.plan, settings, returnBaseUrl: input.returnBaseUrl, declined,
  });
  return { kind: 'checkout', checkoutUrl: session.checkoutUrl, checkoutSessionId: session.id, paymentRequired: principal.kind === 'customer', ...(declineReason ? { declineReason } : {}) };
}

export const ONE_ACTIVE_SUBSCRIPTION_MESSAGE =
  'STRIPE_INTEGRATION accounts only support one active subscription per customer. Cancel the current subscription or change its plan instead of subscribing again.';

/** The first invoice the processor will raise, as we compute it: the plan's price in its currency's minor units. */
const firstInvoiceAmount = (plan: Plan) => Money.of(dec(plan.price_amount ?? '0'), plan.currency).rounded().amount;

/**
 * Checks (one active subscription, the spend cap), a customer key's off-session charge reserved
 * under the PENDING row's id (customer row, then key budget: the transaction's first locks; a
 * refusal rolls everything back), and the PENDING row: a new one, or the retry's (whose unsettled
 * reservation is replaced). `offSession`: a supplied or saved method and no checkout open yet.
 */
async function beginSubscribe(tx: Tx, principal: Principal, input: SubscribePayment, settings: AccountSettings, keyId: string | null, now: Date) {
  const accountId = principal.accountId;
  const subscriptions = await listCustomerSubscriptions(tx, accountId, input.customer.id);
  if (subscriptions.some((s) => s.is_active && !s.ended_at)) throw invalid(ONE_ACTIVE_SUBSCRIPTION_MESSAGE);
  if (await movesMoney(tx, principal, input)) requireWithinSpendCap(dec(input.plan.price_amount ?? '0'), input.plan.currency, settings.agentMaxTopupAmount);
  const pending = await repo.findPendingProcessorSubscription(tx, accountId, input.customer.id);
  if (pending) requireSamePlan(pending, input.plan);
  const saved = input.paymentMethodId !== undefined || Boolean((await repo.findProcessorCustomer(tx, accountId, input.customer.id))?.default_payment_method_id);
  const offSession = saved && !pending?.checkout_session_id;
  const amount = firstInvoiceAmount(input.plan);
  const count = async (id: string) => {
    if (keyId === null || !amount.gt(0)) return;
    if (offSession) return reserveOffSessionSpend(tx, { accountId, customerId: input.customer.id, customerReferenceId: input.customer.customer_reference_id, keyId, id, amount, now });
    return openHostedSpend(tx, { accountId, keyId, id, amount, now });
  };
  const id = pending?.subscription_id ?? newId();
  await count(id);
  const intent = pending ?? (await insertIntent(tx, accountId, input, id, now));
  if (intent.subscription_id !== id && keyId !== null) {
    // A concurrent subscribe of the same customer committed its PENDING row first: count under its id.
    await releaseChargeSpend(tx, { accountId, customerId: input.customer.id, id, now });
    await count(intent.subscription_id);
  }
  return { intent, offSession };
}

/** A checkout's spend for the key (replacing an earlier one under the same id): counted when paid. */
async function openHostedSpend(tx: Tx, s: { accountId: string; keyId: string; id: string; amount: Decimal; now: Date }) {
  if (!s.amount.gt(0)) return;
  await releaseKeySpend(tx, s.accountId, s.id, s.now);
  await openHostedKeySpend(tx, s);
}

async function insertIntent(tx: Tx, accountId: string, input: SubscribePayment, id: string, now: Date) {
  const row: repo.ProcessorSubscriptionRow = {
    account_id: accountId, subscription_id: id, customer_id: input.customer.id, plan_id: input.plan.id, status: 'PENDING',
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

/** The off-session subscription; true when it is paid and ours is written, else the declined charge. */
async function chargeSubscription(
  ctx: AppContext,
  processor: Processor,
  intent: repo.ProcessorSubscriptionRow,
  call: { customer: string; prices: { priceId: string; metered: MeteredPrice[] }; paymentMethod: string },
): Promise<true | DeclinedCharge> {
  let subscription: ProcessorSubscription;
  try {
    // A failed first payment is an error (a card error), not an incomplete subscription left behind.
    subscription = await processor.createSubscription(
      { customer: call.customer, items: subscriptionItems(call.prices), paymentMethod: call.paymentMethod, metadata: intentMetadata(intent) },
      `tally-subscription-${intent.subscription_id}`,
    );
  } catch (err) {
    if (isCardError(err)) return { declineReason: chargeDeclineReason(err.code), processorPaymentId: processorIdOf((err as { payment_intent?: unknown }).payment_intent) };
    throw new AppError('vendor_error', `Stripe did not create the subscription: ${processorMessage(err)}`, { cause: err });
  }
  if (subscription.status !== 'active' && subscription.status !== 'trialing') {
    return { declineReason: chargeDeclineReason(`payment ${subscription.status}`), processorPaymentId: null };
  }
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
 * After a declined card, `payment.failed` is recorded with the session row (the committed change
 * of the request, which then answers with the checkout; §E5.5).
 */
async function openSubscriptionCheckout(
  ctx: AppContext,
  processor: Processor,
  intent: repo.ProcessorSubscriptionRow,
  input: { processorCustomerId: string; prices: { priceId: string; metered: MeteredPrice[] }; plan: Plan; settings: AccountSettings; returnBaseUrl: string; declined?: DeclinedCharge | undefined },
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
      if (input.declined) {
        // Our subscription does not exist (the declined one never will): no subscriptionId.
        await recordPayment(tx, {
          accountId, customerId: intent.customer_id, status: 'FAILED', purpose: 'SUBSCRIPTION', amount: session.amount!, currency: session.currency!,
          processorPaymentId: input.declined.processorPaymentId, checkoutSessionId: session.id, declineReason: input.declined.declineReason, now,
        });
      }
      return session;
    });
  }
  const metadata = { ...intentMetadata(intent), [METADATA.checkoutSession]: row.id };
  const ours = defaultReturnUrls(input.returnBaseUrl, 'payment');
  let session: { id: string; url: string | null; expiresAt: Date | null };
  try {
    session = await processor.createSubscriptionCheckout(
      {
        customer: input.processorCustomerId,
        clientReferenceId: row.id,
        successUrl: input.settings.stripeCheckoutSuccessUrl ?? ours.successUrl,
        cancelUrl: input.settings.stripeCheckoutCancelUrl ?? ours.cancelUrl,
        items: subscriptionItems(input.prices),
        metadata,
      },
      `tally-checkout-${row.id}`,
    );
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the checkout session: ${processorMessage(err)}`, { cause: err });
  }
  await withTransaction(ctx.db, (tx) =>
    repo.updateCheckoutSession(tx, accountId, row.id, { processor_session_id: session.id, checkout_url: session.url, expires_at: session.expiresAt, modified_at: ctx.clock.now() }),
  );
  return { id: row.id, checkoutUrl: session.url! };
}
