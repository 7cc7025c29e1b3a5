import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, conflict } from '../../platform/errors/app-error.js';
import { gate } from '../../platform/errors/gate.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { Money, type Decimal } from '../../platform/money.js';
import * as catalog from '../catalog/index.js';
import type { Plan } from '../catalog/index.js';
import { openHostedKeySpend, releaseChargeSpend, reserveOffSessionSpend, settleChargeSpend, type Customer } from '../customers/index.js';
import { updateInvoice } from './finalisation.js';
import { raiseInvoice } from './invoicing.js';
import { onPlanChanged } from './lifecycle.js';
import { recordInvoiceEvent, recordPlanChanged } from './outbound.js';
import { checkUpgradePayment, collectUpgradePayment, voidUpgradePayment, type UpgradePayment } from './payment-slots.js';
import { computeUpgradeProration } from './periods.js';
import * as repo from './repo.js';
import { subscriptionWithInvoiceView } from './views.js';

/**
 * Paid upgrades (api-contract-agent-v2.md §4.8). An UPGRADE whose proration costs money, asked with an
 * API key while a processor collects payments, waits for its payment: the change is recorded PENDING
 * and the plan moves only when the proration is paid, off-session at once (200) or later on a hosted
 * page (402 gate for a customer key, 202 `payment_pending` for the tenant), whose settlement completes
 * it (`completePaidUpgrade`, called by `settleInvoice`; where the processor drives billing, external.ts).
 *
 * Money counted against the asking key and the customer's mandate is reserved under our invoice's id
 * (the change's where the processor raises the invoice) before the charge (customer row, then key
 * budget, under the subscription lock already held), settled when paid, given back when not
 * charged; a hosted payment counts against the key when paid. The spend sweep resolves a reservation
 * a crash left behind through that invoice, as for a paid subscribe.
 */

/** Where an agent polls while a hosted upgrade invoice waits (§1.2): the customer's status. */
const statusPath = (ref: string) => `/api/v1/client/customers/${encodeURIComponent(ref)}/status`;

export const UPGRADE_PAYMENT_REQUIRED_MESSAGE =
  'This upgrade is paid first: hand checkoutUrl (the invoice) to your principal and poll the customer status; the plan changes once the invoice is paid';

/** The key whose budget a charge counts against: a customer key's; a portal link (a person) and the tenant have none. */
export const spendingKeyOf = (principal: Principal) => (principal.kind === 'customer' && principal.portalSessionId === undefined ? principal.keyId : null);

/** The change a paid upgrade's invoice pays for (its metadata names it), or null. */
export function planChangeIdOf(invoice: repo.InvoiceRow): string | null {
  const id = invoice.type === 'ADJUSTMENT' ? invoice.metadata.planChangeId : undefined;
  return typeof id === 'string' ? id : null;
}

type PaidUpgradeInput = {
  subscription: repo.SubscriptionRow;
  from: Plan;
  to: Plan;
  customer: Customer;
  processorDriven: boolean;
  paymentMethodId: string | undefined;
  now: Date;
};

export type StartedPaidUpgrade = { subscription: repo.SubscriptionRow; invoiceId: string | undefined; payment: UpgradePayment };

/** An upgrade's proration now (base §6.3, periods.ts): the old plan's unused share credited, the new plan's charged. */
function upgradeProration(subscription: repo.SubscriptionRow, from: Plan, to: Plan, now: Date) {
  return computeUpgradeProration({
    start: subscription.current_period_start,
    end: subscription.current_period_end,
    now,
    oldPrice: Money.of(from.price_amount ?? '0', from.currency),
    newPrice: Money.of(to.price_amount ?? '0', to.currency),
  });
}

const prorationOf = (subscription: repo.SubscriptionRow, from: Plan, to: Plan, now: Date): Decimal => upgradeProration(subscription, from, to, now).amount.amount;

