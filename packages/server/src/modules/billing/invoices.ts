import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db/transaction.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { conflict, invalid, notFound } from '../../platform/errors/app-error.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import type { Principal } from '../../platform/http/principal.js';
import { dec } from '../../platform/money.js';
import * as catalog from '../catalog/index.js';
import { claimCustomer, resolveCallerCustomer } from '../customers/index.js';
import { getAccountSettings } from '../settings/index.js';
import { onPeriodPaid } from './lifecycle.js';
import { completePaidUpgrade } from './paid-upgrade.js';
import { recordInvoiceEvent, recordSubscriptionEvent } from './outbound.js';
import { updateInvoice } from './finalisation.js';
import * as repo from './repo.js';
import { toInvoiceViews } from './views.js';

/**
 * Mark-paid (contract §4.8): settles a DUE or PAST_DUE invoice by hand. Refused when the processor
 * drives billing (PROCESSOR_INTEGRATION): there invoices are paid through the processor.
 */
export async function markInvoicePaid(ctx: AppContext, accountId: string, invoiceId: string) {
  const { stripeMode } = await getAccountSettings(ctx.db, accountId);
  if (stripeMode === 'PROCESSOR_INTEGRATION') {
    throw invalid('Manual invoice payment is not available for Stripe-integrated accounts. Invoices are paid through Stripe.');
  }
  const now = ctx.clock.now();
  const paid = await withTransaction(ctx.db, async (tx) => {
    const invoice = await settleInvoice(tx, accountId, invoiceId, now);
    if (!invoice) throw notFound(`Invoice not found: ${invoiceId}`);
    return invoice;
  });
  return (await toInvoiceViews(ctx.db, accountId, [paid]))[0]!;
}

/**
 * Settles a DUE or PAST_DUE invoice inside the caller's transaction (mark-paid, and the processor's
 * `invoice.paid` webhook). The invoice row is locked first, so concurrent settlements run one after
 * the other and the second finds it PAID: a no-op that grants nothing again. Paying the initial
 * invoice activates the subscription (and grants its period's plan credits); paying the last
 * past-due invoice restores its entitlements. VOID or CANCELLED invoices cannot be paid (409).
 * Returns undefined for an unknown invoice. Records `invoice.paid` (not for a CREDIT invoice), then
 * `subscription.activated` when it activates, or completes the upgrade a paid upgrade's invoice waits
 * for (its plan change and credit difference); `beforeSettled` runs under the lock only when this call
 * settles it (the payments module records the processor's payment there, once per settlement).
 */
export async function settleInvoice(
  tx: Tx,
  accountId: string,
  invoiceId: string,
  now: Date,
  beforeSettled?: (invoice: repo.InvoiceRow) => Promise<void>,
): Promise<repo.InvoiceRow | undefined> {
  const invoice = await repo.lockInvoice(tx, accountId, invoiceId);
  if (!invoice) return undefined;
  if (invoice.status === 'PAID') return invoice;
  if (invoice.status !== 'DUE' && invoice.status !== 'PAST_DUE') {
    throw conflict(`Invoice is ${invoice.status} and cannot be paid`);
  }
  const subscription = (await repo.lockSubscription(tx, accountId, invoice.subscription_id))!;
  if (beforeSettled) await beforeSettled(invoice);
  const updated = await updateInvoice(tx, { ...invoice, status: 'PAID', paid_at: now, modified_at: now });
  if (updated.type !== 'CREDIT') await recordInvoiceEvent(tx, 'invoice.paid', updated, now);
  // An invoice paid with money claims a provisional agent customer (api-contract-agent-v2.md §4.7); the free signup invoice does not.
  if (dec(updated.amount).gt(0)) await claimCustomer(tx, accountId, updated.customer_id, now);
  // A paid upgrade's invoice completes the change it waits for (api-contract-agent-v2.md §4.8).
  let next = await completePaidUpgrade(tx, updated, subscription, now);
  // is_active never goes back to false but at the end (final), so this is its first activation.
  if (invoice.type === 'IN_ADVANCE_INITIAL' && !subscription.is_active && !subscription.ended_at && !subscription.cancelled_at) {
    next = await repo.updateSubscription(tx, { ...subscription, is_active: true, modified_at: now });
    await recordSubscriptionEvent(tx, 'subscription.activated', next, now);
    const plan = (await catalog.findPlan(tx, accountId, subscription.plan_id))!;
    await onPeriodPaid(tx, next, plan, { start: subscription.current_period_start, end: subscription.current_period_end }, now);
  }
  if (invoice.status === 'PAST_DUE' && next.entitlements_revoked && !(await repo.hasPastDue(tx, accountId, subscription.id))) {
    await repo.updateSubscription(tx, { ...next, entitlements_revoked: false, modified_at: now });
  }
  return updated;
}

/**
 * A customer's invoices, newest first. A customer principal (a portal token: the route is open to
 * portal sessions, ADR 0025) reaches only its own customer: another reference is 403.
 */
export async function listCustomerInvoicePage(ctx: AppContext, principal: Principal, ref: string, page: PageQuery) {
  const { accountId } = principal;
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const [rows, total] = await Promise.all([
    repo.listInvoices(ctx.db, accountId, { customerId: customer.id, limit: page.limit, offset: page.offset }),
    repo.countInvoices(ctx.db, accountId, customer.id),
  ]);
  return toPage(await toInvoiceViews(ctx.db, accountId, rows), total, page);
}

export async function listAccountInvoices(ctx: AppContext, accountId: string, filter: { onlyDue?: boolean; customerId?: string }) {
  const rows = await repo.listInvoices(ctx.db, accountId, {
    ...(filter.customerId ? { customerId: filter.customerId } : {}),
    ...(filter.onlyDue ? { statuses: ['DUE', 'PAST_DUE'] as const satisfies repo.InvoiceRow['status'][] } : {}),
  });
  return toInvoiceViews(ctx.db, accountId, rows);
}

export async function getInvoice(ctx: AppContext, accountId: string, invoiceId: string) {
  const row = await repo.findInvoice(ctx.db, accountId, invoiceId);
  if (!row) throw notFound(`Invoice not found: ${invoiceId}`);
  return (await toInvoiceViews(ctx.db, accountId, [row]))[0]!;
}

/** The subscription's oldest DUE invoice (the one a hosted payment page collects), if any. */
export async function findFirstDueInvoice(db: Executor, accountId: string, subscriptionId: string): Promise<repo.InvoiceRow | undefined> {
  const due = await repo.listInvoices(db, accountId, { subscriptionId, statuses: ['DUE'] });
  return due.at(-1);
}
