import type { Tx } from '../../platform/db/database.js';
import type { InvoiceStatus, InvoiceType } from './tables.js';
import { Money, type Decimal } from '../../platform/money.js';
import * as catalog from '../catalog/index.js';
import { settleInvoice } from './invoices.js';
import { raiseInvoice, type InvoiceLine } from './invoicing.js';
import { onPeriodPaid, onPlanChanged, onSubscriptionEnded } from './lifecycle.js';
import { settleUpgradeSpend } from './paid-upgrade.js';
import { computeInitialPeriod } from './periods.js';
import { recordInvoiceEvent, recordPastDue, recordPlanChanged, recordSubscriptionEvent } from './outbound.js';
import { updateInvoice } from './finalisation.js';
import * as repo from './repo.js';

/**
 * Subscriptions and invoices whose source of truth is elsewhere (the payment processor in
 * PROCESSOR_INTEGRATION, contract §5.4): the caller says what the outside state is, billing applies
 * it with its own rules and domain events, inside the caller's transaction. Billing knows nothing of
 * the processor; every function is idempotent and never moves state backwards (events arrive late,
 * twice and out of order), and the cycle jobs skip these accounts.
 */

export type ExternalState = {
  /** active: paid and running; pending: created, first payment outstanding; ended: over for good. */
  status: 'active' | 'pending' | 'ended';
  period: { start: Date; end: Date } | null;
  cancelAtPeriodEnd: boolean;
  endedAt: Date | null;
  /** The plan the outside bills now, when known: a PENDING change to it completes (see applyPlanChange). */
  planId?: string | null;
};

type StartExternalSubscription = {
  id: string;
  accountId: string;
  customerId: string;
  planId: string;
  state: ExternalState;
  now: Date;
};

/** Creates the subscription with the id chosen before the processor call, or returns the one that exists (locked). */
export async function startExternalSubscription(tx: Tx, input: StartExternalSubscription): Promise<repo.SubscriptionRow> {
  const existing = await repo.lockSubscription(tx, input.accountId, input.id);
  if (existing) return syncExternalSubscription(tx, existing, input.state, input.now);
  const plan = (await catalog.findPlan(tx, input.accountId, input.planId))!;
  const period = input.state.period ?? computeInitialPeriod(input.now, plan.interval_months!);
  const subscription = await repo.insertSubscription(tx, {
    id: input.id,
    account_id: input.accountId,
    customer_id: input.customerId,
    plan_id: plan.id,
    is_active: false,
    entitlements_revoked: false,
    grace_period_days: 3,
    current_period_start: period.start,
    current_period_end: period.end,
    billing_anchor_day: period.start.getUTCDate(),
    cancel_mode: null,
    cancel_effective_at: null,
    cancelled_at: null,
    ended_at: null,
    metadata: {},
    created_at: input.now,
    modified_at: input.now,
  });
  await recordSubscriptionEvent(tx, 'subscription.created', subscription, input.now);
  return syncExternalSubscription(tx, subscription, input.state, input.now);
}

/**
 * Applies the outside state to a locked subscription. Ended is final; a later period replaces the
 * current one (never an earlier one); becoming active, or moving to the next period while active, is
 * a paid period (plan credits granted, idempotent per period); `pending` never deactivates.
 */
async function syncExternalSubscription(tx: Tx, subscription: repo.SubscriptionRow, state: ExternalState, now: Date): Promise<repo.SubscriptionRow> {
  if (subscription.ended_at) return subscription;
  if (state.status === 'ended') {
    const endedAt = state.endedAt ?? now;
    const ended = await repo.updateSubscription(tx, {
      ...subscription,
      is_active: false,
      // Ended before its period was over (an immediate cancel): the period ends then (contract §6.3).
      current_period_end: endedAt < subscription.current_period_end && endedAt > subscription.current_period_start ? endedAt : subscription.current_period_end,
      cancel_mode: subscription.cancel_mode ?? 'IMMEDIATE',
      cancel_effective_at: subscription.cancel_effective_at ?? endedAt,
      cancelled_at: subscription.cancelled_at ?? endedAt,
      ended_at: endedAt,
      modified_at: now,
    });
    await onSubscriptionEnded(tx, ended, now);
    await recordSubscriptionEvent(tx, 'subscription.canceled', ended, now);
    return ended;
  }
  // A period starting at or after the current end is the next one (paid, if active); one starting
  // inside the current period corrects its bounds (ours was computed before the processor's arrived);
  // an earlier one is a stale event.
  const advanced = state.period !== null && state.period.start >= subscription.current_period_end;
  const corrects = state.period !== null && state.period.start >= subscription.current_period_start;
  const period = advanced || corrects ? state.period! : { start: subscription.current_period_start, end: subscription.current_period_end };
  const activating = state.status === 'active' && !subscription.is_active;
  const cancel = state.cancelAtPeriodEnd
    ? { cancel_mode: 'END_OF_PERIOD' as const, cancel_effective_at: period.end, cancelled_at: subscription.cancelled_at ?? now }
    : subscription.cancel_mode === 'END_OF_PERIOD'
      ? { cancel_mode: null, cancel_effective_at: null, cancelled_at: null }
      : {};
  let next = await repo.updateSubscription(tx, {
    ...subscription,
    ...cancel,
    is_active: subscription.is_active || state.status === 'active',
    current_period_start: period.start,
    current_period_end: period.end,
    modified_at: now,
  });
  if (activating) await recordSubscriptionEvent(tx, 'subscription.activated', next, now);
  next = await applyPlanChange(tx, next, state.planId ?? null, { periodStarted: advanced }, now);
  const plan = (await catalog.findPlan(tx, next.account_id, next.plan_id))!;
  if (activating || (advanced && next.is_active)) await onPeriodPaid(tx, next, plan, period, now);
  return next;
}

