import type { AppContext } from '../../platform/context.js';
import { withStatement, withTransaction } from '../../platform/db/transaction.js';
import { clearAutoTopupRetry } from '../credits/index.js';
import { AppError, invalid } from '../../platform/errors/app-error.js';
import type { Principal } from '../../platform/http/principal.js';
import { resolveCallerCustomer } from '../customers/index.js';
import { connectedProcessor } from './connection.js';
import { METADATA } from './events.js';
import { ensureProcessorCustomer } from './processor/customers.js';
import { isCardError, isInvalidRequestError, processorMessage, type Processor } from './processor/stripe.js';
import * as repo from './repo.js';

/**
 * Payment methods (contract §4.2). The principal confirms the setup intent with the processor
 * directly (card data never reaches Tally); `default` attaches a method and keeps it as the
 * customer's default for off-session charges.
 */

export const NO_PROCESSOR_MESSAGE = 'No payment processor is connected to this account: store a Stripe API key first (POST /api/v1/data/stripe/api)';

async function requireProcessor(ctx: AppContext, accountId: string): Promise<Processor> {
  const processor = await connectedProcessor(ctx, accountId);
  if (!processor) throw invalid(NO_PROCESSOR_MESSAGE);
  return processor;
}

export async function createSetupIntent(ctx: AppContext, principal: Principal, ref: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const processor = await requireProcessor(ctx, principal.accountId);
  const link = await ensureProcessorCustomer(ctx, processor, customer);
  try {
    const intent = await processor.createSetupIntent({
      customer: link.processor_customer_id,
      metadata: { [METADATA.account]: principal.accountId, [METADATA.customer]: customer.id },
    });
    return { setup_intent_id: intent.id, client_secret: intent.clientSecret, stripe_customer_id: link.processor_customer_id };
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the setup intent: ${processorMessage(err)}`, { cause: err });
  }
}

export async function setDefaultPaymentMethod(ctx: AppContext, principal: Principal, ref: string, paymentMethodId: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const processor = await requireProcessor(ctx, principal.accountId);
  const link = await ensureProcessorCustomer(ctx, processor, customer);
  let attachedId: string;
  try {
    const method = await processor.findPaymentMethodCustomer(paymentMethodId);
    const attached = method && method.customer === link.processor_customer_id
      ? method
      : await processor.attachPaymentMethod(paymentMethodId, link.processor_customer_id);
    attachedId = attached.id;
    await processor.setDefaultPaymentMethod(link.processor_customer_id, attachedId);
  } catch (err) {
    // The processor refusing the method (unknown, attached elsewhere) is the caller's input: 400.
    if (isInvalidRequestError(err) || isCardError(err)) {
      throw invalid(`Stripe refused the payment method: ${processorMessage(err)}`);
    }
    throw new AppError('vendor_error', `Stripe refused the payment method: ${processorMessage(err)}`, { cause: err });
  }
  const now = ctx.clock.now();
  if (link.default_payment_method_id === attachedId) {
    await withStatement(ctx.db, (db) => repo.setDefaultPaymentMethod(db, principal.accountId, customer.id, attachedId, now));
    return;
  }
  // A different default method lifts the auto top-up retry block of every rule of the customer (money §2.5).
  await withTransaction(ctx.db, async (tx) => {
    await repo.setDefaultPaymentMethod(tx, principal.accountId, customer.id, attachedId, now);
    await clearAutoTopupRetry(tx, principal.accountId, customer.id, now);
  });
}
