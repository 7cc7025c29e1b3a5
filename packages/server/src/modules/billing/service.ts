import type { AppContext } from '../../platform/context.js';
import { dec } from '../../platform/money.js';
import * as repo from './repo.js';

/**
 * Billing's service face: what its routes, app.ts and the other modules call. The use cases live in
 * `subscriptions.ts` (subscribe, cancel, plan change) and `invoices.ts` (settlement, invoice reads);
 * this file gathers them, adds the console overview and the reads other modules make of billing's
 * records, so nothing outside billing reaches its repo.
 */
export {
  cancelScheduledPlanChange,
  cancelSubscription,
  changePlan,
  getSubscriptionView,
  previewPlanChange,
  subscribe,
  subscribeInTransaction,
  undoScheduledCancellation,
} from './subscriptions.js';
export { findFirstDueInvoice, getInvoice, listAccountInvoices, listCustomerInvoicePage, markInvoicePaid, settleInvoice } from './invoices.js';

/** A subscription as billing keeps it (its stored record); only billing writes it. */
export type Subscription = repo.SubscriptionRow;
/** An invoice as billing keeps it (its stored record); only billing writes it. */
export type Invoice = repo.InvoiceRow;

/**
 * A subscription or invoice by id (undefined when absent), a subscription locked for the caller's
 * transaction (the processor's webhook applies to it), a customer's subscriptions. Each takes the
 * caller's executor, so it reads inside its transaction.
 */
export const { findSubscription, lockSubscription, listCustomerSubscriptions, findInvoice } = repo;

/**
 * The console overview's billing figures: subscriptions that bill and their MRR from plan prices,
 * and invoices past due, each per currency (an account may price plans in more than one).
 */
export async function getBillingOverview(ctx: AppContext, accountId: string) {
  const now = ctx.clock.now();
  const [recurring, pastDue] = await Promise.all([repo.sumRecurringRevenue(ctx.db, accountId), repo.sumPastDueInvoices(ctx.db, accountId, now)]);
  return {
    asOf: now,
    activeSubscriptions: recurring.reduce((n, r) => n + Number(r.subscriptions), 0),
    mrr: recurring.map((r) => ({ currency: r.currency, amount: dec(r.mrr), subscriptions: Number(r.subscriptions) })),
    pastDueInvoices: pastDue.map((r) => ({ currency: r.currency, amount: dec(r.amount), invoices: Number(r.invoices) })),
  };
}
