import type { AppContext } from '../../platform/context.js';
import type { CheckoutPurpose } from './tables.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, notFound } from '../../platform/errors/app-error.js';
import { toPage } from '../../platform/http/pagination.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { dec, type Decimal } from '../../platform/money.js';
import type { Customer } from '../customers/index.js';
import { toMinorUnitInteger } from './domain.js';
import { METADATA } from './events.js';
import { processorMessage, type Processor } from './processor/stripe.js';
import { recordPayment, toCheckoutSessionView } from './outbound.js';
import * as repo from './repo.js';
import type { CheckoutSessionListInput } from './schema.js';

/**
 * Hosted payment pages (contract §4.6): a processor Checkout Session (credit top-ups) or a hosted
 * invoice page (a subscription's DUE invoice, pass-through mode). Our row is committed PENDING
 * before the processor object is created, and every processor call is keyed by that row's id, so a
 * retry after a lost answer finds the same processor objects. The webhook completes the row.
 */

export type ReturnUrls = { successUrl: string; cancelUrl: string };

/** The declined off-session charge a fallback checkout replaces: `payment.failed` is recorded with the session. */
export type DeclinedCharge = { declineReason: string; processorPaymentId: string | null };

export type TopupCheckoutInput = {
  accountId: string;
  customer: Customer;
  processorCustomerId: string;
  purpose: 'CREDIT_TOPUP';
  urls: ReturnUrls;
  amount: Decimal;
  currency: string;
  description: string;
  creditPoolId: string;
  credits: Decimal;
  pricePerCredit: Decimal;
  creditPurchaseId: string;
  declined?: DeclinedCharge | undefined;
};

export async function openHostedCheckout(ctx: AppContext, processor: Processor, input: TopupCheckoutInput): Promise<{ id: string; checkoutUrl: string }> {
  const row = await insertSession(ctx, {
    accountId: input.accountId, customerId: input.customer.id, purpose: input.purpose, amount: input.amount, currency: input.currency,
    creditPoolId: input.creditPoolId, credits: input.credits, pricePerCredit: input.pricePerCredit, declined: input.declined,
  });
  const metadata = { [METADATA.account]: input.accountId, [METADATA.checkoutSession]: row.id, [METADATA.creditPurchase]: input.creditPurchaseId };
  let session: { id: string; url: string | null; expiresAt: Date | null };
  try {
    session = await processor.createPaymentCheckout(
      {
        customer: input.processorCustomerId,
        clientReferenceId: row.id,
        successUrl: input.urls.successUrl,
        cancelUrl: input.urls.cancelUrl,
        amountMinor: toMinorUnitInteger(input.amount, input.currency),
        currency: input.currency.toLowerCase(),
        productName: input.description,
        metadata,
      },
      `tally-checkout-${row.id}`,
    );
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the checkout session: ${processorMessage(err)}`, { cause: err });
  }
  await withTransaction(ctx.db, (tx) =>
    repo.updateCheckoutSession(tx, input.accountId, row.id, { processor_session_id: session.id, checkout_url: session.url, expires_at: session.expiresAt, modified_at: ctx.clock.now() }),
  );
  return { id: row.id, checkoutUrl: session.url! };
}

export type InvoiceCheckoutInput = {
  accountId: string;
  customer: Customer;
  processorCustomerId: string;
  purpose: 'SUBSCRIPTION' | 'INVOICE';
  invoice: { id: string; amount: Decimal; currency: string; description: string };
  subscriptionId: string;
  planId: string | null;
  declined?: DeclinedCharge | undefined;
};

/**
 * The hosted invoice page for one of our DUE invoices. A PENDING session already open for the
 * invoice is returned as it is (a retried subscribe or checkout call gets the same page).
 */
export async function openInvoiceCheckout(ctx: AppContext, processor: Processor, input: InvoiceCheckoutInput): Promise<{ id: string; checkoutUrl: string }> {
  const open = await repo.findPendingSessionForInvoice(ctx.db, input.accountId, input.invoice.id);
  if (open) return { id: open.id, checkoutUrl: open.checkout_url! };
  const row = await insertSession(ctx, {
    accountId: input.accountId, customerId: input.customer.id, purpose: input.purpose, amount: input.invoice.amount, currency: input.invoice.currency,
    invoiceId: input.invoice.id, subscriptionId: input.subscriptionId, planId: input.planId, declined: input.declined,
  });
  const metadata = { [METADATA.account]: input.accountId, [METADATA.checkoutSession]: row.id, [METADATA.invoice]: input.invoice.id, [METADATA.subscription]: input.subscriptionId };
  let hosted: { id: string; url: string | null };
  try {
    hosted = await processor.createHostedInvoice(
      {
        customer: input.processorCustomerId, currency: input.invoice.currency.toLowerCase(), amountMinor: toMinorUnitInteger(input.invoice.amount, input.invoice.currency),
        description: input.invoice.description, daysUntilDue: 7, metadata,
      },
      { invoice: `tally-invoice-${row.id}`, item: `tally-invoice-item-${row.id}`, finalize: `tally-invoice-finalize-${row.id}` },
    );
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the hosted invoice: ${processorMessage(err)}`, { cause: err });
  }
  await withTransaction(ctx.db, (tx) =>
    repo.updateCheckoutSession(tx, input.accountId, row.id, { processor_invoice_id: hosted.id, checkout_url: hosted.url, modified_at: ctx.clock.now() }),
  );
  return { id: row.id, checkoutUrl: hosted.url! };
}

