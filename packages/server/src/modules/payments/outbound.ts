import type { Tx } from '../../platform/db/database.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { nameBasedId, newId } from '../../platform/ids.js';
import { dec, type Decimal } from '../../platform/money.js';
import { claimCustomer, getCustomerById } from '../customers/index.js';
import type { CheckoutPurpose, CheckoutSessionRow } from './tables.js';

/**
 * The payments module's outbound events (api-contract-events.md §E5.5): money moving at the processor
 * (`payment.succeeded`, `payment.failed`) and a checkout session completing, each recorded in the
 * transaction of the change it describes. `payment.succeeded` is recorded only by the call that
 * settles the invoice or marks the purchase or session done under its row lock, so it is once per
 * processor payment however many requests and webhooks report that payment.
 */

export type PaymentFacts = {
  accountId: string;
  customerId: string;
  status: 'SUCCEEDED' | 'FAILED';
  purpose: CheckoutPurpose;
  amount: Decimal | string;
  currency: string;
  /** The processor's object: payment intent `pi_…`, else its invoice `in_…`, else its checkout session `cs_…`. */
  processorPaymentId: string | null;
  invoiceId?: string | null;
  checkoutSessionId?: string | null;
  grantId?: string | null;
  subscriptionId?: string | null;
  declineReason?: string | null;
  now: Date;
};

/** The Payment's declineReason (§E5.5) for a declined off-session charge: authentication, else a plain decline. */
export function chargeDeclineReason(code: string | null | undefined): string {
  return code === 'authentication_required' || code === 'payment requires_action' ? 'authentication required' : 'off-session charge declined';
}

/**
 * The Payment's id (ours; no table keeps payments): name-based on the account and the processor's
 * object, so every event of one processor payment (an invoice's failed attempt, then its success)
 * carries the same id; a decline the processor gave no object for gets a fresh one.
 */
const paymentIdOf = (accountId: string, processorPaymentId: string | null, now: Date) =>
  processorPaymentId ? nameBasedId(accountId, processorPaymentId) : newId(now.getTime());

/** The Payment object (§E5.5): ours, built from what the payments module knows of the charge. */
export async function recordPayment(tx: Tx, facts: PaymentFacts): Promise<void> {
  const customer = await getCustomerById(tx, facts.accountId, facts.customerId);
  const payment = {
    id: paymentIdOf(facts.accountId, facts.processorPaymentId, facts.now),
    status: facts.status,
    purpose: facts.purpose,
    customerReferenceId: customer.customer_reference_id,
    amount: dec(facts.amount),
    currency: facts.currency,
    processorPaymentId: facts.processorPaymentId,
    invoiceId: facts.invoiceId ?? null,
    checkoutSessionId: facts.checkoutSessionId ?? null,
    grantId: facts.grantId ?? null,
    subscriptionId: facts.subscriptionId ?? null,
    declineReason: facts.status === 'FAILED' ? (facts.declineReason ?? null) : null,
    createdAt: facts.now,
  };
  await recordEvent(tx, { accountId: facts.accountId, type: facts.status === 'SUCCEEDED' ? 'payment.succeeded' : 'payment.failed', object: payment, now: facts.now });
  // A positive payment claims a provisional agent customer (api-contract-agent-v2.md §4.7), in the payment's
  // transaction; its customer.claimed follows the payment.succeeded that caused it.
  if (facts.status === 'SUCCEEDED' && dec(facts.amount).gt(0)) await claimCustomer(tx, facts.accountId, facts.customerId, facts.now);
}

/** A checkout session as the Client API shows it (contract §4.6). */
export function toCheckoutSessionView(row: CheckoutSessionRow) {
  return {
    id: row.id,
    purpose: row.purpose,
    status: row.status,
    ...(row.checkout_url ? { checkoutUrl: row.checkout_url } : {}),
    ...(row.subscription_id && row.status === 'COMPLETED' ? { subscriptionId: row.subscription_id } : {}),
    ...(row.credits ? { credits: dec(row.credits) } : {}),
    ...(row.payment_method_id ? { paymentMethodId: row.payment_method_id } : {}),
    createdAt: row.created_at,
    ...(row.completed_at ? { completedAt: row.completed_at } : {}),
  };
}

/** `checkout.completed`: the session (just moved PENDING → COMPLETED), with its customer's reference added. */
export async function recordCheckoutCompleted(tx: Tx, session: CheckoutSessionRow, now: Date): Promise<void> {
  const customer = await getCustomerById(tx, session.account_id, session.customer_id);
  await recordEvent(tx, {
    accountId: session.account_id,
    type: 'checkout.completed',
    object: { ...toCheckoutSessionView(session), customerReferenceId: customer.customer_reference_id },
    now,
  });
}

/** The id of a processor object field that is an id or the expanded object (or absent). */
export function processorIdOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'id' in value && typeof value.id === 'string') return value.id;
  return null;
}
