import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { JobItems } from '../../platform/jobs/items.js';
import type { Job } from '../../platform/jobs/scheduler.js';
import * as catalog from '../catalog/index.js';
import { basePriceLine, finaliseInvoice, raiseInvoice, usageLines } from './invoicing.js';
import { onPeriodPaid, onSubscriptionEnded } from './lifecycle.js';
import { computeNextPeriod } from './periods.js';
import { recordPastDue, recordPlanChanged, recordSubscriptionEvent } from './outbound.js';
import { updateInvoice } from './finalisation.js';
import * as repo from './repo.js';

/**
 * The billing cycle, run by the scheduler. Every step re-locks its row and re-checks the condition
 * that selected it, so two nodes (or two runs) never apply a step twice.
 */
export function billingJobs(ctx: AppContext): Job[] {
  return [
    { name: 'subscription-cycle', cron: '0 * * * *', run: ({ now }) => runSubscriptionCycle(ctx, now) },
    { name: 'invoice-due', cron: '0 4 * * *', run: ({ now }) => runPastDue(ctx, now) },
  ];
}

/**
 * Due downgrades, then end-of-period cancellations, then period rollovers (in that order). Each
 * item in its own transaction; an item that throws is skipped and reported, and the others go on
 * (platform/jobs/items.ts): one tenant's bad row never stops another's billing.
 */
async function runSubscriptionCycle(ctx: AppContext, now: Date): Promise<void> {
  const items = new JobItems();
  await items.each('plan change', (after) => repo.dueDowngrades(ctx.db, now, after), (c) =>
    withTransaction(ctx.db, (tx) => applyDowngrade(tx, c.account_id, c.id, c.subscription_id, now)),
  );
  await items.each('subscription cancellation', (after) => repo.dueCancellations(ctx.db, now, after), (s) =>
    withTransaction(ctx.db, (tx) => endCancelledSubscription(tx, s.account_id, s.id, now)),
  );
  await items.each('subscription rollover', (after) => repo.dueRollovers(ctx.db, now, after), (s) =>
    withTransaction(ctx.db, (tx) => rollOver(tx, s.account_id, s.id, now)),
  );
  items.finish();
}

async function applyDowngrade(tx: Tx, accountId: string, changeId: string, subscriptionId: string, now: Date) {
  const subscription = await repo.lockSubscription(tx, accountId, subscriptionId);
  const change = await repo.findPendingChange(tx, accountId, subscriptionId);
  if (!subscription || !change || change.id !== changeId || change.effective_at > now) return;
  if (!subscription.is_active || subscription.ended_at) {
    await repo.setPlanChangeStatus(tx, accountId, change.id, 'CANCELLED');
    return;
  }
  const swapped = await repo.updateSubscription(tx, { ...subscription, plan_id: change.to_plan_id, modified_at: now });
  await repo.setPlanChangeStatus(tx, accountId, change.id, 'COMPLETED');
  const from = (await catalog.findPlan(tx, accountId, subscription.plan_id))!;
  await recordPlanChanged(tx, swapped, from, 'DOWNGRADE', now);
}

/** Ends a subscription whose END_OF_PERIOD cancellation is due, billing the last period's usage. */
async function endCancelledSubscription(tx: Tx, accountId: string, subscriptionId: string, now: Date) {
  const subscription = await repo.lockSubscription(tx, accountId, subscriptionId);
  if (!subscription || !subscription.is_active || !subscription.cancel_effective_at || subscription.cancel_effective_at > now) return;
  const plan = (await catalog.findPlan(tx, accountId, subscription.plan_id))!;
  const closed = { start: subscription.current_period_start, end: subscription.current_period_end };
  await closePeriod(tx, subscription, plan, closed, now, { nextPeriod: null });
  const ended = await repo.updateSubscription(tx, { ...subscription, is_active: false, ended_at: subscription.cancel_effective_at, modified_at: now });
  await onSubscriptionEnded(tx, ended, now);
  await recordSubscriptionEvent(tx, 'subscription.canceled', ended, now);
}

