import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { AppError, conflict } from '../../../platform/errors/app-error.js';
import { failExternalPlanChange, findSubscription, type ProcessorChange, type UpgradePayment, type UpgradePaymentOutcome } from '../../billing/index.js';
import type { Plan } from '../../catalog/index.js';
import { getAccountSettings } from '../../settings/index.js';
import { connectedProcessor } from '../connection.js';
import { METADATA } from '../events.js';
import { ensurePlanPrices } from '../plan-sync.js';
import { applyProcessorInvoice, linkProcessorSubscription } from './apply.js';
import { licensedItem } from './subscriptions.js';
import {
  isCardError,
  isInvalidRequestError,
  processorMessage,
  type Processor,
  type ProcessorInvoice,
  type ProcessorItemChange,
  type ProcessorSubscription,
} from './stripe.js';
import * as repo from '../repo.js';

/**
 * Cancel and plan change through our API for a subscription the processor drives
 * (PROCESSOR_INTEGRATION, contract §4.5, §6.3). Billing has checked and committed what it must
 * (a plan change is recorded PENDING first: its id keys the processor call); here the processor is
 * asked, outside any transaction, and its answer is applied like its webhooks are (idempotent,
 * forward only), so whichever of the answer and the webhook comes first sets our state.
 *
 * - cancel END_OF_PERIOD / undo: `cancel_at_period_end` true / false;
 * - cancel IMMEDIATE: the subscription is cancelled with a prorated final invoice (a credit for the
 *   unused period, as our CREDIT invoice; no money moves);
 * - UPGRADE: the licensed item moves to the new plan's price, prorated and invoiced now; with
 *   `pending_if_incomplete` the processor applies it only once that invoice is paid, and then ours swaps;
 * - DOWNGRADE: the item moves to the new price without proration, so the next period is billed at
 *   it; ours swaps when that period starts;
 * - undoing a pending change puts the item back on the current plan's price; an upgrade's open
 *   proration invoice is voided first (paid meanwhile: 409, the payment applies the upgrade);
 * - a paid upgrade asked with an API key (api-contract-agent-v2.md §4.8, `upgradeAtProcessor`):
 *   the UPGRADE above, then paid (ours swapped) or its open proration invoice handed over to be paid.
 */

/** True when the subscription is the processor's (billing's `processorDrivesSubscription` slot). */
export async function processorDrivesSubscription(db: Executor, accountId: string, subscriptionId: string): Promise<boolean> {
  if ((await getAccountSettings(db, accountId)).stripeMode !== 'PROCESSOR_INTEGRATION') return false;
  const link = await repo.findProcessorSubscription(db, accountId, subscriptionId);
  return Boolean(link?.processor_subscription_id);
}

export async function changeAtProcessor(ctx: AppContext, accountId: string, subscriptionId: string, change: ProcessorChange): Promise<{ invoiceId: string | undefined }> {
  const { processor, id } = await linkedProcessor(ctx, accountId, subscriptionId);
  // The proration first: once voided it can no longer be paid, so putting the price back is safe.
  const voided = change.kind === 'undo_plan_change' && change.voidProration ? await voidOpenProration(processor, id) : undefined;
  const answer = await sendChange(ctx, processor, accountId, id, change);
  const invoice = change.kind === 'plan_change' && change.changeType === 'UPGRADE' ? await prorationInvoice(processor, answer) : voided;
  const mirrored = await applyAnswer(ctx, accountId, answer, invoice);
  return { invoiceId: mirrored };
}

/**
 * A paid upgrade where the processor drives the subscription (billing's `collect_upgrade_payment`
 * slot, §4.8): the processor charges the subscription's own method for the proration and applies
 * the new price only once it is paid. Paid → ours swapped from the answer (external.ts counts the
 * key's money); not paid → the open proration invoice is the hosted page. A retry while the change
 * waits reads the processor's subscription first (a lost answer, a page paid since) and sends the
 * change again (same idempotency key) only when it shows neither.
 */
