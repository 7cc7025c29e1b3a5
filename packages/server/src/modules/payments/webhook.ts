import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError } from '../../platform/errors/app-error.js';
import { isUuid } from '../../platform/ids.js';
import { dec } from '../../platform/money.js';
import { accountExists } from '../accounts/index.js';
import { findInvoice, settleInvoice } from '../billing/index.js';
import { clearAutoTopupRetry, grantPurchasedCredits } from '../credits/index.js';
import { findCustomerById, settleChargeSpend } from '../customers/index.js';
import { getAccountSettings } from '../settings/index.js';
import { webhookSecret } from './connection.js';
import { fromMinorUnitInteger } from './domain.js';
import { processorIdOf, recordCheckoutCompleted, recordPayment } from './outbound.js';
import { purchasePayment } from './purchases.js';
import { invoicePayment } from './subscribe.js';
import { METADATA } from './events.js';
import { completeFromWebhook } from './auto-topup/charge.js';
import {
  verifyWebhookEvent,
  type ProcessorCheckoutSession,
  type ProcessorCustomer,
  type ProcessorEvent,
  type ProcessorInvoice,
  type ProcessorPaymentIntent,
  type ProcessorSetupIntent,
} from './processor/stripe.js';
import { applyProcessorInvoice, linkProcessorSubscription, subscriptionCheckoutCompleted, subscriptionCheckoutExpired } from './processor/apply.js';
import * as repo from './repo.js';
import { completeSetupCheckout, saveSetupCheckoutMethod, type SavedSetupMethod } from './setup-checkout.js';
import { expireCheckoutSession } from './checkout-expiry.js';
import { completeMandateCheckout } from './mandate/pages.js';

/**
 * The processor's webhook (contract §5.5): the raw body is verified against the account's signing
 * secret (SDK `constructEvent`, with the configured timestamp tolerance), then the event is applied
 * in ONE transaction that also records its id. A repeat (or a concurrent copy, which waits on the
 * first copy's uncommitted insert) finds the id recorded and changes nothing.
 */

export type WebhookOutcome = { applied: boolean; type: string };

const rejected = (message: string) => new AppError('validation_failed', message);

export async function receiveWebhook(ctx: AppContext, accountId: string, rawBody: string, signature: string | undefined): Promise<WebhookOutcome> {
  if (!signature) throw rejected('Missing Stripe-Signature header');
  // An unknown account has no secret; the answer is the same as for a bad signature.
  const secret = (await accountExists(ctx.db, accountId)) ? await webhookSecret(ctx, accountId) : null;
  if (!secret) throw rejected('Webhook signature verification failed');
  let event: ProcessorEvent;
  try {
    // Our clock (frozen in tests) dates the delivery.
    event = verifyWebhookEvent(rawBody, signature, secret, ctx.config.stripe.webhookToleranceSeconds, ctx.clock.now().getTime());
  } catch {
    throw rejected('Webhook signature verification failed');
  }
  // A setup checkout's processor calls come first, outside the transaction (each safe to repeat).
  const saved = event.type === 'checkout.session.completed' ? await saveSetupCheckoutMethod(ctx, accountId, event.data.object) : null;
  const now = ctx.clock.now();
  const applied = await withTransaction(ctx.db, async (tx) => {
    if (!(await repo.recordEvent(tx, accountId, event.id, event.type, now))) return false;
    await applyEvent(ctx, tx, accountId, event, now, saved);
    return true;
  });
  return { applied, type: event.type };
}

async function applyEvent(ctx: AppContext, tx: Tx, accountId: string, event: ProcessorEvent, now: Date, saved: SavedSetupMethod | null): Promise<void> {
  if ((await getAccountSettings(tx, accountId)).stripeMode === 'PROCESSOR_INTEGRATION' && (await applyProcessorDriven(tx, accountId, event, now))) return;
  switch (event.type) {
    case 'invoice.paid':
    case 'invoice.payment_succeeded':
      return invoicePaid(tx, accountId, event.data.object, now);
    case 'checkout.session.completed':
      if (saved?.purpose === 'SPEND_MANDATE') return completeMandateCheckout(ctx, tx, accountId, saved, event.data.object, now);
      if (saved) return completeSetupCheckout(tx, accountId, saved, now);
      return checkoutCompleted(tx, accountId, event.data.object, now);
    case 'checkout.session.expired':
      return checkoutExpired(tx, accountId, event.data.object, now);
    case 'setup_intent.succeeded':
      return setupSucceeded(tx, accountId, event.data.object, now);
    case 'payment_intent.succeeded':
      return paymentSucceeded(tx, accountId, event.data.object, now);
    case 'customer.created':
      return customerCreated(tx, accountId, event.data.object, now);
    case 'invoice.payment_failed':
      return invoicePaymentFailed(tx, accountId, event.data.object, now);
    default:
      // The rest is acknowledged and ignored.
      return;
  }
}