/**
 * A PENDING plan change the outside has applied (it bills `billedPlanId` now): an UPGRADE swaps at
 * once (its proration was paid: the outside applies the new price only then) with the credit delta;
 * a DOWNGRADE swaps when the period it was scheduled for starts, before that period's credits. A
 * plan the outside bills without a pending change of ours to it (or a stale event) changes nothing.
 */
async function applyPlanChange(tx: Tx, subscription: repo.SubscriptionRow, billedPlanId: string | null, when: { periodStarted: boolean }, now: Date) {
  if (!billedPlanId || billedPlanId === subscription.plan_id || !subscription.is_active) return subscription;
  const change = await repo.findPendingChange(tx, subscription.account_id, subscription.id);
  if (!change || change.to_plan_id !== billedPlanId) return subscription;
  if (change.type === 'DOWNGRADE' && !(when.periodStarted && change.effective_at <= subscription.current_period_start)) return subscription;
  const from = (await catalog.findPlan(tx, subscription.account_id, subscription.plan_id))!;
  const to = (await catalog.findPlan(tx, subscription.account_id, change.to_plan_id))!;
  // A paid upgrade's money (api-contract-agent-v2.md §4.8) counts once the outside billed it: its
  // reservation stays, a hosted payment counts against the key that asked (before the grant's pools).
  if (change.type === 'UPGRADE') await settleUpgradeSpend(tx, { accountId: subscription.account_id, customerId: subscription.customer_id, id: change.id }, now);
  const swapped = await repo.updateSubscription(tx, { ...subscription, plan_id: to.id, modified_at: now });
  await repo.setPlanChangeStatus(tx, subscription.account_id, change.id, 'COMPLETED');
  await recordPlanChanged(tx, swapped, from, change.type, now);
  if (change.type === 'UPGRADE') await onPlanChanged(tx, swapped, from, to, change.id, now);
  return swapped;
}

/** A PENDING change the outside refused (it will never apply): FAILED, so it is no longer shown as scheduled. */
export async function failExternalPlanChange(tx: Tx, accountId: string, changeId: string): Promise<void> {
  const change = await repo.findPlanChange(tx, accountId, changeId);
  if (change?.status === 'PENDING') await repo.setPlanChangeStatus(tx, accountId, changeId, 'FAILED');
}

type MirrorExternalInvoice = {
  subscription: repo.SubscriptionRow;
  type: InvoiceType;
  status: InvoiceStatus;
  total: Decimal;
  currency: string;
  dueDate: Date;
  period: { start: Date; end: Date };
  lines: InvoiceLine[];
  now: Date;
  /** Runs under the invoice's lock when the mirror settles it (the caller records the payment: settleInvoice). */
  beforeSettled?: ((invoice: repo.InvoiceRow) => Promise<void>) | undefined;
};

/**
 * Writes our copy of an outside invoice. Its amount is the outside total exactly: lines that do not
 * add up to it (discounts, tax) get one balancing line. A PAID invoice is raised DUE and settled, so
 * paying the first invoice activates the subscription as mark-paid would; a PAST_DUE one revokes the
 * subscription's entitlements, as the due job would (§6.2).
 *
 * A subscription has one period invoice (initial or regular) per period start; the outside may raise
 * more than one for a period (a second cycle invoice, an invoice for usage of the same period …), and
 * those are mirrored as ADJUSTMENT invoices, so a mirror never fails (its webhook would be retried forever).
 */
