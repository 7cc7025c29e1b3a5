import type { AppContext } from '../../platform/context.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError } from '../../platform/errors/app-error.js';
import type { Principal } from '../../platform/http/principal.js';
import { dec } from '../../platform/money.js';
import { settleInvoice, type InitialPayment, type InitialPaymentOutcome, type Invoice, type SubscribePayment } from '../billing/index.js';
import { openHostedKeySpend, releaseChargeSpend, settleChargeSpend } from '../customers/index.js';
import { getAccountSettings } from '../settings/index.js';
import { openInvoiceCheckout } from './checkout.js';
import { processorKey } from './connection.js';
import { requireWithinSpendCap, toMinorUnitInteger } from './domain.js';
import { METADATA } from './events.js';
import { ensureProcessorCustomer } from './processor/customers.js';
import { isCardError, processorMessage, stripeProcessor } from './processor/stripe.js';
import { chargeDeclineReason, processorIdOf, recordPayment, type PaymentFacts } from './outbound.js';
import * as repo from './repo.js';

/**
 * A paid subscribe's first invoice by processor mode and caller (contract §4.5), in
 * PAYMENT_PASS_THROUGH: charged off-session with a supplied or saved method (then settled as
 * mark-paid settles it), else a hosted invoice page for a customer key (402), else left DUE for the
 * tenant. A declined charge falls back to the hosted page. The agent spend cap is checked, and a
 * customer key's off-session charge reserved against its key budget and the customer's spend
 * mandate (billing, under the invoice's id: api-contract-agent-v2.md §2.5, §4.6), inside billing's
 * subscribe transaction before anything is written, so a refusal leaves nothing; its hosted page
 * counts against the key when paid. (In PROCESSOR_INTEGRATION the processor drives the
 * subscription: processor/subscribe.ts, which reserves a customer key's off-session subscribe the
 * same way under our subscription's id.)
 */

/** Will this subscribe move money now (so the spend cap applies)? */
export async function movesMoney(db: Executor, principal: Principal, payment: SubscribePayment): Promise<boolean> {
  if (payment.paymentMethodId || principal.kind === 'customer') return true;
  const link = await repo.findProcessorCustomer(db, principal.accountId, payment.customer.id);
  return Boolean(link?.default_payment_method_id);
}

/**
 * In the subscribe transaction, before anything is written, no network: the spend cap when money
 * may move; null while no processor collects (another mode, no key stored or configured); else
 * whether the first invoice is charged off-session (a supplied or saved method).
 */
export async function checkSubscribePayment(ctx: AppContext, tx: Tx, principal: Principal, payment: SubscribePayment): Promise<{ offSession: boolean } | null> {
  const settings = await getAccountSettings(tx, principal.accountId);
  if (settings.stripeMode !== 'PAYMENT_PASS_THROUGH') return null;
  if (await movesMoney(tx, principal, payment)) requireWithinSpendCap(dec(payment.plan.price_amount ?? '0'), payment.plan.currency, settings.agentMaxTopupAmount);
  if (!(await repo.findConnection(tx, principal.accountId))?.api_key_sealed && !ctx.config.stripe.fallbackApiKey) return null;
  const offSession = payment.paymentMethodId !== undefined || Boolean((await repo.findProcessorCustomer(tx, principal.accountId, payment.customer.id))?.default_payment_method_id);
  return { offSession };
}

/**
 * After the subscribe transaction committed (the spend cap checked, a customer key's off-session
 * charge reserved under the invoice's id): the off-session charge when the check said so, else the
 * hosted page for a customer key.
 */