/**
 * PROCESSOR_INTEGRATION: the processor's subscriptions and invoices drive ours. True when the event
 * was one of these (applied or not ours); false leaves it to the handlers every mode shares.
 */
async function applyProcessorDriven(tx: Tx, accountId: string, event: ProcessorEvent, now: Date): Promise<boolean> {
  switch (event.type) {
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      await linkProcessorSubscription(tx, accountId, event.data.object, now);
      return true;
    case 'invoice.created':
    case 'invoice.finalized':
    case 'invoice.updated':
    case 'invoice.voided':
    case 'invoice.marked_uncollectible':
    case 'invoice.paid':
    case 'invoice.payment_succeeded':
      await applyProcessorInvoice(tx, accountId, event.data.object, now);
      return true;
    case 'invoice.payment_failed':
      // Mirrored first (it may be the invoice's first event to arrive), then payment.failed below.
      await applyProcessorInvoice(tx, accountId, event.data.object, now);
      return false;
    case 'checkout.session.completed': {
      const id = event.data.object.metadata?.[METADATA.checkoutSession] ?? event.data.object.client_reference_id;
      return Boolean(id && isUuid(id) && (await subscriptionCheckoutCompleted(tx, accountId, id, event.data.object, now)));
    }
    case 'checkout.session.expired': {
      const id = event.data.object.metadata?.[METADATA.checkoutSession] ?? event.data.object.client_reference_id;
      if (id && isUuid(id)) await subscriptionCheckoutExpired(tx, accountId, id, now);
      return false;
    }
    default:
      return false;
  }
}

/** The processor's payment of one of its invoices: its payment intent, else the invoice itself (§E5.5). */
const invoicePaymentId = (invoice: ProcessorInvoice) => processorIdOf((invoice as { payment_intent?: unknown }).payment_intent) ?? invoice.id ?? null;

/**
 * Both `invoice.paid` and `invoice.payment_succeeded` arrive for one payment: settling is idempotent,
 * and `payment.succeeded` is recorded only by the settlement that happens (once per payment). Events:
 * payment.succeeded, invoice.paid (and activation), then checkout.completed.
 */
async function invoicePaid(tx: Tx, accountId: string, invoice: ProcessorInvoice, now: Date) {
  const session = await repo.lockCheckoutSessionByProcessorInvoice(tx, accountId, invoice.id!);
  const invoiceId = invoice.metadata?.[METADATA.invoice] ?? session?.invoice_id ?? null;
  if (invoiceId) {
    // A customer key's paid subscribe counts against its budget when its hosted invoice is paid
    // (api-contract-agent-v2.md §2.5): customer, then key, before the locks the settlement takes.
    await settleInvoiceSpend(tx, accountId, invoiceId, now);
    await settleInvoice(tx, accountId, invoiceId, now, (ours) =>
      recordPayment(tx, invoicePayment({
        accountId, customerId: ours.customer_id, invoice: ours, processorPaymentId: invoicePaymentId(invoice),
        purpose: session?.purpose ?? 'INVOICE', checkoutSessionId: session?.id ?? null, now,
      })),
    );
  }
  if (session && session.status === 'PENDING') {
    const completed = await repo.updateCheckoutSession(tx, accountId, session.id, { status: 'COMPLETED', completed_at: now, modified_at: now });
    await recordCheckoutCompleted(tx, completed, now);
  }
}

/**
 * `invoice.payment_failed` (once per processor event): the invoice stays DUE; `payment.failed` is
 * recorded for one of ours: a hosted page's (metadata, session) or, where the processor drives
 * billing, our mirror of it.
 */
