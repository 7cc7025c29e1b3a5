import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { withRolledBackTransaction, withTransaction } from '../../platform/db/transaction.js';
import { AppError, invalid, notFound } from '../../platform/errors/app-error.js';
import type { Principal } from '../../platform/http/principal.js';
import { isUuid, newId } from '../../platform/ids.js';
import { Money, dec, type Decimal } from '../../platform/money.js';
import * as catalog from '../catalog/index.js';
import type { Plan } from '../catalog/index.js';
import { getCustomerById, reserveOffSessionSpend, resolveCallerCustomer, type Customer } from '../customers/index.js';
import { basePriceLine, raiseInvoice } from './invoicing.js';
import { onPeriodPaid, onPlanChanged, onSubscriptionEnded } from './lifecycle.js';
import { cancelPaidUpgrade, collectPaidUpgrade, prorationLines, releaseUpgradeSpend, retryPaidUpgrade, spendingKeyOf, startPaidUpgrade } from './paid-upgrade.js';
import {
  changeAtProcessor,
  checkSubscribePayment,
  collectInitialPayment,
  processorDrivesSubscription,
  subscribeThroughProcessor,
  voidUpgradePayment,
  type UpgradePayment,
} from './payment-slots.js';
import { computeCancellationCredit, computeInitialPeriod } from './periods.js';
import { recordInvoiceEvent, recordPlanChanged, recordSubscriptionEvent } from './outbound.js';
import { updateInvoice } from './finalisation.js';
import * as repo from './repo.js';
import type { SubscribeRequest } from './schema.js';
import { subscriptionWithInvoiceView, toInvoiceViews, toSubscriptionView } from './views.js';

const DEFAULT_GRACE_DAYS = 3;

async function findPlanByIdOrKey(tx: Tx, accountId: string, idOrKey: string) {
  const plan = isUuid(idOrKey) ? await catalog.findPlan(tx, accountId, idOrKey) : await catalog.findPlanByKey(tx, accountId, idOrKey);
  if (!plan) throw notFound(`Plan not found: ${idOrKey}`);
  return plan;
}

function requireActivePlan(plan: Plan) {
  if (plan.status !== 'ACTIVE') {
    throw invalid(`Cannot subscribe to plan: status is ${plan.status}, only ACTIVE plans accept subscriptions`);
  }
}

type SubscribeInTransactionInput = {
  accountId: string;
  customer: Customer;
  plan: Plan;
  /** Days an unpaid invoice may stay DUE before the subscription goes past due (default 3). */
  gracePeriodDays?: number | undefined;
  /**
   * The caller a paid subscribe charges (its charge is checked, and a customer key's off-session
   * charge reserved, before anything is written), and the payment method it names. Agent signup has
   * none: its plan is free.
   */
  payer?: Payer | undefined;
  now: Date;
};

type Payer = { ctx: AppContext; principal: Principal; paymentMethodId: string | undefined };

/**
 * A paid subscribe's first invoice, checked in the subscribe transaction before anything is written
 * (contract §4.5; api-contract-agent-v2.md §2.6 steps 3–5, §4.6): payments' slot applies the spend
 * cap and says whether the invoice is charged off-session; a customer key's off-session charge is
 * then reserved against its key budget and the customer's mandate under the invoice's id (the
 * charge's idempotency key and the spend sweep name it), customer row then key budget, the
 * transaction's first locks. A refusal (gated 403) rolls the whole subscribe back. Returns whether
 * the invoice is charged off-session (then collected after commit).
 */
async function checkInitialPayment(tx: Tx, payer: Payer, charge: { plan: Plan; customer: Customer; invoiceId: string; amount: Decimal; now: Date }): Promise<boolean> {
  const { plan, customer } = charge;
  const collected = await checkSubscribePayment.call(payer.ctx, tx, payer.principal, { plan, customer, paymentMethodId: payer.paymentMethodId });
  if (!collected?.offSession) return false;
  const keyId = spendingKeyOf(payer.principal);
  if (keyId !== null && charge.amount.gt(0)) {
    await reserveOffSessionSpend(tx, {
      accountId: customer.account_id, customerId: customer.id, customerReferenceId: customer.customer_reference_id, keyId, id: charge.invoiceId, amount: charge.amount, now: charge.now,
    });
  }
  return true;
}

