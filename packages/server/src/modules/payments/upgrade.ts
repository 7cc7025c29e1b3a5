import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, conflict } from '../../platform/errors/app-error.js';
import type { Principal } from '../../platform/http/principal.js';
import { dec } from '../../platform/money.js';
import { findInvoice, settleInvoice, type UpgradePayment, type UpgradePaymentCheck, type UpgradePaymentOutcome } from '../billing/index.js';
import { getAccountSettings } from '../settings/index.js';
import { openInvoiceCheckout, type DeclinedCharge } from './checkout.js';
import { connectedProcessor } from './connection.js';
import { requireWithinSpendCap, toMinorUnitInteger } from './domain.js';
import { METADATA } from './events.js';
import { upgradeAtProcessor } from './processor/changes.js';
import { ensureProcessorCustomer } from './processor/customers.js';
import { isCardError, isInvalidRequestError, processorMessage } from './processor/stripe.js';
import { chargeDeclineReason, processorIdOf, recordPayment } from './outbound.js';
import * as repo from './repo.js';
import { invoicePayment } from './subscribe.js';

/**
 * Paid upgrades, the money side (api-contract-agent-v2.md §4.8), provided to billing's slots: billing
 * decides that an upgrade waits for its payment and counts it against key budgets and mandates;
 * here the spend cap, whether the charge is off-session, the charge itself and the hosted page.
 * Billed by us (PAYMENT_PASS_THROUGH, or a subscription we bill in PROCESSOR_INTEGRATION): our DUE
 * ADJUSTMENT invoice is charged off-session (key `tally-plan-change-<invoiceId>`, the reservation's
 * id) and settled as mark-paid settles it, or gets a hosted invoice page whose `invoice.paid` settles
 * it (webhook.ts); either settlement completes the change (billing `settleInvoice`). Where the
 * processor drives the subscription it raises and collects the proration itself (processor/changes.ts).
 */

/**
 * In the plan-change transaction, no network: null while no processor collects (mode NONE, no key
 * stored or configured). Otherwise the agent spend cap when money may move (a customer key always,
 * the tenant when charged off-session), and whether it is off-session: a supplied or saved method,
 * or the processor's own subscription method.
 */
export async function checkUpgradePayment(ctx: AppContext, tx: Tx, principal: Principal, check: UpgradePaymentCheck): Promise<{ offSession: boolean } | null> {
  const settings = await getAccountSettings(tx, principal.accountId);
  if (settings.stripeMode === 'NONE') return null;
  if (!(await repo.findConnection(tx, principal.accountId))?.api_key_sealed && !ctx.config.stripe.fallbackApiKey) return null;
  const offSession = check.processorDriven || check.paymentMethodId !== undefined || Boolean((await repo.findProcessorCustomer(tx, principal.accountId, check.customer.id))?.default_payment_method_id);
  if (offSession || principal.kind === 'customer') requireWithinSpendCap(check.amount, check.currency, settings.agentMaxTopupAmount);
  return { offSession };
}

/** After the plan-change transaction: the charge, or the hosted page (billing answers 200, 402 or 202 from it). */
export async function collectUpgradePayment(ctx: AppContext, principal: Principal, payment: UpgradePayment): Promise<UpgradePaymentOutcome> {
  const accountId = principal.accountId;
  if (payment.processorDriven) return upgradeAtProcessor(ctx, accountId, payment);
  const processor = await connectedProcessor(ctx, accountId);
  if (!processor) throw new AppError('vendor_error', 'Stripe is not connected for this account');
  const invoice = await findInvoice(ctx.db, accountId, payment.invoiceId!);
  if (!invoice) throw new AppError('not_found', `Invoice not found: ${payment.invoiceId}`);
  if (invoice.status === 'PAID') return { kind: 'paid' };
  const amount = dec(invoice.amount);
  const description = `Upgrade to ${payment.toPlan.name ?? payment.toPlan.key}: prorated difference`;
  const link = await ensureProcessorCustomer(ctx, processor, payment.customer);
  const paymentMethod = payment.offSession && !payment.retry ? payment.paymentMethodId ?? link.default_payment_method_id : null;
  let declined: DeclinedCharge | undefined;
  if (paymentMethod) {
    try {
      const intent = await processor.chargeOffSession(
        {
          amountMinor: toMinorUnitInteger(amount, invoice.currency), currency: invoice.currency.toLowerCase(), customer: link.processor_customer_id,
          paymentMethod, description,
          metadata: { [METADATA.account]: accountId, [METADATA.invoice]: invoice.id, [METADATA.subscription]: payment.subscriptionId },
        },
        // Keyed by the reservation (our invoice): a retried request never charges twice.
        `tally-plan-change-${payment.reservationId}`,
      );
      if (intent.status === 'succeeded') {
        const now = ctx.clock.now();
        // payment.succeeded only if this call settles it (the webhook of a lost answer may have); settling completes the change.
        await withTransaction(ctx.db, (tx) =>
          settleInvoice(tx, accountId, invoice.id, now, (ours) =>
            recordPayment(tx, invoicePayment({ accountId, customerId: ours.customer_id, invoice: ours, processorPaymentId: intent.id, purpose: 'INVOICE', now })),
          ),
        );
        return { kind: 'paid' };
      }
      declined = { declineReason: chargeDeclineReason(`payment ${intent.status}`), processorPaymentId: intent.id };
    } catch (err) {
      // Unknown outcome (processor down, timeout): the change waits with its reservation; payment_intent.succeeded settles it.
      if (!isCardError(err)) throw new AppError('vendor_error', `Stripe did not complete the charge: ${processorMessage(err)}`, { cause: err });
      declined = { declineReason: chargeDeclineReason(err.code), processorPaymentId: processorIdOf((err as { payment_intent?: unknown }).payment_intent) };
    }
  }
  const session = await openInvoiceCheckout(ctx, processor, {
    accountId, customer: payment.customer, processorCustomerId: link.processor_customer_id, purpose: 'INVOICE',
    invoice: { id: invoice.id, amount, currency: invoice.currency, description },
    subscriptionId: payment.subscriptionId, planId: payment.toPlan.id, declined,
  });
  return { kind: 'hosted', paymentUrl: session.checkoutUrl, invoiceId: invoice.id, ...(declined ? { declineReason: 'off-session charge declined' } : {}) };
}

/**
 * Voids a waiting upgrade's hosted invoice page at the processor (before billing voids ours), so it
 * can no longer be paid; one paid meanwhile is 409 (its `invoice.paid` completes the change).
 */
export async function voidUpgradePayment(ctx: AppContext, accountId: string, invoiceId: string): Promise<void> {
  const session = await repo.findPendingSessionForInvoice(ctx.db, accountId, invoiceId);
  if (!session?.processor_invoice_id) return;
  const processor = await connectedProcessor(ctx, accountId);
  if (!processor) throw new AppError('vendor_error', 'Stripe is not connected for this account');
  try {
    await processor.voidInvoice(session.processor_invoice_id);
  } catch (err) {
    const current = isInvalidRequestError(err) ? await processor.retrieveInvoice(session.processor_invoice_id).catch(() => undefined) : undefined;
    if (current?.status === 'paid') throw conflict("The upgrade's invoice is already paid; the upgrade applies with its payment");
    if (current?.status !== 'void') throw new AppError('vendor_error', `Stripe did not void the upgrade's invoice: ${processorMessage(err)}`, { cause: err });
  }
  await withTransaction(ctx.db, (tx) => repo.updateCheckoutSession(tx, accountId, session.id, { status: 'EXPIRED', modified_at: ctx.clock.now() }));
}