export async function mirrorExternalInvoice(tx: Tx, input: MirrorExternalInvoice): Promise<repo.InvoiceRow> {
  const sum = input.lines.reduce((s, l) => s.plus(l.amount), Money.zero(input.currency).amount);
  const difference = input.total.minus(sum);
  const lines = difference.isZero() ? input.lines : [...input.lines, { description: 'Adjustments at the payment processor', amount: difference }];
  const paid = input.status === 'PAID';
  const periodType = input.type === 'IN_ADVANCE_INITIAL' || input.type === 'REGULAR';
  const taken = periodType && (await repo.hasPeriodInvoice(tx, input.subscription.account_id, input.subscription.id, input.period.start));
  const { invoice } = await raiseInvoice(tx, {
    subscription: input.subscription,
    type: taken ? 'ADJUSTMENT' : input.type,
    status: paid ? 'DUE' : input.status,
    currency: input.currency,
    dueDate: input.dueDate,
    period: input.period,
    lines,
    now: input.now,
  });
  if (invoice.status === 'PAST_DUE') await revokeEntitlements(tx, invoice, input.now);
  if (invoice.status === 'VOID') await recordInvoiceEvent(tx, 'invoice.voided', invoice, input.now);
  return paid && invoice.status !== 'PAID' ? (await settleInvoice(tx, invoice.account_id, invoice.id, input.now, input.beforeSettled))! : invoice;
}

/**
 * A PAST_DUE invoice revokes the subscription's entitlements until no invoice of it is past due
 * (§6.2); it records `invoice.past_due` and `subscription.past_due` as the due job does.
 */
async function revokeEntitlements(tx: Tx, invoice: repo.InvoiceRow, now: Date) {
  let subscription = await repo.lockSubscription(tx, invoice.account_id, invoice.subscription_id);
  if (!subscription) return;
  if (!subscription.entitlements_revoked) subscription = await repo.updateSubscription(tx, { ...subscription, entitlements_revoked: true, modified_at: now });
  await recordPastDue(tx, invoice, subscription, now);
}

/** A past-due invoice voided outside (the debt forgiven): the entitlements come back once none is past due. */
async function restoreEntitlements(tx: Tx, accountId: string, subscriptionId: string, now: Date) {
  const subscription = await repo.lockSubscription(tx, accountId, subscriptionId);
  if (subscription?.entitlements_revoked && !(await repo.hasPastDue(tx, accountId, subscriptionId))) {
    await repo.updateSubscription(tx, { ...subscription, entitlements_revoked: false, modified_at: now });
  }
}

/**
 * Moves a mirrored invoice to the outside status: forward only (PENDING → DUE → PAST_DUE → PAID;
 * VOID from any unpaid status). PAID settles it (idempotent; paying the last past-due invoice
 * restores the entitlements); PAST_DUE revokes the subscription's entitlements; VOIDing the last
 * past-due one restores them; a PAID or VOID invoice stays as it is.
 */
export async function applyExternalInvoiceStatus(
  tx: Tx,
  accountId: string,
  invoiceId: string,
  status: InvoiceStatus,
  now: Date,
  beforeSettled?: (invoice: repo.InvoiceRow) => Promise<void>,
): Promise<void> {
  const invoice = await repo.lockInvoice(tx, accountId, invoiceId);
  if (!invoice || invoice.status === 'PAID' || invoice.status === 'VOID' || invoice.status === status) return;
  if (status === 'PAID') {
    if (invoice.status === 'PENDING') await updateInvoice(tx, { ...invoice, status: 'DUE', modified_at: now });
    if (invoice.status === 'PENDING' || invoice.status === 'DUE' || invoice.status === 'PAST_DUE') await settleInvoice(tx, accountId, invoiceId, now, beforeSettled);
    return;
  }
  const order: InvoiceStatus[] = ['PENDING', 'DUE', 'PAST_DUE'];
  const forward = status === 'VOID' || order.indexOf(status) > order.indexOf(invoice.status);
  if (!forward || !order.includes(invoice.status)) return;
  const moved = await updateInvoice(tx, { ...invoice, status, modified_at: now });
  if (status === 'PAST_DUE') await revokeEntitlements(tx, moved, now);
  if (status === 'VOID') await recordInvoiceEvent(tx, 'invoice.voided', moved, now);
  if (status === 'VOID' && invoice.status === 'PAST_DUE') await restoreEntitlements(tx, accountId, invoice.subscription_id, now);
}