/**
 * The subscribe rule, inside the caller's transaction (the REST subscribe and agent signup both use
 * it). Only an ACTIVE plan accepts subscriptions. A free plan or an in-arrears plan is active at once
 * (a free in-advance plan's initial invoice is PAID and its period credits are granted); a paid
 * in-advance plan waits for its DUE initial invoice to be paid. While that invoice is still DUE, a
 * repeat returns the same subscription and invoice (checked and reserved again, replacing an
 * unsettled reservation of it). `offSession`: the DUE invoice is charged off-session after commit.
 */
export async function subscribeInTransaction(
  tx: Tx,
  input: SubscribeInTransactionInput,
): Promise<{ subscription: repo.SubscriptionRow; invoiceId: string | undefined; offSession: boolean }> {
  const { accountId, customer, plan, now } = input;
  requireActivePlan(plan);
  const pending = await repo.findPendingInitial(tx, accountId, customer.id, plan.id);
  if (pending) {
    const open = (await repo.listInvoices(tx, accountId, { subscriptionId: pending.id, statuses: ['DUE'] }))[0];
    const offSession = open && input.payer ? await checkInitialPayment(tx, input.payer, { plan, customer, invoiceId: open.id, amount: dec(open.amount), now }) : false;
    return { subscription: pending, invoiceId: open?.id, offSession };
  }
  const period = computeInitialPeriod(now, plan.interval_months!);
  const price = dec(plan.price_amount ?? '0');
  const inArrears = plan.billing_timing === 'IN_ARREARS';
  const activeAtOnce = price.isZero() || inArrears;
  // Named before it is written: a customer key's charge is reserved under it first.
  const invoiceId = newId();
  const amount = Money.of(price, plan.currency).rounded().amount;
  const offSession = !activeAtOnce && input.payer ? await checkInitialPayment(tx, input.payer, { plan, customer, invoiceId, amount, now }) : false;
  const subscription = await repo.insertSubscription(tx, {
    id: newId(),
    account_id: accountId,
    customer_id: customer.id,
    plan_id: plan.id,
    is_active: activeAtOnce,
    entitlements_revoked: false,
    grace_period_days: input.gracePeriodDays ?? DEFAULT_GRACE_DAYS,
    current_period_start: period.start,
    current_period_end: period.end,
    billing_anchor_day: period.anchorDay,
    cancel_mode: null,
    cancel_effective_at: null,
    cancelled_at: null,
    ended_at: null,
    metadata: {},
    created_at: now,
    modified_at: now,
  });
  // Events in the contract's order: subscription.created, invoice.created (and invoice.paid when
  // free), subscription.activated, then the period's credits.granted (onPeriodPaid).
  await recordSubscriptionEvent(tx, 'subscription.created', subscription, now);
  const { invoice } = await raiseInvoice(tx, {
    id: invoiceId,
    subscription,
    type: inArrears ? 'REGULAR' : 'IN_ADVANCE_INITIAL',
    status: inArrears ? 'PENDING' : price.isZero() ? 'PAID' : 'DUE',
    currency: plan.currency,
    dueDate: inArrears ? period.end : now,
    period,
    lines: inArrears ? [] : [basePriceLine(plan)],
    now,
  });
  if (activeAtOnce) {
    await recordSubscriptionEvent(tx, 'subscription.activated', subscription, now);
    await onPeriodPaid(tx, subscription, plan, period, now);
  }
  return { subscription, invoiceId: invoice.id, offSession };
}

/**
 * Subscribes the caller's customer (Client API): resolves customer and plan, applies the subscribe
 * rule, then collects a DUE initial invoice (off-session charge, or 402 with a hosted checkout).
 */
export async function subscribe(ctx: AppContext, principal: Principal, input: SubscribeRequest, options: { returnBaseUrl?: string } = {}) {
  const planRef = input.planId ?? input.planKey;
  if (!planRef) throw invalid('Validation failed: planId: is required', { fields: [{ field: 'planId', message: 'is required' }] });
  const delegated = await subscribeElsewhere(ctx, principal, input, planRef, options.returnBaseUrl ?? ctx.config.publicBaseUrl ?? 'http://localhost');
  if (delegated) return delegated;
  const now = ctx.clock.now();
  const { subscription, invoiceId, offSession, payment } = await withTransaction(ctx.db, async (tx) => {
    const customer = await resolveCallerCustomer(tx, principal, input.customerReferenceId);
    const plan = await findPlanByIdOrKey(tx, principal.accountId, planRef);
    const payer = { ctx, principal, paymentMethodId: input.paymentMethodId };
    const result = await subscribeInTransaction(tx, { accountId: principal.accountId, customer, plan, gracePeriodDays: input.gracePeriod, payer, now });
    return { ...result, payment: { plan, customer, paymentMethodId: input.paymentMethodId } };
  });
  const invoice = invoiceId ? await repo.findInvoice(ctx.db, principal.accountId, invoiceId) : undefined;
  if (invoice?.status === 'DUE' && invoice.type === 'IN_ADVANCE_INITIAL') {
    const outcome = await collectInitialPayment.call(ctx, principal, { ...payment, subscription, invoice, offSession });
    if (outcome.kind === 'checkout') {
      const result = await subscribeResult(ctx, principal.accountId, subscription.id, invoiceId);
      const { kind: _kind, ...checkout } = outcome;
      throw new AppError('payment_required', 'A payment method is required; hand checkoutUrl to your principal and poll the checkout session', { data: { ...result, ...checkout } });
    }
  }
  return subscribeResult(ctx, principal.accountId, subscription.id, invoiceId);
}

