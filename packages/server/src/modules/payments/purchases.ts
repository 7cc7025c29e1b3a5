import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, invalid } from '../../platform/errors/app-error.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { dec, type Decimal } from '../../platform/money.js';
import { findPriceAt, getCustomerPool, grantPurchasedCredits, listAccountPools } from '../credits/index.js';
import { openHostedKeySpend, releaseChargeSpend, reserveOffSessionSpend, resolveCallerCustomer, settleChargeSpend, type Customer } from '../customers/index.js';
import { getAccountSettings, type AccountSettings } from '../settings/index.js';
import { openHostedCheckout, type ReturnUrls } from './checkout.js';
import { processorKey } from './connection.js';
import { purchaseAmount, requireMinimum, requireWithinSpendCap, toMinorUnitInteger } from './domain.js';
import { METADATA } from './events.js';
import { ensureProcessorCustomer } from './processor/customers.js';
import { isCardError, processorMessage, stripeProcessor, type Processor } from './processor/stripe.js';
import { chargeDeclineReason, processorIdOf, recordPayment, type PaymentFacts } from './outbound.js';
import * as repo from './repo.js';

export type PurchaseRequest = { customerReferenceId?: string | undefined; creditPoolId: string; credits: Decimal; paymentMethodId?: string | undefined };

/** The result of a purchase (contract §4.7); null fields are omitted on the wire. */
export type PurchaseResult = {
  completed: boolean;
  credits: Decimal;
  pricePerCredit: Decimal;
  amountCharged: Decimal;
  currency: string;
  grantId?: string;
  paymentIntentId?: string;
  checkoutUrl?: string;
  checkoutSessionId?: string;
  declineReason?: string;
};

export const PAYMENT_REQUIRED_MESSAGE = 'A payment method is required; hand checkoutUrl to your principal and poll the checkout session';
/** The 402 when no processor is connected: nothing to hand over, so the agent is told whom to ask (api-contract-agent-v2.md §1.2). */
export const NO_PROCESSOR_MESSAGE = 'Payment is required but no payment processor is connected to this instance; contact the operator.';

/**
 * Buys credits (contract §4.7): price from the book now, amount rounded by the currency, minimum and
 * spend cap checked before any processor call; then an off-session charge, or a hosted checkout
 * (402). The purchase row is committed before the charge and its id is the charge's idempotency key,
 * so the SDK's retries and a retried request (same Idempotency-Key: the journal replays the row)
 * never charge twice; the grant is keyed by the payment intent, so the webhook and this request
 * grant once between them.
 */
