import Stripe from 'stripe';
import type { AppContext } from '../../platform/context.js';
import { withStatement } from '../../platform/db/transaction.js';
import { AppError, invalid } from '../../platform/errors/app-error.js';
import type { Principal } from '../../platform/http/principal.js';
import { resolveCallerCustomer } from '../customers/index.js';
import { processorKey } from './connection.js';
import { METADATA } from './events.js';
import { ensureProcessorCustomer } from './processor-customers.js';
import { processorMessage, stripeClient } from './processor.js';
import * as repo from './repo.js';

/**
 * Payment methods (contract §4.2). The principal confirms the setup intent with the processor
 * directly (card data never reaches Tally); `default` attaches a method and keeps it as the
 * customer's default for off-session charges.
 */

export const NO_PROCESSOR_MESSAGE = 'No payment processor is connected to this account: store a Stripe API key first (POST /api/v1/data/stripe/api)';

async function connectedStripe(ctx: AppContext, accountId: string): Promise<Stripe> {
  const key = await processorKey(ctx, accountId);
  if (!key) throw invalid(NO_PROCESSOR_MESSAGE);
  return stripeClient(ctx.config, key, ctx.metrics);
}

export async function createSetupIntent(ctx: AppContext, principal: Principal, ref: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const stripe = await connectedStripe(ctx, principal.accountId);
  const link = await ensureProcessorCustomer(ctx, stripe, customer);
  try {
    const intent = await stripe.setupIntents.create({
      customer: link.processor_customer_id,
      usage: 'off_session',
      allowed_payment_method_types: ['card'],
      metadata: { [METADATA.account]: principal.accountId, [METADATA.customer]: customer.id },
    });
    return { setup_intent_id: intent.id, client_secret: intent.client_secret!, stripe_customer_id: link.processor_customer_id };
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the setup intent: ${processorMessage(err)}`, { cause: err });
  }
}

export async function setDefaultPaymentMethod(ctx: AppContext, principal: Principal, ref: string, paymentMethodId: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const stripe = await connectedStripe(ctx, principal.accountId);
  const link = await ensureProcessorCustomer(ctx, stripe, customer);
  let attachedId: string;
  try {
    const method = await stripe.paymentMethods.retrieve(paymentMethodId).catch(() => null);
    const attached = method && (typeof method.customer === 'string' ? method.customer : method.customer?.id) === link.processor_customer_id
      ? method
      : await stripe.paymentMethods.attach(paymentMethodId, { customer: link.processor_customer_id });
    attachedId = attached.id;
    await stripe.customers.update(link.processor_customer_id, { invoice_settings: { default_payment_method: attachedId } });
  } catch (err) {
    // The processor refusing the method (unknown, attached elsewhere) is the caller's input: 400.
    if (err instanceof Stripe.errors.StripeInvalidRequestError || err instanceof Stripe.errors.StripeCardError) {
      throw invalid(`Stripe refused the payment method: ${processorMessage(err)}`);
    }
    throw new AppError('vendor_error', `Stripe refused the payment method: ${processorMessage(err)}`, { cause: err });
  }
  await withStatement(ctx.db, (db) => repo.setDefaultPaymentMethod(db, principal.accountId, customer.id, attachedId, ctx.clock.now()));
}