/**
 * A paid in-advance subscribe the processor takes over (PROCESSOR_INTEGRATION): the subscription it
 * created, or `subscription: null, invoice: null` and the checkout it will come from (402 when the
 * provider says payment is required, else 201 with the same data).
 */
async function subscribeElsewhere(ctx: AppContext, principal: Principal, input: SubscribeRequest, planRef: string, returnBaseUrl: string) {
  if (!subscribeThroughProcessor.isProvided()) return null;
  const { customer, plan } = await withTransaction(ctx.db, async (tx) => {
    const customer = await resolveCallerCustomer(tx, principal, input.customerReferenceId);
    const plan = await findPlanByIdOrKey(tx, principal.accountId, planRef);
    requireActivePlan(plan);
    return { customer, plan };
  });
  if (plan.billing_timing === 'IN_ARREARS' || dec(plan.price_amount ?? '0').isZero()) return null;
  const outcome = await subscribeThroughProcessor.call(ctx, principal, { plan, customer, paymentMethodId: input.paymentMethodId, returnBaseUrl });
  if (!outcome) return null;
  if (outcome.kind === 'subscribed') {
    const initial = (await repo.listInvoices(ctx.db, principal.accountId, { subscriptionId: outcome.subscriptionId })).find((i) => i.type === 'IN_ADVANCE_INITIAL');
    return subscribeResult(ctx, principal.accountId, outcome.subscriptionId, initial?.id);
  }
  const { kind: _kind, paymentRequired, ...checkout } = outcome;
  const data = { subscription: null, invoice: null, ...checkout };
  if (paymentRequired) throw new AppError('payment_required', 'A payment method is required; hand checkoutUrl to your principal and poll the checkout session', { data });
  return data;
}

/** The subscribe reply, read after every write (a payment may have activated the subscription). */
async function subscribeResult(ctx: AppContext, accountId: string, subscriptionId: string, invoiceId: string | undefined) {
  return {
    ...(await subscriptionWithInvoiceView(ctx.db, accountId, subscriptionId, invoiceId)),
    checkoutUrl: null,
    checkoutSessionId: null,
  };
}

/** Locks a subscription the caller may act on: a customer key only its own customer's. */
async function lockCallerSubscription(tx: Tx, principal: Principal, subscriptionId: string) {
  const subscription = await repo.lockSubscription(tx, principal.accountId, subscriptionId);
  if (!subscription) throw notFound(`Subscription not found: ${subscriptionId}`);
  if (principal.kind === 'customer' && subscription.customer_id !== principal.customerId) {
    throw new AppError('forbidden', 'This API key is scoped to another customer');
  }
  return subscription;
}

function requireNotEnded(subscription: repo.SubscriptionRow) {
  if (subscription.ended_at || subscription.cancel_mode === 'IMMEDIATE') throw invalid('Subscription is already cancelled');
}

/**
 * END_OF_PERIOD: the subscription stays active until its period ends (the cycle job ends it).
 * IMMEDIATE: it ends now; open invoices are voided and an in-advance plan gets a CREDIT invoice for
 * the unused share of the period.
 */