/** The ADJUSTMENT invoice's lines of an upgrade (every upgrade that bills one raises these). */
export function prorationLines(subscription: repo.SubscriptionRow, from: Plan, to: Plan, now: Date) {
  const proration = upgradeProration(subscription, from, to, now);
  return [
    { description: `Credit from old plan: ${from.name ?? from.key}`, amount: proration.oldCredit.amount },
    { description: `Credit from new plan: ${to.name ?? to.key}`, amount: proration.newCharge.amount },
  ];
}

/**
 * Starts a paid upgrade inside the plan-change transaction, the subscription locked (§4.8 step 1).
 * Null when it is not one (an operator's change, an in-arrears plan, a free proration, no processor
 * collecting): the caller applies the change at once, as before. Otherwise the checks come first (the
 * spend cap; for a customer key's off-session charge the mandate, then the key budget, each refusal a
 * gated 403, the amount reserved under the change's id), then the change is recorded PENDING and,
 * unless the processor raises its own, our ADJUSTMENT invoice DUE naming it. The plan does not move.
 */
export async function startPaidUpgrade(ctx: AppContext, tx: Tx, principal: Principal, input: PaidUpgradeInput): Promise<StartedPaidUpgrade | null> {
  const { subscription, from, to, customer, now } = input;
  if (principal.kind === 'admin' || from.billing_timing !== 'IN_ADVANCE') return null;
  const amount = prorationOf(subscription, from, to, now);
  if (!amount.gt(0)) return null;
  const check = { customer, amount, currency: to.currency, paymentMethodId: input.paymentMethodId, processorDriven: input.processorDriven };
  const collected = await checkUpgradePayment.call(ctx, tx, principal, check);
  if (!collected) return null;
  const changeId = newId();
  const invoiceId = input.processorDriven ? undefined : newId();
  const reservationId = invoiceId ?? changeId;
  const keyId = spendingKeyOf(principal);
  if (keyId !== null && collected.offSession) {
    await reserveOffSessionSpend(tx, { accountId: subscription.account_id, customerId: customer.id, customerReferenceId: customer.customer_reference_id, keyId, id: reservationId, amount, now });
  }
  await repo.insertPlanChange(tx, {
    id: changeId,
    account_id: subscription.account_id,
    subscription_id: subscription.id,
    type: 'UPGRADE',
    from_plan_id: from.id,
    to_plan_id: to.id,
    status: 'PENDING',
    effective_at: now,
    created_at: now,
  });
  if (invoiceId) {
    await raiseInvoice(tx, {
      id: invoiceId,
      subscription,
      type: 'ADJUSTMENT',
      status: 'DUE',
      currency: to.currency,
      dueDate: now,
      period: { start: now, end: subscription.current_period_end },
      lines: prorationLines(subscription, from, to, now),
      now,
      metadata: { planChangeId: changeId },
    });
  }
  const payment: UpgradePayment = { ...check, subscriptionId: subscription.id, changeId, toPlan: to, invoiceId, reservationId, offSession: collected.offSession, retry: false };
  return { subscription, invoiceId, payment };
}

/**
 * A plan change asked while an upgrade waits for its payment (§4.8 step 5, under the subscription
 * lock): the same upgrade again from an API key returns the same invoice and page, charging nothing;
 * anything else is refused until the waiting upgrade is paid or cancelled.
 */
export async function retryPaidUpgrade(tx: Tx, principal: Principal, input: PaidUpgradeInput & { waiting: repo.PlanChangeRow }): Promise<StartedPaidUpgrade> {
  const { waiting, subscription, from, to } = input;
  if (principal.kind === 'admin' || waiting.to_plan_id !== to.id) {
    throw conflict(
      `An upgrade of this subscription waits for the payment of its invoice (plan change ${waiting.id}); cancel it first (DELETE /api/v1/client/subscriptions/${subscription.id}/plan-change/scheduled) or pay it`,
    );
  }
  const invoice = await repo.findPlanChangeInvoice(tx, subscription.account_id, subscription.id, waiting.id);
  const amount = invoice ? Money.of(invoice.amount, invoice.currency).amount : prorationOf(subscription, from, to, waiting.created_at);
  const payment: UpgradePayment = {
    customer: input.customer, amount, currency: to.currency, paymentMethodId: undefined, processorDriven: input.processorDriven,
    subscriptionId: subscription.id, changeId: waiting.id, toPlan: to, invoiceId: invoice?.id, reservationId: invoice?.id ?? waiting.id, offSession: false, retry: true,
  };
  return { subscription, invoiceId: invoice?.id, payment };
}