export async function upgradeAtProcessor(ctx: AppContext, accountId: string, payment: UpgradePayment): Promise<UpgradePaymentOutcome> {
  const { processor, id } = await linkedProcessor(ctx, accountId, payment.subscriptionId);
  if (payment.retry) {
    let current: ProcessorSubscription;
    try {
      current = await processor.retrieveSubscription(id);
    } catch (err) {
      throw new AppError('vendor_error', `Stripe did not answer for the subscription: ${processorMessage(err)}`, { cause: err });
    }
    const outcome = await upgradeOutcome(ctx, accountId, payment, current, await prorationInvoice(processor, current));
    if (outcome.kind !== 'unknown') return outcome;
  }
  const change: ProcessorChange = { kind: 'plan_change', changeId: payment.changeId, changeType: 'UPGRADE', toPlan: payment.toPlan };
  const answer = await sendChange(ctx, processor, accountId, id, change);
  return upgradeOutcome(ctx, accountId, payment, answer, await prorationInvoice(processor, answer));
}

async function upgradeOutcome(ctx: AppContext, accountId: string, payment: UpgradePayment, answer: ProcessorSubscription, invoice: ProcessorInvoice | undefined): Promise<UpgradePaymentOutcome> {
  const invoiceId = await applyAnswer(ctx, accountId, answer, invoice);
  if ((await findSubscription(ctx.db, accountId, payment.subscriptionId))?.plan_id === payment.toPlan.id) return { kind: 'paid', invoiceId };
  if (invoice?.status === 'open' && invoice.hosted_invoice_url) return { kind: 'hosted', paymentUrl: invoice.hosted_invoice_url, invoiceId };
  return { kind: 'unknown' };
}

async function linkedProcessor(ctx: AppContext, accountId: string, subscriptionId: string): Promise<{ processor: Processor; id: string }> {
  const link = await repo.findProcessorSubscription(ctx.db, accountId, subscriptionId);
  const processor = await connectedProcessor(ctx, accountId);
  if (!link?.processor_subscription_id || !processor) throw new AppError('vendor_error', 'Stripe is not connected for this account');
  return { processor, id: link.processor_subscription_id };
}

/**
 * Sends the change. Failed before the change was sent, or refused: final (a plan change FAILED). An
 * unknown outcome of the change itself (5xx, timeout) leaves it PENDING: the processor may have
 * applied it, and its webhook says so.
 */
async function sendChange(ctx: AppContext, processor: Processor, accountId: string, id: string, change: ProcessorChange): Promise<ProcessorSubscription> {
  const progress = { sent: false };
  try {
    return await requestChange(ctx, processor, id, change, progress);
  } catch (err) {
    const final = !progress.sent || isInvalidRequestError(err) || isCardError(err);
    if (change.kind === 'plan_change' && final) await withTransaction(ctx.db, (tx) => failExternalPlanChange(tx, accountId, change.changeId));
    if (err instanceof AppError) throw err;
    throw new AppError('vendor_error', `Stripe refused the subscription change: ${processorMessage(err)}`, { cause: err });
  }
}

/** The processor's answer applied as its webhooks are (never inside a transaction with the call); our copy of `invoice`, if any. */
async function applyAnswer(ctx: AppContext, accountId: string, answer: ProcessorSubscription, invoice: ProcessorInvoice | undefined): Promise<string | undefined> {
  await withTransaction(ctx.db, async (tx) => {
    const now = ctx.clock.now();
    await linkProcessorSubscription(tx, accountId, answer, now);
    if (invoice) await applyProcessorInvoice(tx, accountId, invoice, now);
  });
  return invoice?.id ? (await repo.findMirroredInvoice(ctx.db, accountId, invoice.id))?.invoice_id : undefined;
}

/**
 * Voids the subscription's open proration invoice (an upgrade's, not yet paid) so nobody can pay it
 * after the upgrade is undone; a paid one is 409 (its payment applies the upgrade). Returns the voided
 * invoice to mirror, or undefined when there is none.
 */