/**
 * Rolls a subscription into its next period (repeating if several have passed): in advance, a
 * REGULAR invoice for the new period's base price plus the closed period's usage; in arrears, the
 * closed period's PENDING invoice is finalised to DUE and a new PENDING one opened.
 */
async function rollOver(tx: Tx, accountId: string, subscriptionId: string, now: Date) {
  let subscription = await repo.lockSubscription(tx, accountId, subscriptionId);
  while (subscription && subscription.is_active && subscription.current_period_end <= now) {
    if (subscription.cancel_effective_at && subscription.cancel_effective_at <= subscription.current_period_end) return;
    if (await repo.hasPastDue(tx, accountId, subscription.id)) return;
    const plan = (await catalog.findPlan(tx, accountId, subscription.plan_id))!;
    const closed = { start: subscription.current_period_start, end: subscription.current_period_end };
    const next = computeNextPeriod(closed.end, plan.interval_months!, subscription.billing_anchor_day);
    await closePeriod(tx, subscription, plan, closed, now, { nextPeriod: next });
    subscription = await repo.updateSubscription(tx, { ...subscription, current_period_start: next.start, current_period_end: next.end, modified_at: now });
    await onPeriodPaid(tx, subscription, plan, next, now);
  }
}

async function closePeriod(
  tx: Tx,
  subscription: repo.SubscriptionRow,
  plan: catalog.Plan,
  closed: { start: Date; end: Date },
  now: Date,
  options: { nextPeriod: { start: Date; end: Date } | null },
) {
  const usage = await usageLines(tx, subscription, closed.start);
  if (plan.billing_timing === 'IN_ARREARS') {
    const pending = (await repo.lockOpenInvoices(tx, subscription.account_id, subscription.id)).find(
      (i) => i.status === 'PENDING' && i.period_start.getTime() === closed.start.getTime(),
    );
    const lines = [basePriceLine(plan), ...usage];
    if (pending) await finaliseInvoice(tx, pending, lines, now);
    else await raiseInvoice(tx, { subscription, type: 'REGULAR', status: 'DUE', currency: plan.currency, dueDate: closed.end, period: closed, lines, now });
    if (options.nextPeriod) {
      await raiseInvoice(tx, { subscription, type: 'REGULAR', status: 'PENDING', currency: plan.currency, dueDate: options.nextPeriod.end, period: options.nextPeriod, lines: [], now });
    }
    return;
  }
  const lines = options.nextPeriod ? [basePriceLine(plan), ...usage] : usage;
  if (lines.length === 0) return;
  await raiseInvoice(tx, {
    subscription,
    type: 'REGULAR',
    status: 'DUE',
    currency: plan.currency,
    dueDate: closed.end,
    period: options.nextPeriod ?? { start: closed.end, end: closed.end },
    lines,
    now,
  });
}

/** DUE invoices past their due date plus grace become PAST_DUE and revoke the subscription's entitlements. */
async function runPastDue(ctx: AppContext, now: Date): Promise<void> {
  const items = new JobItems();
  await items.each('invoice', (after) => repo.overdueInvoices(ctx.db, now, after), (i) =>
    withTransaction(ctx.db, async (tx) => {
      const invoice = await repo.lockInvoice(tx, i.account_id, i.id);
      if (!invoice || invoice.status !== 'DUE') return;
      const subscription = (await repo.lockSubscription(tx, i.account_id, invoice.subscription_id))!;
      if (invoice.due_date.getTime() + subscription.grace_period_days * 86_400_000 >= now.getTime()) return;
      const pastDue = await updateInvoice(tx, { ...invoice, status: 'PAST_DUE', modified_at: now });
      await recordPastDue(tx, pastDue, await repo.updateSubscription(tx, { ...subscription, entitlements_revoked: true, modified_at: now }), now);
    }),
  );
  items.finish();
}
