import type { Tx } from '../../platform/db/database.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { toPlan, type Plan } from '../catalog/index.js';
import type { InvoiceRow, SubscriptionRow } from './repo.js';
import { toInvoiceViews, toSubscriptionView } from './views.js';

/**
 * Billing's outbound events (api-contract-events.md §E5.3–§E5.4), recorded in the transaction of the
 * change that causes them, with the object as the read routes show it at that moment (the
 * Subscription of §4.4, the Invoice with its items). A change that rolls back — a refusal, the
 * plan-change preview — records nothing. Callers record in the order the contract lists.
 */

type SubscriptionEventType = 'subscription.created' | 'subscription.activated' | 'subscription.canceled';
type InvoiceEventType = 'invoice.created' | 'invoice.finalized' | 'invoice.paid' | 'invoice.past_due' | 'invoice.voided';

export async function recordSubscriptionEvent(tx: Tx, type: SubscriptionEventType, subscription: SubscriptionRow, now: Date): Promise<void> {
  await recordEvent(tx, { accountId: subscription.account_id, type, object: await toSubscriptionView(tx, subscription), now });
}

/** The plan actually swapped (an upgrade now, a downgrade at its period start, the processor's change). */
export async function recordPlanChanged(tx: Tx, subscription: SubscriptionRow, previousPlan: Plan, changeType: 'UPGRADE' | 'DOWNGRADE', now: Date): Promise<void> {
  await recordEvent(tx, {
    accountId: subscription.account_id,
    type: 'subscription.plan_changed',
    object: await toSubscriptionView(tx, subscription),
    extra: { previousPlan: toPlan(previousPlan), changeType },
    now,
  });
}

const invoiceObject = async (tx: Tx, invoice: InvoiceRow) => (await toInvoiceViews(tx, invoice.account_id, [invoice]))[0]!;

export async function recordInvoiceEvent(tx: Tx, type: InvoiceEventType, invoice: InvoiceRow, now: Date): Promise<void> {
  await recordEvent(tx, { accountId: invoice.account_id, type, object: await invoiceObject(tx, invoice), now });
}

/**
 * An invoice entered PAST_DUE (the 04:00 job, or the processor's): `invoice.past_due`, then its
 * subscription's `subscription.past_due` carrying that invoice.
 */
export async function recordPastDue(tx: Tx, invoice: InvoiceRow, subscription: SubscriptionRow, now: Date): Promise<void> {
  const object = await invoiceObject(tx, invoice);
  await recordEvent(tx, { accountId: invoice.account_id, type: 'invoice.past_due', object, now });
  await recordEvent(tx, { accountId: invoice.account_id, type: 'subscription.past_due', object: await toSubscriptionView(tx, subscription), extra: { invoice: object }, now });
}