export async function cancelSubscription(ctx: AppContext, principal: Principal, subscriptionId: string, mode: 'END_OF_PERIOD' | 'IMMEDIATE') {
  // A portal link's customer may stop renewing, never end what is paid for now (api-contract-money.md §3.3).
  if (mode === 'IMMEDIATE' && principal.kind === 'customer' && principal.portalSessionId !== undefined) {
    throw new AppError('forbidden', 'A portal link can only cancel at the end of the period');
  }
  const now = ctx.clock.now();
  const voided: string[] = [];
  const elsewhere = await withTransaction(ctx.db, async (tx) => {
    const subscription = await lockCallerSubscription(tx, principal, subscriptionId);
    requireNotEnded(subscription);
    if (await processorDrivesSubscription.call(tx, principal.accountId, subscription.id)) return true;
    if (mode === 'END_OF_PERIOD') {
      await repo.updateSubscription(tx, { ...subscription, cancel_mode: mode, cancel_effective_at: subscription.current_period_end, cancelled_at: now, modified_at: now });
      return false;
    }
    const waiting = await repo.findPendingChange(tx, principal.accountId, subscription.id);
    const waitingInvoice = waiting?.type === 'UPGRADE' ? await repo.findPlanChangeInvoice(tx, principal.accountId, subscription.id, waiting.id) : undefined;
    if (waitingInvoice) voided.push(waitingInvoice.id);
    const plan = (await catalog.findPlan(tx, principal.accountId, subscription.plan_id))!;
    // Events in the contract's order: invoice.voided (each), invoice.created (the CREDIT invoice),
    // credits.expired (the claw-back, onSubscriptionEnded), subscription.canceled.
    for (const open of await repo.lockOpenInvoices(tx, principal.accountId, subscription.id)) {
      await recordInvoiceEvent(tx, 'invoice.voided', await updateInvoice(tx, { ...open, status: 'VOID', modified_at: now }), now);
    }
    const wasPaid = subscription.is_active;
    const ended = await repo.updateSubscription(tx, {
      ...subscription,
      is_active: false,
      current_period_end: now,
      cancel_mode: mode,
      cancel_effective_at: now,
      cancelled_at: now,
      ended_at: now,
      modified_at: now,
    });
    await repo.cancelPendingChanges(tx, principal.accountId, subscription.id);
    const price = dec(plan.price_amount ?? '0');
    if (wasPaid && plan.billing_timing === 'IN_ADVANCE' && price.gt(0)) {
      const credit = computeCancellationCredit({ start: subscription.current_period_start, end: subscription.current_period_end, now, price: Money.of(price, plan.currency) });
      if (!credit.isZero()) {
        await raiseInvoice(tx, {
          subscription: ended,
          type: 'CREDIT',
          status: 'PAID',
          currency: plan.currency,
          dueDate: now,
          period: { start: subscription.current_period_start, end: subscription.current_period_end },
          lines: [{ description: `Refund for unused period: ${plan.name ?? plan.key}`, amount: credit.amount }],
          now,
        });
      }
    }
    await onSubscriptionEnded(tx, ended, now);
    await recordSubscriptionEvent(tx, 'subscription.canceled', ended, now);
    return false;
  });
  // The processor drives it: our state follows from its answer (and its webhooks).
  if (elsewhere) await changeAtProcessor.call(ctx, principal.accountId, subscriptionId, { kind: 'cancel', mode });
  // A waiting paid upgrade's hosted page is voided there too (best effort: ours is VOID already).
  for (const invoiceId of voided) await voidUpgradePayment.call(ctx, principal.accountId, invoiceId).catch(() => undefined);
}

export async function undoScheduledCancellation(ctx: AppContext, principal: Principal, subscriptionId: string) {
  const now = ctx.clock.now();
  const elsewhere = await withTransaction(ctx.db, async (tx) => {
    const subscription = await lockCallerSubscription(tx, principal, subscriptionId);
    if (subscription.ended_at) throw invalid('Subscription is already cancelled');
    if (!subscription.cancel_effective_at) throw invalid('No cancellation is scheduled for this subscription');
    if (await processorDrivesSubscription.call(tx, principal.accountId, subscription.id)) return true;
    await repo.updateSubscription(tx, { ...subscription, cancel_mode: null, cancel_effective_at: null, cancelled_at: null, modified_at: now });
    return false;
  });
  if (elsewhere) await changeAtProcessor.call(ctx, principal.accountId, subscriptionId, { kind: 'undo_cancel' });
}

type PlanChangeInput = { changeToPlanId: string; changeType: 'UPGRADE' | 'DOWNGRADE'; paymentMethodId?: string | undefined };

/**
 * UPGRADE takes effect now: both in advance → an ADJUSTMENT invoice for the prorated difference;
 * in arrears → the plan swaps with no invoice. DOWNGRADE is scheduled for the period end, replacing
 * any other pending change. Mixing billing timings is refused. An upgrade whose proration costs
 * money, asked with an API key while a processor collects payments, moves only once paid
 * (api-contract-agent-v2.md §4.8, paid-upgrade.ts): 200 when charged off-session, else 402 with the
 * gate (customer key) or 202 `payment_pending` (tenant key).
 */