async function voidOpenProration(processor: Processor, id: string): Promise<ProcessorInvoice | undefined> {
  let invoice: ProcessorInvoice | undefined;
  try {
    invoice = await prorationInvoice(processor, await processor.retrieveSubscription(id), { strict: true });
    if (invoice?.status === 'open') return await processor.voidInvoice(invoice.id!);
  } catch (err) {
    // Refused because it is no longer open (paid a moment ago): read it again below.
    if (!invoice?.id || !isInvalidRequestError(err)) throw new AppError('vendor_error', `Stripe did not void the upgrade's invoice: ${processorMessage(err)}`, { cause: err });
    const id = invoice.id;
    invoice = await processor.retrieveInvoice(id).catch(() => invoice);
  }
  if (invoice?.status === 'paid') throw conflict("The upgrade's invoice is already paid; the upgrade applies with its payment");
  return undefined;
}

async function requestChange(ctx: AppContext, processor: Processor, id: string, change: ProcessorChange, progress: { sent: boolean }): Promise<ProcessorSubscription> {
  progress.sent = change.kind === 'cancel' || change.kind === 'undo_cancel';
  switch (change.kind) {
    case 'cancel':
      return change.mode === 'IMMEDIATE'
        ? processor.cancelSubscriptionNow(id)
        : processor.setCancelAtPeriodEnd(id, true);
    case 'undo_cancel':
      return processor.setCancelAtPeriodEnd(id, false);
    case 'plan_change': {
      const upgrade = change.changeType === 'UPGRADE';
      const items = await itemsFor(ctx, processor, id, change.toPlan);
      progress.sent = true;
      return processor.changeSubscriptionItems(id, { items, invoiceNow: upgrade }, `tally-plan-change-${change.changeId}`);
    }
    case 'undo_plan_change': {
      const items = await itemsFor(ctx, processor, id, change.plan);
      progress.sent = true;
      return processor.changeSubscriptionItems(id, { items, invoiceNow: false });
    }
  }
}

/**
 * The item changes that put a processor subscription on `plan`: its base item on the plan's price,
 * each metered item on the plan's metered price for the same feature (the meter stays, so the
 * period's usage so far carries over), and a metered item added for a feature it had none for.
 * Metered items of features the plan does not price are left as they are.
 */
async function itemsFor(ctx: AppContext, processor: Processor, id: string, plan: Plan): Promise<ProcessorItemChange[]> {
  const current = await processor.retrieveSubscription(id);
  const base = licensedItem(current);
  if (!base) throw new AppError('vendor_error', `Stripe subscription ${id} has no item to change`);
  const prices = await ensurePlanPrices(ctx, processor, plan);
  const meteredItems = (current.items?.data ?? []).filter((i) => i.price?.recurring?.usage_type === 'metered');
  return [
    { id: base.id, price: prices.priceId },
    ...prices.metered.map((m) => {
      const existing = meteredItems.find((i) => i.price.metadata?.[METADATA.feature] === m.featureId);
      return existing ? { id: existing.id, price: m.priceId } : { price: m.priceId };
    }),
  ];
}

/**
 * The upgrade's proration invoice (the subscription's latest, raised by a subscription update), so the
 * answer can show it; a lost answer here is left to the webhook (`strict`: the error is the caller's).
 */
async function prorationInvoice(processor: Processor, subscription: ProcessorSubscription, options: { strict?: boolean } = {}): Promise<ProcessorInvoice | undefined> {
  const id = typeof subscription.latest_invoice === 'string' ? subscription.latest_invoice : subscription.latest_invoice?.id;
  if (!id) return undefined;
  try {
    const invoice = await processor.retrieveInvoice(id);
    return invoice.billing_reason === 'subscription_update' ? invoice : undefined;
  } catch (err) {
    if (options.strict) throw err;
    return undefined;
  }
}
