import type { Tx } from '../../../platform/db/database.js';
import { isUuid, newId } from '../../../platform/ids.js';
import { dec } from '../../../platform/money.js';
import {
  applyExternalInvoiceStatus,
  type Invoice,
  lockSubscription,
  mirrorExternalInvoice,
  startExternalSubscription,
} from '../../billing/index.js';
import { findPlan } from '../../catalog/index.js';
import { settleChargeSpend } from '../../customers/index.js';
import { fromMinorUnitInteger, INVOICE_STATUS_FROM_PROCESSOR } from '../domain.js';
import { METADATA } from '../events.js';
import type { ProcessorCheckoutSession, ProcessorInvoice, ProcessorSubscription } from './stripe.js';
import { licensedItem, seconds, toExternalState } from './subscriptions.js';
import { processorIdOf, recordCheckoutCompleted, recordPayment } from '../outbound.js';
import { invoicePayment } from '../subscribe.js';
import * as repo from '../repo.js';

/**
 * The processor-driven side of PROCESSOR_INTEGRATION (contract §5.5): processor subscriptions and
 * invoices applied to ours, inside the webhook's transaction (or the subscribe request's). Every
 * function locks the `processor_subscriptions` row first, then our subscription, then the invoice,
 * so the request and concurrent events for one subscription apply one after the other, and each is
 * idempotent per processor id: a repeat finds what the first one wrote.
 */

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id ?? null);

/**
 * The link row for a processor subscription, locked: by its processor id, else by our id in its
 * metadata (the PENDING row the subscribe wrote), else, for a subscription made at the processor
 * whose customer and price we know, a new one (import). Undefined when it is not ours.
 */
async function lockLink(tx: Tx, accountId: string, processorSubscriptionId: string, metadata: Record<string, string> | null | undefined, hint: { customer: string | null; price: string | null }, now: Date) {
  const linked = await repo.lockProcessorSubscriptionByProcessorId(tx, accountId, processorSubscriptionId);
  if (linked) return linked;
  const ours = metadata?.[METADATA.subscription];
  if (ours && isUuid(ours)) {
    const row = await repo.lockProcessorSubscription(tx, accountId, ours);
    // Linked to another processor subscription already: this one is not the one we asked for.
    if (row && row.processor_subscription_id === null) return repo.updateProcessorSubscription(tx, accountId, row.subscription_id, { status: 'LINKED', processor_subscription_id: processorSubscriptionId, modified_at: now });
    if (row) return undefined;
  }
  const customer = hint.customer ? await repo.findByProcessorCustomerId(tx, accountId, hint.customer) : undefined;
  const plan = hint.price ? await repo.findPlanByProcessorPrice(tx, accountId, hint.price) : undefined;
  if (!customer || !plan) return undefined;
  const row: repo.ProcessorSubscriptionRow = {
    account_id: accountId, subscription_id: newId(), customer_id: customer.customer_id, plan_id: plan.plan_id, status: 'LINKED',
    processor_subscription_id: processorSubscriptionId, checkout_session_id: null, created_at: now, modified_at: now,
  };
  await repo.insertProcessorSubscription(tx, row);
  return repo.lockProcessorSubscriptionByProcessorId(tx, accountId, processorSubscriptionId);
}

/** customer.subscription.created / updated / deleted, and the subscribe request's own answer. */
export async function linkProcessorSubscription(tx: Tx, accountId: string, subscription: ProcessorSubscription, now: Date): Promise<void> {
  await settleSubscribeSpend(tx, accountId, subscription, now);
  const price = idOf(licensedItem(subscription)?.price);
  const link = await lockLink(tx, accountId, subscription.id, subscription.metadata, { customer: idOf(subscription.customer), price }, now);
  if (!link) return;
  // The plan the processor bills now: a pending plan change to it completes (billing external.ts).
  const billed = price ? await repo.findPlanByProcessorPrice(tx, accountId, price) : undefined;
  const state = { ...toExternalState(subscription), planId: billed?.plan_id ?? null };
  await startExternalSubscription(tx, { id: link.subscription_id, accountId, customerId: link.customer_id, planId: link.plan_id, state, now });
  await completeCheckout(tx, link, now);
}