export async function changePlan(ctx: AppContext, principal: Principal, subscriptionId: string, input: PlanChangeInput) {
  const now = ctx.clock.now();
  const result = await withTransaction(ctx.db, (tx) => applyPlanChange(ctx, tx, principal, subscriptionId, input, now, { collect: true }));
  if (result.payment) return collectPaidUpgrade(ctx, principal, result.payment);
  let invoiceId = result.invoiceId;
  if (result.atProcessor) {
    const { changeId, toPlan } = result.atProcessor;
    ({ invoiceId } = await changeAtProcessor.call(ctx, principal.accountId, subscriptionId, { kind: 'plan_change', changeId, changeType: input.changeType, toPlan }));
  }
  const view = await subscribeResult(ctx, principal.accountId, result.subscription.id, invoiceId);
  return { subscription: view.subscription, invoice: view.invoice };
}

/**
 * What changePlan would answer now, without keeping anything: the same rule runs in a transaction
 * that is rolled back (its domain events' writes with it; no after-commit hook, no processor call).
 * Where the processor drives billing, the change waits for it and its proration is the processor's:
 * the preview shows the pending change and no invoice. A paid upgrade is previewed as paid (the
 * answer of its off-session charge, invoice DUE): no spend check, no charge.
 */
export async function previewPlanChange(ctx: AppContext, principal: Principal, subscriptionId: string, input: PlanChangeInput) {
  const now = ctx.clock.now();
  return withRolledBackTransaction(ctx.db, async (tx) => {
    const { subscription, invoiceId } = await applyPlanChange(ctx, tx, principal, subscriptionId, input, now, { collect: false });
    const invoice = invoiceId ? await repo.findInvoice(tx, principal.accountId, invoiceId) : undefined;
    return {
      subscription: await toSubscriptionView(tx, (await repo.findSubscription(tx, principal.accountId, subscription.id))!),
      invoice: invoice ? (await toInvoiceViews(tx, principal.accountId, [invoice]))[0]! : null,
    };
  });
}

type AppliedPlanChange = {
  subscription: repo.SubscriptionRow;
  invoiceId: string | undefined;
  /** The change the processor is still to make (it drives this subscription's billing). */
  atProcessor?: { changeId: string; toPlan: Plan };
  /** A paid upgrade waiting for its payment, to collect after commit (§4.8). */
  payment?: UpgradePayment;
};

/**
 * The plan change rule inside the caller's transaction (the change and its preview both run it).
 * `collect`: a paid upgrade waits for its payment (the change); the preview shows it as paid.
 */