async function invoicePaymentFailed(tx: Tx, accountId: string, invoice: ProcessorInvoice, now: Date) {
  const session = invoice.id ? await repo.lockCheckoutSessionByProcessorInvoice(tx, accountId, invoice.id) : undefined;
  const mirrored = invoice.id ? await repo.findMirroredInvoice(tx, accountId, invoice.id) : undefined;
  const ref = invoice.metadata?.[METADATA.invoice] ?? session?.invoice_id ?? mirrored?.invoice_id ?? null;
  const ours = ref && isUuid(ref) ? await findInvoice(tx, accountId, ref) : undefined;
  if (!ours) return;
  const currency = invoice.currency ? invoice.currency.toUpperCase() : ours.currency;
  const purpose = session?.purpose ?? (mirrored && invoice.billing_reason === 'subscription_create' ? 'SUBSCRIPTION' : 'INVOICE');
  await recordPayment(tx, {
    accountId, customerId: ours.customer_id, status: 'FAILED', purpose,
    amount: typeof invoice.amount_due === 'number' ? fromMinorUnitInteger(invoice.amount_due, currency) : ours.amount, currency,
    processorPaymentId: invoicePaymentId(invoice), invoiceId: ours.id, checkoutSessionId: session?.id ?? null, subscriptionId: ours.subscription_id,
    declineReason: (invoice as { last_finalization_error?: { message?: string } | null }).last_finalization_error?.message ?? 'invoice payment failed', now,
  });
}

async function checkoutCompleted(tx: Tx, accountId: string, object: ProcessorCheckoutSession, now: Date) {
  const id = object.metadata?.[METADATA.checkoutSession] ?? object.client_reference_id;
  if (!id || !isUuid(id)) return;
  const session = await repo.lockCheckoutSession(tx, accountId, id);
  if (!session || session.status === 'COMPLETED') return;
  if (session.purpose === 'CREDIT_TOPUP') {
    // A customer key's hosted purchase counts against its budget when paid (api-contract-agent-v2.md
    // §2.5), the key's budget locked before the pools the grant locks.
    const purchaseRef = object.metadata?.[METADATA.creditPurchase];
    if (purchaseRef && isUuid(purchaseRef)) await settleChargeSpend(tx, { accountId, customerId: session.customer_id, id: purchaseRef, now });
    // Under the session's lock, once: payment.succeeded (with the grant it settles), the grant's events, checkout.completed.
    const payment = (grantId: string) => recordPayment(tx, {
      accountId, customerId: session.customer_id, status: 'SUCCEEDED', purpose: 'CREDIT_TOPUP', amount: session.amount ?? '0', currency: session.currency!,
      processorPaymentId: processorIdOf(object.payment_intent) ?? object.id, checkoutSessionId: session.id, grantId, now,
    });
    const { grantId } = await grantPurchasedCredits(
      tx,
      {
        accountId,
        poolId: session.credit_pool_id!,
        amount: dec(session.credits!),
        unitPrice: dec(session.price_per_credit!),
        currency: session.currency!,
        idempotencyKey: `checkout_${session.id}`,
        description: 'Credit purchase (hosted checkout)',
        metadata: { checkoutSessionId: session.id, processorSessionId: object.id },
        onGranted: payment,
      },
      now,
    );
    const completed = await repo.updateCheckoutSession(tx, accountId, session.id, { status: 'COMPLETED', completed_at: now, grant_id: grantId, modified_at: now });
    await recordCheckoutCompleted(tx, completed, now);
    const purchaseId = object.metadata?.[METADATA.creditPurchase];
    const purchase = purchaseId && isUuid(purchaseId) ? await repo.lockPurchase(tx, accountId, purchaseId) : undefined;
    if (purchase && purchase.status !== 'SUCCEEDED') await repo.updatePurchase(tx, accountId, purchase.id, { status: 'SUCCEEDED', grant_id: grantId, modified_at: now });
    return;
  }
  // A mandate page completes with the method it saved (saveSetupCheckoutMethod); without one it waits.
  if (session.processor_invoice_id === null && session.purpose !== 'SPEND_MANDATE') {
    await recordCheckoutCompleted(tx, await repo.updateCheckoutSession(tx, accountId, session.id, { status: 'COMPLETED', completed_at: now, modified_at: now }), now);
  }
}

async function checkoutExpired(tx: Tx, accountId: string, object: ProcessorCheckoutSession, now: Date) {
  const id = object.metadata?.[METADATA.checkoutSession] ?? object.client_reference_id;
  if (!id || !isUuid(id)) return;
  await expireCheckoutSession(tx, accountId, id, now);
}