export async function purchaseCredits(ctx: AppContext, principal: Principal, input: PurchaseRequest, urls: ReturnUrls): Promise<PurchaseResult> {
  if (principal.kind === 'tenant' && input.customerReferenceId === undefined) {
    throw invalid('customerReferenceId is required for tenant API keys');
  }
  const accountId = principal.accountId;
  const customer = await resolveCallerCustomer(ctx.db, principal, input.customerReferenceId);
  const pool = await getCustomerPool(ctx.db, accountId, customer.id, input.creditPoolId);
  if (pool.status === 'ARCHIVED') throw invalid(`Credit pool ${pool.id} is archived and cannot receive credits`);
  const now = ctx.clock.now();
  const price = await findPriceAt(ctx.db, accountId, pool.denomination, now);
  if (!price) {
    throw invalid(`No published price for denomination '${pool.denomination}' — the operator must publish a price book entry before credits can be purchased`);
  }
  const currency = price.currency;
  const amount = purchaseAmount(input.credits, price.pricePerCredit, currency);
  requireMinimum(amount, currency);
  const settings = await getAccountSettings(ctx.db, accountId);
  requireWithinSpendCap(amount, currency, settings.agentMaxTopupAmount);
  const base: PurchaseResult = { completed: false, credits: input.credits, pricePerCredit: price.pricePerCredit, amountCharged: amount, currency };

  const key = await purchaseProcessorKey(ctx, accountId, settings);
  if (!key) throw paymentRequired({ ...base, declineReason: 'no payment processor connected' }, NO_PROCESSOR_MESSAGE);
  const processor = stripeProcessor(ctx.config, key, ctx.metrics);

  // The key budget and the spend mandate (api-contract-agent-v2.md §2.6, §4.6): a customer key's
  // off-session charge is checked and reserved (its id is the purchase's, named in the charge's
  // idempotency key) in the purchase row's transaction, customer row lock first, then the key's,
  // before the purchase row (whose foreign key would share-lock the customer row first) and before
  // any processor call; a refusal rolls it all back. A hosted one is recorded to be counted against
  // the key when it is paid (the mandate never counts a page a human pays).
  const keyId = principal.kind === 'customer' && principal.portalSessionId === undefined ? principal.keyId : null;
  const offSession = keyId !== null && (input.paymentMethodId !== undefined || Boolean((await repo.findProcessorCustomer(ctx.db, accountId, customer.id))?.default_payment_method_id));
  const purchaseId = newId();
  const purchase = await withTransaction(ctx.db, async (tx) => {
    if (keyId !== null && offSession) {
      await reserveOffSessionSpend(tx, { accountId, customerId: customer.id, customerReferenceId: customer.customer_reference_id, keyId, id: purchaseId, amount, now });
    }
    const row = await repo.insertPurchase(tx, {
      id: purchaseId, account_id: accountId, customer_id: customer.id, credit_pool_id: pool.id, credits: input.credits.toFixed(),
      price_per_credit: price.pricePerCredit.toFixed(), amount: amount.toFixed(), currency, status: 'PENDING', payment_intent_id: null,
      grant_id: null, checkout_session_id: null, decline_reason: null, created_at: now, modified_at: now,
    });
    if (keyId !== null && !offSession) await openHostedKeySpend(tx, { accountId, keyId, id: row.id, amount, now });
    return row;
  });
  const link = await ensureProcessorCustomer(ctx, processor, customer);
  const paymentMethod = input.paymentMethodId ?? link.default_payment_method_id;
  let declineReason: string | undefined;
  let declinedPaymentId: string | null = null;
  let paymentDecline = '';
  if (paymentMethod) {
    const charged = await chargeOffSession(processor, { purchase, processorCustomerId: link.processor_customer_id, paymentMethod });
    if (charged.kind === 'succeeded') {
      const grantId = await completePurchase(ctx, purchase, charged.paymentIntentId);
      return { ...base, completed: true, grantId, paymentIntentId: charged.paymentIntentId };
    }
    declineReason = 'off-session charge declined';
    declinedPaymentId = charged.paymentIntentId;
    paymentDecline = chargeDeclineReason(charged.reason);
    await withTransaction(ctx.db, async (tx) => {
      await repo.updatePurchase(tx, accountId, purchase.id, { status: 'DECLINED', decline_reason: charged.reason, modified_at: ctx.clock.now() });
      // Declined: the money was not spent; the hosted page below counts against the key when it is paid.
      if (keyId !== null) await hostedFromNow(tx, keyId, purchase, ctx.clock.now());
    });
  } else if (offSession) {
    await withTransaction(ctx.db, (tx) => hostedFromNow(tx, keyId!, purchase, ctx.clock.now()));
  }
  const session = await openHostedCheckout(ctx, processor, {
    accountId, customer, processorCustomerId: link.processor_customer_id, purpose: 'CREDIT_TOPUP', urls,
    amount, currency, description: `${input.credits.toFixed()} ${pool.denomination}`,
    creditPoolId: pool.id, credits: input.credits, pricePerCredit: price.pricePerCredit, creditPurchaseId: purchase.id,
    declined: declineReason ? { declineReason: paymentDecline, processorPaymentId: declinedPaymentId } : undefined,
  });
  await withTransaction(ctx.db, (tx) => repo.updatePurchase(tx, accountId, purchase.id, { status: 'CHECKOUT', checkout_session_id: session.id, modified_at: ctx.clock.now() }));
  throw paymentRequired({ ...base, checkoutUrl: session.checkoutUrl, checkoutSessionId: session.id, ...(declineReason ? { declineReason } : {}) });
}

/** The key purchases charge with: none while the mode is NONE or no key is stored or configured. */
async function purchaseProcessorKey(ctx: AppContext, accountId: string, settings: AccountSettings): Promise<string | null> {
  return settings.stripeMode === 'NONE' ? null : processorKey(ctx, accountId);
}

/** A pool the customer can buy credits for now, at its denomination's current price. */
export type TopUpOffer = { poolId: string; denomination: string; pricePerCredit: Decimal; currency: string };

/**
 * The customer's pools a purchase can go through for now: a processor is connected, the pool is not
 * archived and its denomination has a published price. These are the refusals of `purchaseCredits`
 * that no amount can avoid, so a surface that offers top-ups only for these (the portal) never
 * offers one the operator has not set up.
 */
export async function listTopUpOffers(ctx: AppContext, accountId: string, customerId: string): Promise<TopUpOffer[]> {
  if (!(await purchaseProcessorKey(ctx, accountId, await getAccountSettings(ctx.db, accountId)))) return [];
  const now = ctx.clock.now();
  const pools = (await listAccountPools(ctx, accountId, customerId)).filter((p) => p.status !== 'ARCHIVED');
  const prices = new Map<string, Awaited<ReturnType<typeof findPriceAt>>>();
  for (const denomination of new Set(pools.map((p) => p.denomination))) prices.set(denomination, await findPriceAt(ctx.db, accountId, denomination, now));
  return pools.flatMap((p) => {
    const price = prices.get(p.denomination);
    return price ? [{ poolId: p.id, denomination: p.denomination, pricePerCredit: price.pricePerCredit, currency: price.currency }] : [];
  });
}

