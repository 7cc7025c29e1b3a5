import type { AppContext } from '../../../platform/context.js';
import type { Executor, Tx } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { newId } from '../../../platform/ids.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { activateMandate, claimCustomer, fillMissingEmail, getCustomerById, type MandatePeriod } from '../../customers/index.js';
import { getAccountSettings } from '../../settings/index.js';
import { METADATA } from '../events.js';
import { ensureProcessorCustomer, pushCustomerEmailAfterCommit } from '../processor/customers.js';
import type { ProcessorCheckoutSession } from '../processor/stripe.js';
import * as repo from '../repo.js';
import { defaultReturnUrls } from '../return-pages.js';
import { setupProcessor, storeSetupMethod, type SavedSetupMethod } from '../setup-checkout.js';

/**
 * Spend mandate pages (api-contract-agent-v2.md §4.6): the processor's setup page (Stripe Checkout
 * `mode=setup`) where the principal saves a card and approves `max_amount` per period. Ours is a
 * checkout session of purpose SPEND_MANDATE (its amount and currency are the mandate asked for)
 * with a `spend_mandate_pages` row (period, the key that asked), both committed before the
 * processor call, which the session's id keys. `checkout.session.completed` activates the mandate.
 */

export type MandatePageRequest = {
  accountId: string;
  customerId: string;
  /** The customer key that asked; null for the tenant key. */
  keyId: string | null;
  amount: Decimal;
  currency: string;
  period: MandatePeriod;
  /** The public base the service's own return pages are on (operator URLs win). */
  baseUrl: string;
};

export type MandatePageAnswer = { status: 'pending'; setupUrl: string } | { status: 'unavailable' };

/**
 * Opens a mandate page: `unavailable` when no processor is connected (key stored, `stripeMode` not
 * NONE) or the processor refused (a mandate is optional, §4.6: never an error). An earlier pending
 * page stays valid; whichever completes last wins. The caller has checked the request and the
 * account's mandate settings.
 */
export async function openMandateCheckout(ctx: AppContext, input: MandatePageRequest): Promise<MandatePageAnswer> {
  const processor = await setupProcessor(ctx, input.accountId);
  if (!processor) return { status: 'unavailable' };
  const customer = await getCustomerById(ctx.db, input.accountId, input.customerId);
  const settings = await getAccountSettings(ctx.db, input.accountId);
  const ours = defaultReturnUrls(input.baseUrl, 'setup');
  const now = ctx.clock.now();
  const row = await withTransaction(ctx.db, async (tx) => {
    const session = await repo.insertCheckoutSession(tx, {
      id: newId(), account_id: input.accountId, customer_id: input.customerId, purpose: 'SPEND_MANDATE', status: 'PENDING',
      processor_session_id: null, processor_invoice_id: null, checkout_url: null, plan_id: null, subscription_id: null, invoice_id: null,
      credit_pool_id: null, credits: null, price_per_credit: null, amount: input.amount.toFixed(), currency: input.currency, grant_id: null,
      created_at: now, completed_at: null, modified_at: now,
    });
    await tx
      .insertInto('spend_mandate_pages')
      .values({ account_id: input.accountId, checkout_session_id: session.id, customer_id: input.customerId, period: input.period, api_key_id: input.keyId, created_at: now })
      .execute();
    return session;
  });
  try {
    const link = await ensureProcessorCustomer(ctx, processor, customer);
    const page = await processor.createSetupCheckout(
      {
        customer: link.processor_customer_id,
        clientReferenceId: row.id,
        successUrl: settings.stripeCheckoutSuccessUrl ?? ours.successUrl,
        cancelUrl: settings.stripeCheckoutCancelUrl ?? ours.cancelUrl,
        metadata: { [METADATA.account]: input.accountId, [METADATA.customer]: input.customerId, [METADATA.checkoutSession]: row.id },
      },
      `tally-mandate-checkout-${row.id}`,
    );
    if (!page.url) throw new Error('the processor answered without a page');
    await withTransaction(ctx.db, (tx) =>
      repo.updateCheckoutSession(tx, input.accountId, row.id, { processor_session_id: page.id, checkout_url: page.url, expires_at: page.expiresAt, modified_at: ctx.clock.now() }),
    );
    return { status: 'pending', setupUrl: page.url };
  } catch {
    // Refused (or no answer): the page never opened, so it is closed at once and never shown (the
    // status reads pages with a URL only); a page the processor did make lapses there unused.
    await withTransaction(ctx.db, (tx) => repo.updateCheckoutSession(tx, input.accountId, row.id, { status: 'EXPIRED', modified_at: ctx.clock.now() }));
    return { status: 'unavailable' };
  }
}

/**
 * In the webhook's transaction, for a completed mandate page whose method `saveSetupCheckoutMethod`
 * made the processor customer's default: under the session's lock, once (a repeat changes nothing),
 * the customer's mandate becomes the page's (it replaces an older one: same period keeps the running
 * window, a new one starts a window at now), the customer is claimed (§4.7), a customer with no
 * e-mail gets the one typed on the page (and the processor customer gets it after commit), and the
 * saved method becomes the default for off-session charges with the session COMPLETED
 * (`storeSetupMethod`). Lock order: session, then customer.
 */
export async function completeMandateCheckout(ctx: AppContext, tx: Tx, accountId: string, saved: SavedSetupMethod, object: ProcessorCheckoutSession, now: Date): Promise<void> {
  const session = await repo.lockCheckoutSession(tx, accountId, saved.sessionId);
  if (!session || session.status === 'COMPLETED' || session.purpose !== 'SPEND_MANDATE') return;
  const page = await tx
    .selectFrom('spend_mandate_pages')
    .select('period')
    .where('account_id', '=', accountId)
    .where('checkout_session_id', '=', session.id)
    .executeTakeFirst();
  if (page && session.amount !== null) {
    await activateMandate(tx, accountId, session.customer_id, { amount: dec(session.amount), period: page.period }, now);
    await claimCustomer(tx, accountId, session.customer_id, now);
    const typed = object.customer_details?.email ?? object.customer_email;
    if (typed && (await fillMissingEmail(tx, accountId, session.customer_id, typed, now))) pushCustomerEmailAfterCommit(ctx, tx, accountId, session.customer_id);
  }
  await storeSetupMethod(tx, session, saved.paymentMethodId, now);
}

/** The newest mandate page the principal was given, as the status body reads it (§4.6); null when none or completed. */
export type MandatePage = { status: 'PENDING' | 'EXPIRED'; url: string; amount: Decimal; currency: string };

/**
 * The customer's newest mandate page that opened (a refused one never had a URL): PENDING while it
 * waits, EXPIRED once it lapsed (also when its processor expiry passed and the checkout-expiry job
 * has not run yet); null when there is none or the newest completed.
 */
export async function latestMandatePage(db: Executor, accountId: string, customerId: string, now: Date): Promise<MandatePage | null> {
  const row = await db
    .selectFrom('checkout_sessions')
    .select(['status', 'checkout_url', 'amount', 'currency', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('purpose', '=', 'SPEND_MANDATE')
    .where('checkout_url', 'is not', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row || row.status === 'COMPLETED' || row.amount === null || row.currency === null) return null;
  const lapsed = row.status === 'EXPIRED' || (row.expires_at !== null && row.expires_at <= now);
  return { status: lapsed ? 'EXPIRED' : 'PENDING', url: row.checkout_url!, amount: dec(row.amount), currency: row.currency };
}