export async function collectInitialPayment(ctx: AppContext, principal: Principal, input: InitialPayment): Promise<InitialPaymentOutcome> {
  const accountId = principal.accountId;
  const settings = await getAccountSettings(ctx.db, accountId);
  if (settings.stripeMode !== 'PAYMENT_PASS_THROUGH') return { kind: 'none' };
  const key = await processorKey(ctx, accountId);
  if (!key) return { kind: 'none' };
  const amount = dec(input.invoice.amount);
  const currency = input.invoice.currency;
  const processor = stripeProcessor(ctx.config, key, ctx.metrics);
  const keyId = principal.kind === 'customer' && principal.portalSessionId === undefined ? principal.keyId : null;
  const spend = { accountId, customerId: input.customer.id, id: input.invoice.id };
  let link;
  try {
    link = await ensureProcessorCustomer(ctx, processor, input.customer);
  } catch (err) {
    // Nothing was charged: what the subscribe reserved goes back now rather than at the sweep.
    if (keyId !== null) await withTransaction(ctx.db, (tx) => releaseChargeSpend(tx, { ...spend, now: ctx.clock.now() }));
    throw err;
  }
  // Only what was checked (and, for a customer key, reserved) as off-session is charged so.
  const paymentMethod = input.offSession ? input.paymentMethodId ?? link.default_payment_method_id : null;
  let declineReason: string | undefined;
  let declinedPaymentId: string | null = null;
  let paymentDecline = '';
  if (paymentMethod) {
    try {
      const intent = await processor.chargeOffSession(
        {
          amountMinor: toMinorUnitInteger(amount, currency), currency: currency.toLowerCase(), customer: link.processor_customer_id,
          paymentMethod, description: `Subscription ${input.subscription.id}: first invoice`,
          metadata: { [METADATA.account]: accountId, [METADATA.invoice]: input.invoice.id, [METADATA.subscription]: input.subscription.id },
        },
        // Keyed by our invoice: a retried subscribe (same DUE invoice) never charges twice.
        `tally-invoice-charge-${input.invoice.id}`,
      );
      if (intent.status === 'succeeded') {
        const now = ctx.clock.now();
        // payment.succeeded only if this call settles it (the webhook of a lost answer may have).
        await withTransaction(ctx.db, async (tx) => {
          // Customer, then the key's budget, before the locks the settlement takes.
          await settleChargeSpend(tx, { ...spend, now });
          await settleInvoice(tx, accountId, input.invoice.id, now, () =>
            recordPayment(tx, invoicePayment({ accountId, customerId: input.customer.id, invoice: input.invoice, processorPaymentId: intent.id, now })),
          );
        });
        return { kind: 'paid' };
      }
      declineReason = 'off-session charge declined';
      declinedPaymentId = intent.id;
      paymentDecline = chargeDeclineReason(`payment ${intent.status}`);
    } catch (err) {
      if (!isCardError(err)) throw new AppError('vendor_error', `Stripe did not complete the charge: ${processorMessage(err)}`, { cause: err });
      declineReason = 'off-session charge declined';
      declinedPaymentId = processorIdOf((err as { payment_intent?: unknown }).payment_intent);
      paymentDecline = chargeDeclineReason(err.code);
    }
  } else if (principal.kind !== 'customer') {
    return { kind: 'none' };
  }
  if (keyId !== null) {
    // Not charged off-session (declined, or no method): the reservation goes; the hosted page counts
    // against the key when it is paid (never against the mandate).
    await withTransaction(ctx.db, async (tx) => {
      const now = ctx.clock.now();
      await releaseChargeSpend(tx, { ...spend, now });
      await openHostedKeySpend(tx, { accountId, keyId, id: spend.id, amount, now });
    });
  }
  const session = await openInvoiceCheckout(ctx, processor, {
    accountId, customer: input.customer, processorCustomerId: link.processor_customer_id, purpose: 'SUBSCRIPTION',
    invoice: { id: input.invoice.id, amount, currency, description: `${input.plan.name ?? input.plan.key}: first period` },
    subscriptionId: input.subscription.id, planId: input.plan.id,
    declined: declineReason ? { declineReason: paymentDecline, processorPaymentId: declinedPaymentId } : undefined,
  });
  return { kind: 'checkout', checkoutUrl: session.checkoutUrl, checkoutSessionId: session.id, ...(declineReason ? { declineReason } : {}) };
}

/** The Payment facts of a processor payment that settles one of our invoices (its subscription's first invoice, a hosted invoice page). */
export function invoicePayment(input: {
  accountId: string;
  customerId: string;
  invoice: Invoice;
  processorPaymentId: string | null;
  purpose?: PaymentFacts['purpose'];
  checkoutSessionId?: string | null;
  now: Date;
}): PaymentFacts {
  return {
    accountId: input.accountId, customerId: input.customerId, status: 'SUCCEEDED', purpose: input.purpose ?? 'SUBSCRIPTION',
    amount: input.invoice.amount, currency: input.invoice.currency, processorPaymentId: input.processorPaymentId,
    invoiceId: input.invoice.id, subscriptionId: input.invoice.subscription_id, checkoutSessionId: input.checkoutSessionId ?? null, now: input.now,
  };
}