/** Who reserved what for one paid upgrade: the customer and the reservation's id (invoice or change). */
export type UpgradeSpend = { accountId: string; customerId: string; id: string };

/** The upgrade's money was paid: its reservations stay counted; a hosted payment counts against the key now. Idempotent. */
export const settleUpgradeSpend = (tx: Tx, s: UpgradeSpend, now: Date) => settleChargeSpend(tx, { ...s, now });

/** The upgrade's money was not charged (declined, no method, cancelled, refused): what it held is given back. Idempotent. */
export const releaseUpgradeSpend = (tx: Tx, s: UpgradeSpend, now: Date) => releaseChargeSpend(tx, { ...s, now });

/**
 * Completes the waiting upgrade an invoice paid for, in `settleInvoice`'s transaction (the invoice and
 * subscription locked, so a second settlement finds it done): the money counted, the plan swapped,
 * the change COMPLETED, `subscription.plan_changed`, then the credit difference (granted once per
 * change). A change no longer waiting is left alone; one that can no longer apply (the subscription
 * ended or moved) is cancelled, its money still counted. Returns the subscription after it.
 */
export async function completePaidUpgrade(tx: Tx, invoice: repo.InvoiceRow, subscription: repo.SubscriptionRow, now: Date): Promise<repo.SubscriptionRow> {
  const changeId = planChangeIdOf(invoice);
  if (!changeId) return subscription;
  const accountId = invoice.account_id;
  const change = await repo.findPlanChange(tx, accountId, changeId);
  if (change?.status !== 'PENDING' || change.subscription_id !== subscription.id) return subscription;
  await settleUpgradeSpend(tx, { accountId, customerId: invoice.customer_id, id: invoice.id }, now);
  if (!subscription.is_active || subscription.ended_at || subscription.plan_id !== change.from_plan_id) {
    await repo.setPlanChangeStatus(tx, accountId, change.id, 'CANCELLED');
    return subscription;
  }
  const from = (await catalog.findPlan(tx, accountId, change.from_plan_id))!;
  const to = (await catalog.findPlan(tx, accountId, change.to_plan_id))!;
  const swapped = await repo.updateSubscription(tx, { ...subscription, plan_id: to.id, modified_at: now });
  await repo.setPlanChangeStatus(tx, accountId, change.id, 'COMPLETED');
  await recordPlanChanged(tx, swapped, from, 'UPGRADE', now);
  await onPlanChanged(tx, swapped, from, to, change.id, now);
  return swapped;
}

/** What a plan change answers (200 and 202 alike): the subscription as it is now, and the invoice. */
function planChangeView(ctx: AppContext, accountId: string, subscriptionId: string, invoiceId: string | undefined) {
  return subscriptionWithInvoiceView(ctx.db, accountId, subscriptionId, invoiceId);
}

/**
 * Collects a started (or retried) paid upgrade after its transaction committed (§4.8 steps 2–3):
 * paid → the change is complete, 200; not charged → its reservations go (a customer key's hosted
 * payment will count when paid), and a customer key gets 402 (gate `complete_checkout`, url the
 * hosted invoice, poll the customer's status), the tenant 202 `payment_pending`.
 */