/**
 * A paid subscription of our subscribe (its first invoice paid: active or trialing): what a customer
 * key's subscribe counted under our id is settled (a reservation stays counted, a checkout's spend
 * counts now). Idempotent, nothing when nothing was counted; customer row then key, before the rows
 * the link locks.
 */
async function settleSubscribeSpend(tx: Tx, accountId: string, subscription: ProcessorSubscription, now: Date) {
  if (subscription.status !== 'active' && subscription.status !== 'trialing') return;
  const ours = subscription.metadata?.[METADATA.subscription];
  const customerId = subscription.metadata?.[METADATA.customer];
  if (ours && customerId && isUuid(ours) && isUuid(customerId)) await settleChargeSpend(tx, { accountId, customerId, id: ours, now });
}

/**
 * checkout.session.completed for a subscription checkout: it may arrive before the subscription's
 * own events, so ours is created here from what the session says (paid), with our own first period
 * until the subscription's events bring the processor's.
 */
export async function subscriptionCheckoutCompleted(tx: Tx, accountId: string, checkoutSessionId: string, session: ProcessorCheckoutSession, now: Date): Promise<boolean> {
  const intent = await repo.lockProcessorSubscriptionByCheckout(tx, accountId, checkoutSessionId);
  if (!intent) return false;
  const processorSubscriptionId = idOf(session.subscription);
  if (!processorSubscriptionId) return true;
  const link = await lockLink(tx, accountId, processorSubscriptionId, { [METADATA.subscription]: intent.subscription_id }, { customer: null, price: null }, now);
  if (!link) return true;
  const paid = session.payment_status === 'paid' || session.payment_status === 'no_payment_required';
  await startExternalSubscription(tx, {
    id: link.subscription_id, accountId, customerId: link.customer_id, planId: link.plan_id,
    state: { status: paid ? 'active' : 'pending', period: null, cancelAtPeriodEnd: false, endedAt: null }, now,
  });
  await completeCheckout(tx, link, now);
  // Paid: a customer key's checkout counts against its budget now.
  if (paid) await settleChargeSpend(tx, { accountId, customerId: link.customer_id, id: link.subscription_id, now });
  return true;
}

/** checkout.session.expired: the PENDING row is released, so the customer may subscribe again. */
export async function subscriptionCheckoutExpired(tx: Tx, accountId: string, checkoutSessionId: string, now: Date): Promise<void> {
  const intent = await repo.lockProcessorSubscriptionByCheckout(tx, accountId, checkoutSessionId);
  if (intent?.status === 'PENDING') await repo.updateProcessorSubscription(tx, accountId, intent.subscription_id, { status: 'EXPIRED', modified_at: now });
}

async function completeCheckout(tx: Tx, link: repo.ProcessorSubscriptionRow, now: Date) {
  if (!link.checkout_session_id) return;
  const session = await repo.lockCheckoutSession(tx, link.account_id, link.checkout_session_id);
  if (session && session.status !== 'COMPLETED') {
    const completed = await repo.updateCheckoutSession(tx, link.account_id, session.id, { status: 'COMPLETED', subscription_id: link.subscription_id, completed_at: now, modified_at: now });
    await recordCheckoutCompleted(tx, completed, now);
  }
}

const INVOICE_TYPE_BY_REASON: Record<string, 'IN_ADVANCE_INITIAL' | 'REGULAR'> = {
  subscription_create: 'IN_ADVANCE_INITIAL',
  subscription_cycle: 'REGULAR',
};

/**
 * invoice.created (and every later invoice event): the first one for a processor invoice mirrors it
 * with the mapped status (amounts exactly, from minor units); later ones move its status forward
 * (invoice.paid and invoice.payment_succeeded settle it once). Invoices of no subscription of ours
 * are ignored.
 */
