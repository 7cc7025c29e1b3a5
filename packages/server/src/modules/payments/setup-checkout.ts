import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, invalid, notFound } from '../../platform/errors/app-error.js';
import type { Principal } from '../../platform/http/principal.js';
import { isUuid, newId } from '../../platform/ids.js';
import { getPortalSession } from '../accounts/index.js';
import { clearAutoTopupRetry } from '../credits/index.js';
import { resolveCallerCustomer } from '../customers/index.js';
import { getAccountSettings } from '../settings/index.js';
import { processorKey } from './connection.js';
import { METADATA } from './events.js';
import { recordCheckoutCompleted } from './outbound.js';
import { ensureProcessorCustomer } from './processor/customers.js';
import { processorMessage, stripeProcessor, type Processor, type ProcessorCheckoutSession } from './processor/stripe.js';
import * as repo from './repo.js';
import type { CheckoutSessionRow } from './tables.js';

/**
 * A card saved through the processor's hosted page (api-contract-money.md §3.4): Checkout
 * `mode=setup`, our session purpose PAYMENT_METHOD. Card data never reaches Tally. The completion
 * comes with `checkout.session.completed`: the processor calls (read the setup intent, attach, set
 * the processor customer's default) run before the webhook's transaction, which then records the
 * method as our default and completes the session once.
 */

export const SETUP_NO_PROCESSOR_MESSAGE = 'A payment processor must be connected to add a payment method';

/** The account's processor for saving a card: a key stored and `stripeMode` not NONE, else null. */
export async function setupProcessor(ctx: AppContext, accountId: string): Promise<Processor | null> {
  if ((await getAccountSettings(ctx.db, accountId)).stripeMode === 'NONE') return null;
  const key = await processorKey(ctx, accountId);
  return key ? stripeProcessor(ctx.config, key, ctx.metrics) : null;
}

/**
 * Where the hosted page returns to: the portal link's `returnUrl` when a portal token with one asks,
 * else the account's checkout URLs, else this service's portal page.
 */
async function setupReturnUrls(ctx: AppContext, principal: Principal, customerId: string, baseUrl: string) {
  if (principal.kind === 'customer' && principal.portalSessionId !== undefined) {
    const session = await getPortalSession(ctx.db, { accountId: principal.accountId, customerId, sessionId: principal.portalSessionId, now: ctx.clock.now() });
    if (session.returnUrl) return { successUrl: session.returnUrl, cancelUrl: session.returnUrl };
  }
  const settings = await getAccountSettings(ctx.db, principal.accountId);
  return { successUrl: settings.stripeCheckoutSuccessUrl ?? `${baseUrl}/portal`, cancelUrl: settings.stripeCheckoutCancelUrl ?? `${baseUrl}/portal` };
}