export async function collectPaidUpgrade(ctx: AppContext, principal: Principal, payment: UpgradePayment) {
  const { accountId } = principal;
  let outcome;
  try {
    outcome = await collectUpgradePayment.call(ctx, principal, payment);
  } catch (err) {
    // A change the processor refused for good (FAILED) charged nothing; an unknown outcome keeps its reservation.
    await withTransaction(ctx.db, async (tx) => {
      if ((await repo.findPlanChange(tx, accountId, payment.changeId))?.status !== 'FAILED') return;
      await releaseUpgradeSpend(tx, { accountId, customerId: payment.customer.id, id: payment.reservationId }, ctx.clock.now());
    });
    throw err;
  }
  if (outcome.kind !== 'hosted') {
    const invoiceId = payment.invoiceId ?? (outcome.kind === 'paid' ? outcome.invoiceId : undefined);
    return planChangeView(ctx, accountId, payment.subscriptionId, invoiceId);
  }
  if (!payment.retry) await toHostedSpend(ctx, principal, payment);
  const view = await planChangeView(ctx, accountId, payment.subscriptionId, outcome.invoiceId ?? payment.invoiceId);
  if (principal.kind === 'tenant') return { status: 'payment_pending' as const, paymentUrl: outcome.paymentUrl, ...view };
  const data = { ...view, checkoutUrl: outcome.paymentUrl, ...(outcome.declineReason ? { declineReason: outcome.declineReason } : {}) };
  throw new AppError('payment_required', UPGRADE_PAYMENT_REQUIRED_MESSAGE, {
    data,
    gate: gate('payment', 'complete_checkout', { url: outcome.paymentUrl, poll: statusPath(view.subscription.customerReferenceId) }),
  });
}

/** Not charged off-session: the reservation is given back and a customer key's hosted payment is recorded, counted when paid (§2.5). */
async function toHostedSpend(ctx: AppContext, principal: Principal, payment: UpgradePayment) {
  const now = ctx.clock.now();
  const keyId = spendingKeyOf(principal);
  await withTransaction(ctx.db, async (tx) => {
    await repo.lockSubscription(tx, principal.accountId, payment.subscriptionId);
    if ((await repo.findPlanChange(tx, principal.accountId, payment.changeId))?.status !== 'PENDING') return;
    await releaseUpgradeSpend(tx, { accountId: principal.accountId, customerId: payment.customer.id, id: payment.reservationId }, now);
    if (keyId !== null) await openHostedKeySpend(tx, { accountId: principal.accountId, keyId, id: payment.reservationId, amount: payment.amount, now });
  });
}

/**
 * Cancels a waiting paid upgrade billed by us (§4.8 step 5): its hosted page is voided at the
 * processor first, so it can no longer be paid (a page paid meanwhile is 409 there, and its payment
 * completes the change); then, under the subscription lock, our invoice is voided (`invoice.voided`),
 * the change cancelled and its money given back. A change completed meanwhile is left as it is.
 */
export async function cancelPaidUpgrade(ctx: AppContext, accountId: string, subscriptionId: string, change: { id: string; invoiceId: string }) {
  await voidUpgradePayment.call(ctx, accountId, change.invoiceId);
  const now = ctx.clock.now();
  await withTransaction(ctx.db, async (tx) => {
    const subscription = (await repo.lockSubscription(tx, accountId, subscriptionId))!;
    if ((await repo.findPlanChange(tx, accountId, change.id))?.status !== 'PENDING') return;
    const invoice = await repo.lockInvoice(tx, accountId, change.invoiceId);
    if (invoice && (invoice.status === 'DUE' || invoice.status === 'PAST_DUE')) {
      await recordInvoiceEvent(tx, 'invoice.voided', await updateInvoice(tx, { ...invoice, status: 'VOID', modified_at: now }), now);
    }
    await repo.setPlanChangeStatus(tx, accountId, change.id, 'CANCELLED');
    await releaseUpgradeSpend(tx, { accountId, customerId: subscription.customer_id, id: change.invoiceId }, now);
  });
}