type NewSession = {
  accountId: string;
  customerId: string;
  purpose: CheckoutPurpose;
  amount: Decimal;
  currency: string;
  creditPoolId?: string;
  credits?: Decimal;
  pricePerCredit?: Decimal;
  invoiceId?: string;
  subscriptionId?: string;
  planId?: string | null;
  declined?: DeclinedCharge | undefined;
};

/** The PENDING session row, committed before the processor call; with `payment.failed` when it replaces a declined charge. */
function insertSession(ctx: AppContext, input: NewSession) {
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const row = await repo.insertCheckoutSession(tx, {
      id: newId(), account_id: input.accountId, customer_id: input.customerId, purpose: input.purpose, status: 'PENDING',
      processor_session_id: null, processor_invoice_id: null, checkout_url: null, plan_id: input.planId ?? null,
      subscription_id: input.subscriptionId ?? null, invoice_id: input.invoiceId ?? null, credit_pool_id: input.creditPoolId ?? null,
      credits: input.credits?.toFixed() ?? null, price_per_credit: input.pricePerCredit?.toFixed() ?? null, amount: input.amount.toFixed(),
      currency: input.currency, grant_id: null, created_at: now, completed_at: null, modified_at: now,
    });
    if (input.declined) {
      await recordPayment(tx, {
        accountId: input.accountId, customerId: input.customerId, status: 'FAILED', purpose: input.purpose, amount: input.amount, currency: input.currency,
        processorPaymentId: input.declined.processorPaymentId, invoiceId: input.invoiceId ?? null, checkoutSessionId: row.id,
        subscriptionId: input.subscriptionId ?? null, declineReason: input.declined.declineReason, now,
      });
    }
    return row;
  });
}

/** A checkout session as the Client API shows it; a customer key sees only its own customer's. */
export async function getCheckoutSession(ctx: AppContext, principal: Principal, id: string) {
  const row = await repo.findCheckoutSession(ctx.db, principal.accountId, id);
  if (!row) throw notFound(`Checkout session not found: ${id}`);
  if (principal.kind === 'customer' && row.customer_id !== principal.customerId) {
    throw new AppError('forbidden', 'This API key is scoped to another customer');
  }
  return toCheckoutSessionView(row);
}

/** The console's list of checkout sessions (Admin API): newest first, filtered, paged. */
export async function listCheckoutSessionPage(ctx: AppContext, accountId: string, query: CheckoutSessionListInput) {
  const { rows, total } = await repo.listCheckoutSessions(ctx.db, { accountId, ...query });
  const items = rows.map((row) => ({
    id: row.id,
    customerReferenceId: row.customer_reference_id,
    purpose: row.purpose,
    status: row.status,
    amount: row.amount === null ? null : dec(row.amount),
    currency: row.currency,
    credits: row.credits === null ? null : dec(row.credits),
    checkoutUrl: row.checkout_url,
    processorSessionId: row.processor_session_id,
    processorInvoiceId: row.processor_invoice_id,
    planId: row.plan_id,
    subscriptionId: row.subscription_id,
    invoiceId: row.invoice_id,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  }));
  return toPage(items, total, query);
}
