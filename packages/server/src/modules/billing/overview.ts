import type { AppContext } from '../../platform/context.js';
import { dec } from '../../platform/money.js';
import * as repo from './repo.js';

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