export async function applyProcessorInvoice(tx: Tx, accountId: string, invoice: ProcessorInvoice, now: Date): Promise<void> {
  const status = INVOICE_STATUS_FROM_PROCESSOR[invoice.status as keyof typeof INVOICE_STATUS_FROM_PROCESSOR];
  if (!status || !invoice.id) return;
  const details = invoice.parent?.subscription_details;
  const processorSubscriptionId = idOf(details?.subscription);
  if (!processorSubscriptionId) return;
  const line = invoice.lines?.data?.[0];
  const link = await lockLink(tx, accountId, processorSubscriptionId, details?.metadata, { customer: idOf(invoice.customer), price: idOf(line?.pricing?.price_details?.price) }, now);
  if (!link) return;
  // The processor collected this invoice (its subscription's charge or checkout): payment.succeeded,
  // recorded by whichever event settles our copy (once per payment), before invoice.paid.
  const recordCollected = async (ours: Invoice) => {
    if (ours.type === 'CREDIT' || !dec(ours.amount).gt(0)) return;
    await recordPayment(tx, invoicePayment({
      accountId, customerId: ours.customer_id, invoice: ours, now,
      processorPaymentId: processorIdOf((invoice as { payment_intent?: unknown }).payment_intent) ?? invoice.id ?? null,
      purpose: invoice.billing_reason === 'subscription_create' ? 'SUBSCRIPTION' : 'INVOICE',
    }));
  };
  const mirrored = await repo.findMirroredInvoice(tx, accountId, invoice.id);
  if (mirrored) {
    await applyExternalInvoiceStatus(tx, accountId, mirrored.invoice_id, status, now, recordCollected);
    return;
  }
  const period = invoicePeriod(invoice);
  let subscription = await lockSubscription(tx, accountId, link.subscription_id);
  subscription ??= await startExternalSubscription(tx, {
    id: link.subscription_id, accountId, customerId: link.customer_id, planId: link.plan_id,
    state: { status: 'pending', period: period.end > period.start ? period : null, cancelAtPeriodEnd: false, endedAt: null }, now,
  });
  const plan = (await findPlan(tx, accountId, link.plan_id))!;
  const currency = invoice.currency.toUpperCase();
  const ours = await mirrorExternalInvoice(tx, {
    subscription,
    // A negative invoice (an immediate cancel's prorated credit) is a CREDIT invoice, as ours are (§6.2).
    type: (invoice.total ?? 0) < 0 ? 'CREDIT' : INVOICE_TYPE_BY_REASON[invoice.billing_reason ?? ''] ?? 'ADJUSTMENT',
    status,
    total: fromMinorUnitInteger(invoice.total ?? invoice.amount_due, currency),
    currency,
    dueDate: seconds(invoice.due_date) ?? seconds(invoice.created) ?? now,
    period,
    lines: (invoice.lines?.data ?? []).map((l) => ({ description: l.description ?? `Plan base price: ${plan.name ?? plan.key}`, amount: fromMinorUnitInteger(l.amount, currency) })),
    now,
    beforeSettled: recordCollected,
  });
  await repo.insertMirroredInvoice(tx, accountId, invoice.id, ours.id, now);
}

/**
 * The period an invoice pays for: its latest line's service period (the invoice's own
 * period_start/end is the previous period for subscriptions). A cycle invoice bills the new period
 * in advance and the closed period's metered usage; the new period is the one it belongs to.
 */
function invoicePeriod(invoice: ProcessorInvoice): { start: Date; end: Date } {
  const periods = (invoice.lines?.data ?? []).map((l) => l.period).filter((p) => p && p.end >= p.start);
  if (periods.length === 0) return { start: seconds(invoice.period_start)!, end: seconds(invoice.period_end)! };
  const latest = periods.reduce((a, b) => (b.start > a.start || (b.start === a.start && b.end > a.end) ? b : a));
  return { start: seconds(latest.start)!, end: seconds(latest.end)! };
}