async function applyPlanChange(
  ctx: AppContext,
  tx: Tx,
  principal: Principal,
  subscriptionId: string,
  input: PlanChangeInput,
  now: Date,
  options: { collect: boolean },
): Promise<AppliedPlanChange> {
  const subscription = await lockCallerSubscription(tx, principal, subscriptionId);
  if (!subscription.is_active || subscription.ended_at) throw invalid('Only an active subscription can change plan');
  const from = (await catalog.findPlan(tx, principal.accountId, subscription.plan_id))!;
  const to = await findPlanByIdOrKey(tx, principal.accountId, input.changeToPlanId);
  if (to.id === from.id) throw invalid(`Cannot ${input.changeType.toLowerCase()} to the same plan`);
  if (to.status !== 'ACTIVE') throw invalid(`Cannot change to plan: status is ${to.status}, only ACTIVE plans accept subscriptions`);
  if (to.billing_timing !== from.billing_timing) throw invalid('Cannot change between IN_ADVANCE and IN_ARREARS plans');
  if (to.interval_months !== from.interval_months) throw invalid('Cannot change to a plan with a different intervalMonths');
  if (to.currency !== from.currency) throw invalid('Cannot change to a plan with a different currency');
  // Where the processor drives billing, every change stays PENDING until the processor applies it
  // (an upgrade once its proration invoice is paid, a downgrade when its period starts: external.ts).
  const elsewhere = await processorDrivesSubscription.call(tx, principal.accountId, subscription.id);
  const paid = async () => ({ subscription, from, to, customer: await getCustomerById(tx, principal.accountId, subscription.customer_id), processorDriven: elsewhere, paymentMethodId: input.paymentMethodId, now });
  const waiting = await repo.findPendingChange(tx, principal.accountId, subscription.id);
  if (waiting?.type === 'UPGRADE') return retryPaidUpgrade(tx, principal, { ...(await paid()), waiting });
  await repo.cancelPendingChanges(tx, principal.accountId, subscription.id);
  if (input.changeType === 'UPGRADE' && options.collect) {
    const started = await startPaidUpgrade(ctx, tx, principal, await paid());
    if (started) return started;
  }
  const change = await repo.insertPlanChange(tx, {
    id: newId(),
    account_id: principal.accountId,
    subscription_id: subscription.id,
    type: input.changeType,
    from_plan_id: from.id,
    to_plan_id: to.id,
    status: input.changeType === 'UPGRADE' && !elsewhere ? 'COMPLETED' : 'PENDING',
    effective_at: input.changeType === 'UPGRADE' ? now : subscription.current_period_end,
    created_at: now,
  });
  if (elsewhere) return { subscription, invoiceId: undefined, atProcessor: { changeId: change.id, toPlan: to } };
  if (input.changeType === 'DOWNGRADE') return { subscription, invoiceId: undefined };
  const swapped = await repo.updateSubscription(tx, { ...subscription, plan_id: to.id, modified_at: now });
  await recordPlanChanged(tx, swapped, from, 'UPGRADE', now);
  let invoiceId: string | undefined;
  if (from.billing_timing === 'IN_ADVANCE') {
    const { invoice } = await raiseInvoice(tx, {
      subscription: swapped,
      type: 'ADJUSTMENT',
      status: 'DUE',
      currency: to.currency,
      dueDate: now,
      period: { start: now, end: subscription.current_period_end },
      lines: prorationLines(subscription, from, to, now),
      now,
    });
    invoiceId = invoice.id;
  }
  await onPlanChanged(tx, swapped, from, to, change.id, now);
  return { subscription: swapped, invoiceId };
}

/**
 * Cancels pending changes. Where the processor drives billing, a pending change was already sent to
 * it (a downgrade's price is in place for the next period, an upgrade's proration invoice open): the
 * processor is put back on the current plan first (the open proration voided), then ours is
 * cancelled, so a refusal leaves both as they were. A paid upgrade waiting on our invoice has its
 * hosted page voided at the processor first, then our invoice (paid-upgrade.ts).
 */
export async function cancelScheduledPlanChange(ctx: AppContext, principal: Principal, subscriptionId: string) {
  const { accountId } = principal;
  const found = await withTransaction(ctx.db, async (tx) => {
    const subscription = await lockCallerSubscription(tx, principal, subscriptionId);
    const pending = await repo.findPendingChange(tx, accountId, subscriptionId);
    if (pending && (await processorDrivesSubscription.call(tx, accountId, subscriptionId))) {
      return { kind: 'processor' as const, change: pending, plan: (await catalog.findPlan(tx, accountId, subscription.plan_id))! };
    }
    const invoice = pending?.type === 'UPGRADE' ? await repo.findPlanChangeInvoice(tx, accountId, subscriptionId, pending.id) : undefined;
    if (pending && invoice) return { kind: 'invoice' as const, change: { id: pending.id, invoiceId: invoice.id } };
    await repo.cancelPendingChanges(tx, accountId, subscriptionId);
    return null;
  });
  if (found?.kind === 'invoice') return cancelPaidUpgrade(ctx, accountId, subscriptionId, found.change);
  if (!found) return;
  await changeAtProcessor.call(ctx, accountId, subscriptionId, { kind: 'undo_plan_change', plan: found.plan, voidProration: found.change.type === 'UPGRADE' });
  await withTransaction(ctx.db, async (tx) => {
    const subscription = (await repo.lockSubscription(tx, accountId, subscriptionId))!;
    await repo.cancelPendingChanges(tx, accountId, subscriptionId);
    await releaseUpgradeSpend(tx, { accountId, customerId: subscription.customer_id, id: found.change.id }, ctx.clock.now());
  });
}

export async function getSubscriptionView(ctx: AppContext, accountId: string, id: string) {
  const row = await repo.findSubscription(ctx.db, accountId, id);
  if (!row) throw notFound(`Subscription not found: ${id}`);
  return toSubscriptionView(ctx.db, row);
}

export async function listCustomerSubscriptionViews(ctx: AppContext, accountId: string, customerId: string) {
  const rows = await repo.listCustomerSubscriptions(ctx.db, accountId, customerId);
  return Promise.all(rows.map((r) => toSubscriptionView(ctx.db, r)));
}