/** Opens a hosted setup checkout for the customer (a new one on every call). */
export async function openSetupCheckout(ctx: AppContext, principal: Principal, ref: string, baseUrl: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const processor = await setupProcessor(ctx, principal.accountId);
  if (!processor) throw invalid(SETUP_NO_PROCESSOR_MESSAGE);
  const urls = await setupReturnUrls(ctx, principal, customer.id, baseUrl);
  const link = await ensureProcessorCustomer(ctx, processor, customer);
  const now = ctx.clock.now();
  // Committed before the processor call, which its id keys: a lost answer's retry finds the same page.
  const row = await withTransaction(ctx.db, (tx) =>
    repo.insertCheckoutSession(tx, {
      id: newId(), account_id: principal.accountId, customer_id: customer.id, purpose: 'PAYMENT_METHOD', status: 'PENDING',
      processor_session_id: null, processor_invoice_id: null, checkout_url: null, plan_id: null, subscription_id: null, invoice_id: null,
      credit_pool_id: null, credits: null, price_per_credit: null, amount: null, currency: null, grant_id: null,
      created_at: now, completed_at: null, modified_at: now,
    }),
  );
  let session: { id: string; url: string | null; expiresAt: Date | null };
  try {
    session = await processor.createSetupCheckout(
      {
        customer: link.processor_customer_id, clientReferenceId: row.id, ...urls,
        metadata: { [METADATA.account]: principal.accountId, [METADATA.customer]: customer.id, [METADATA.checkoutSession]: row.id },
      },
      `tally-setup-checkout-${row.id}`,
    );
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the setup checkout: ${processorMessage(err)}`, { cause: err });
  }
  await withTransaction(ctx.db, (tx) =>
    repo.updateCheckoutSession(tx, principal.accountId, row.id, { processor_session_id: session.id, checkout_url: session.url, expires_at: session.expiresAt, modified_at: ctx.clock.now() }),
  );
  return { checkoutSessionId: row.id, checkoutUrl: session.url! };
}

/** The customer's default payment method with what the processor says of the card (null fields when it does not). */
export async function getDefaultPaymentMethod(ctx: AppContext, principal: Principal, ref: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const link = await repo.findProcessorCustomer(ctx.db, principal.accountId, customer.id);
  const paymentMethodId = link?.default_payment_method_id;
  if (!paymentMethodId) throw notFound(`No default payment method for customer ${customer.customer_reference_id}`);
  const processor = await setupProcessor(ctx, principal.accountId);
  const card = processor ? await processor.describePaymentMethod(paymentMethodId).catch(() => null) : null;
  return { paymentMethodId, brand: card?.brand ?? null, last4: card?.last4 ?? null, expMonth: card?.expMonth ?? null, expYear: card?.expYear ?? null };
}

/** The payment method a completed setup checkout saved, made the processor customer's default (outside any transaction). */
export type SavedSetupMethod = { sessionId: string; purpose: 'PAYMENT_METHOD' | 'SPEND_MANDATE'; paymentMethodId: string };

/**
 * Before the webhook's transaction, for `checkout.session.completed` of one of our setup sessions
 * (a card page, PAYMENT_METHOD, or a mandate page, SPEND_MANDATE) not yet completed: reads the
 * session's setup intent, attaches its payment method to the processor customer (when the intent
 * has not) and makes it the processor customer's default (`invoice_settings.default_payment_method`).
 * Each call is safe to repeat. null for any other event, and for a session already completed (a
 * replay calls nothing). A session our checkout-expiry job marked EXPIRED still completes: the
 * principal finished the page at the processor.
 */
export async function saveSetupCheckoutMethod(ctx: AppContext, accountId: string, object: ProcessorCheckoutSession): Promise<SavedSetupMethod | null> {
  if (object.mode !== 'setup') return null;
  const id = object.metadata?.[METADATA.checkoutSession] ?? object.client_reference_id;
  if (!id || !isUuid(id)) return null;
  const session = await repo.findCheckoutSession(ctx.db, accountId, id);
  if (!session || (session.purpose !== 'PAYMENT_METHOD' && session.purpose !== 'SPEND_MANDATE') || session.status === 'COMPLETED') return null;
  const intentId = typeof object.setup_intent === 'string' ? object.setup_intent : object.setup_intent?.id;
  const link = await repo.findProcessorCustomer(ctx.db, accountId, session.customer_id);
  const processor = await setupProcessor(ctx, accountId);
  if (!intentId || !link || !processor) return null;
  try {
    const intent = await processor.retrieveSetupIntent(intentId);
    if (!intent.paymentMethod) return null;
    if (intent.customer !== link.processor_customer_id) await processor.attachPaymentMethod(intent.paymentMethod, link.processor_customer_id);
    await processor.setDefaultPaymentMethod(link.processor_customer_id, intent.paymentMethod);
    return { sessionId: session.id, purpose: session.purpose, paymentMethodId: intent.paymentMethod };
  } catch (err) {
    // The processor retries the event: nothing was recorded, the calls above repeat safely.
    throw new AppError('vendor_error', `Stripe refused to save the payment method: ${processorMessage(err)}`, { cause: err });
  }
}

/**
 * In the webhook's transaction, for a card page (PAYMENT_METHOD): under the session's lock, once,
 * the saved method becomes our default (`storeSetupMethod`). A mandate page completes through
 * `completeMandateCheckout` (mandate/pages.ts), which does the same and activates the mandate.
 */
export async function completeSetupCheckout(tx: Tx, accountId: string, saved: SavedSetupMethod, now: Date): Promise<void> {
  const session = await repo.lockCheckoutSession(tx, accountId, saved.sessionId);
  if (!session || session.status === 'COMPLETED') return;
  await storeSetupMethod(tx, session, saved.paymentMethodId, now);
}

/**
 * A completed setup page on its locked session row: the saved method becomes our default for the
 * customer and the session COMPLETED with it (`checkout.completed` recorded). The default changed,
 * so auto top-up's retry blocks of the customer are lifted (money §2.5).
 */
export async function storeSetupMethod(tx: Tx, session: CheckoutSessionRow, paymentMethodId: string, now: Date): Promise<void> {
  const accountId = session.account_id;
  await repo.setDefaultPaymentMethod(tx, accountId, session.customer_id, paymentMethodId, now);
  // A new card from the hosted page (its setup_intent.succeeded may have stored it a moment before).
  await clearAutoTopupRetry(tx, accountId, session.customer_id, now);
  const completed = await repo.updateCheckoutSession(tx, accountId, session.id, {
    status: 'COMPLETED', completed_at: now, payment_method_id: paymentMethodId, modified_at: now,
  });
  await recordCheckoutCompleted(tx, completed, now);
}