type ChargeOutcome = { kind: 'succeeded'; paymentIntentId: string } | { kind: 'declined'; reason: string; paymentIntentId: string | null };

async function chargeOffSession(
  processor: Processor,
  input: { purchase: repo.CreditPurchaseRow; processorCustomerId: string; paymentMethod: string },
): Promise<ChargeOutcome> {
  const { purchase } = input;
  try {
    const intent = await processor.chargeOffSession(
      {
        amountMinor: toMinorUnitInteger(dec(purchase.amount), purchase.currency),
        currency: purchase.currency.toLowerCase(),
        customer: input.processorCustomerId,
        paymentMethod: input.paymentMethod,
        description: 'Credit purchase',
        metadata: { [METADATA.account]: purchase.account_id, [METADATA.creditPurchase]: purchase.id },
      },
      `tally-purchase-${purchase.id}`,
    );
    if (intent.status === 'succeeded') return { kind: 'succeeded', paymentIntentId: intent.id };
    return { kind: 'declined', reason: `payment ${intent.status}`, paymentIntentId: intent.id };
  } catch (err) {
    if (isCardError(err)) return { kind: 'declined', reason: err.code ?? err.message, paymentIntentId: processorIdOf((err as { payment_intent?: unknown }).payment_intent) };
    // Unknown outcome (processor down, timeout): the purchase stays PENDING; a retry with the same
    // Idempotency-Key reuses it and its charge key, and payment_intent.succeeded completes it.
    throw new AppError('vendor_error', `Stripe did not complete the charge: ${processorMessage(err)}`, { cause: err });
  }
}

/**
 * Grants the credits of a charged purchase (key `pi_<id>`, shared with the webhook). Under the
 * purchase's lock: the webhook of a lost answer may have completed it already (then nothing more);
 * else `payment.succeeded` is recorded with the new grant's id, before the grant's own events.
 */
async function completePurchase(ctx: AppContext, purchase: repo.CreditPurchaseRow, paymentIntentId: string): Promise<string> {
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const locked = await repo.lockPurchase(tx, purchase.account_id, purchase.id);
    if (locked?.status === 'SUCCEEDED' && locked.grant_id) return locked.grant_id;
    // The reservations are settled: customer, then the key's budget, before the pools the grant locks.
    await settleChargeSpend(tx, { accountId: purchase.account_id, customerId: purchase.customer_id, id: purchase.id, now });
    const { grantId } = await grantPurchasedCredits(
      tx,
      {
        accountId: purchase.account_id, poolId: purchase.credit_pool_id, amount: dec(purchase.credits), unitPrice: dec(purchase.price_per_credit),
        currency: purchase.currency, idempotencyKey: `pi_${paymentIntentId}`, description: 'Credit purchase',
        metadata: { creditPurchaseId: purchase.id, paymentIntentId },
        onGranted: (id) => recordPayment(tx, purchasePayment(purchase, paymentIntentId, null, id, now)),
      },
      now,
    );
    await repo.updatePurchase(tx, purchase.account_id, purchase.id, { status: 'SUCCEEDED', payment_intent_id: paymentIntentId, grant_id: grantId, modified_at: now });
    return grantId;
  });
}

/**
 * A reservation that will not be charged off-session gives its amount back to the key and the
 * mandate; the purchase then counts against the key only if its hosted page is paid.
 */
async function hostedFromNow(tx: Tx, keyId: string, purchase: repo.CreditPurchaseRow, now: Date) {
  const accountId = purchase.account_id;
  await releaseChargeSpend(tx, { accountId, customerId: purchase.customer_id, id: purchase.id, now });
  await openHostedKeySpend(tx, { accountId, keyId, id: purchase.id, amount: dec(purchase.amount), now });
}

export function paymentRequired(data: unknown, message: string = PAYMENT_REQUIRED_MESSAGE): AppError {
  return new AppError('payment_required', message, { data });
}

export type { Customer };

/** The Payment facts of a credit purchase's successful charge and the grant it settled (same transaction). */
export function purchasePayment(purchase: repo.CreditPurchaseRow, processorPaymentId: string, checkoutSessionId: string | null, grantId: string, now: Date): PaymentFacts {
  return {
    accountId: purchase.account_id, customerId: purchase.customer_id, status: 'SUCCEEDED', purpose: 'CREDIT_TOPUP', amount: purchase.amount,
    currency: purchase.currency, processorPaymentId, checkoutSessionId, grantId, now,
  };
}
