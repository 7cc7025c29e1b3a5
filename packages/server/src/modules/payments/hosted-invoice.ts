import type { AppContext } from '../../platform/context.js';
import { AppError, invalid, notFound } from '../../platform/errors/app-error.js';
import type { Principal } from '../../platform/http/principal.js';
import { dec } from '../../platform/money.js';
import { findFirstDueInvoice, findSubscription } from '../billing/index.js';
import { getCustomerById } from '../customers/index.js';
import { getAccountSettings } from '../settings/index.js';
import { openInvoiceCheckout } from './checkout.js';
import { processorKey } from './connection.js';
import { NO_PROCESSOR_MESSAGE } from './payment-methods.js';
import { ensureProcessorCustomer } from './processor/customers.js';
import { stripeProcessor } from './processor/stripe.js';

/**
 * `POST /billing/subscriptions/{id}/stripe/checkout` (contract §4.8): the hosted page for the
 * subscription's first DUE invoice. Its `invoice.paid` webhook settles the invoice as mark-paid does.
 */
export async function hostedInvoicePage(ctx: AppContext, principal: Principal, subscriptionId: string): Promise<{ url: string }> {
  const { accountId } = principal;
  const subscription = await findSubscription(ctx.db, accountId, subscriptionId);
  // A portal token (ADR 0025) opens only its own customer's invoices, whatever the account's mode.
  if (subscription && principal.kind === 'customer' && subscription.customer_id !== principal.customerId) {
    throw new AppError('forbidden', 'This API key is scoped to another customer');
  }
  const settings = await getAccountSettings(ctx.db, accountId);
  if (settings.stripeMode === 'NONE') throw invalid('Stripe is not enabled at the account');
  if (!subscription) throw notFound(`Subscription not found: ${subscriptionId}`);
  const invoice = await findFirstDueInvoice(ctx.db, accountId, subscriptionId);
  if (!invoice) throw notFound('No DUE invoice found for this subscription');
  const key = await processorKey(ctx, accountId);
  if (!key) throw invalid(NO_PROCESSOR_MESSAGE);
  const processor = stripeProcessor(ctx.config, key, ctx.metrics);
  const customer = await getCustomerById(ctx.db, accountId, subscription.customer_id);
  const link = await ensureProcessorCustomer(ctx, processor, customer);
  const session = await openInvoiceCheckout(ctx, processor, {
    accountId, customer, processorCustomerId: link.processor_customer_id, purpose: 'INVOICE',
    invoice: { id: invoice.id, amount: dec(invoice.amount), currency: invoice.currency, description: `Invoice ${invoice.id}` },
    subscriptionId, planId: subscription.plan_id,
  });
  return { url: session.checkoutUrl };
}