/** A card saved through a setup intent becomes the customer's default for off-session charges. */
async function setupSucceeded(tx: Tx, accountId: string, intent: ProcessorSetupIntent, now: Date) {
  const processorCustomer = typeof intent.customer === 'string' ? intent.customer : intent.customer?.id;
  const paymentMethod = typeof intent.payment_method === 'string' ? intent.payment_method : intent.payment_method?.id;
  if (!processorCustomer || !paymentMethod) return;
  const link = await repo.findByProcessorCustomerId(tx, accountId, processorCustomer);
  if (!link) return;
  await repo.setDefaultPaymentMethod(tx, accountId, link.customer_id, paymentMethod, now);
  // A different default method lifts the auto top-up retry block of every rule of the customer (money §2.5).
  if (link.default_payment_method_id !== paymentMethod) await clearAutoTopupRetry(tx, accountId, link.customer_id, now);
}

/**
 * Completes an off-session charge whose answer was lost (the request died after the charge): a
 * subscription's first invoice is settled, a credit purchase granted. Hosted checkouts are left to
 * their session's own event.
 */
async function paymentSucceeded(tx: Tx, accountId: string, intent: ProcessorPaymentIntent, now: Date) {
  const invoiceId = intent.metadata?.[METADATA.invoice];
  if (invoiceId && isUuid(invoiceId) && !intent.metadata?.[METADATA.checkoutSession]) {
    await settleInvoiceSpend(tx, accountId, invoiceId, now);
    await settleInvoice(tx, accountId, invoiceId, now, (ours) =>
      recordPayment(tx, invoicePayment({ accountId, customerId: ours.customer_id, invoice: ours, processorPaymentId: intent.id, now })),
    );
    return;
  }
  const attemptId = intent.metadata?.[METADATA.autoTopupAttempt];
  if (attemptId && isUuid(attemptId)) {
    await completeFromWebhook(tx, accountId, attemptId, intent.id, processorIdOf(intent.payment_method), now);
    return;
  }
  const purchaseId = intent.metadata?.[METADATA.creditPurchase];
  if (!purchaseId || !isUuid(purchaseId) || intent.metadata?.[METADATA.checkoutSession]) return;
  const purchase = await repo.lockPurchase(tx, accountId, purchaseId);
  if (!purchase || purchase.status === 'SUCCEEDED') return;
  await settleChargeSpend(tx, { accountId, customerId: purchase.customer_id, id: purchase.id, now });
  const { grantId } = await grantPurchasedCredits(
    tx,
    {
      accountId,
      poolId: purchase.credit_pool_id,
      amount: dec(purchase.credits),
      unitPrice: dec(purchase.price_per_credit),
      currency: purchase.currency,
      idempotencyKey: `pi_${intent.id}`,
      description: 'Credit purchase',
      metadata: { creditPurchaseId: purchase.id, paymentIntentId: intent.id },
      onGranted: (id) => recordPayment(tx, purchasePayment(purchase, intent.id, null, id, now)),
    },
    now,
  );
  await repo.updatePurchase(tx, accountId, purchase.id, { status: 'SUCCEEDED', payment_intent_id: intent.id, grant_id: grantId, modified_at: now });
}

/** A processor customer created with Tally's customer id in its metadata is linked (import). */
async function customerCreated(tx: Tx, accountId: string, customer: ProcessorCustomer, now: Date) {
  const customerId = customer.metadata?.[METADATA.customer];
  if (!customerId || !isUuid(customerId)) return;
  if (!(await findCustomerById(tx, accountId, customerId))) return;
  await repo.linkProcessorCustomer(tx, { account_id: accountId, customer_id: customerId, processor_customer_id: customer.id, default_payment_method_id: null, created_at: now, modified_at: now });
}

/**
 * The key budget's and the mandate's reservations of a paid subscribe's invoice (their id is the
 * invoice's), settled when the invoice is paid; nothing for any other invoice.
 */
async function settleInvoiceSpend(tx: Tx, accountId: string, invoiceId: string, now: Date) {
  const invoice = isUuid(invoiceId) ? await findInvoice(tx, accountId, invoiceId) : undefined;
  if (invoice && invoice.status !== 'PAID') await settleChargeSpend(tx, { accountId, customerId: invoice.customer_id, id: invoice.id, now });
}
