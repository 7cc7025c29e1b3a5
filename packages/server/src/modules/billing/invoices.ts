import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { conflict, notFound } from '../../platform/errors/app-error.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import * as catalogRepo from '../catalog/index.js';
import { getCustomerByRef } from '../customers/index.js';
import { onPeriodPaid } from './lifecycle.js';
import * as repo from './repo.js';
import { toInvoiceViews } from './views.js';

/**
 * Settles a DUE or PAST_DUE invoice (no payment processor connected). Paying the initial invoice
 * activates the subscription; paying the last past-due invoice restores its entitlements. An
 * already PAID invoice is a no-op; VOID or CANCELLED ones cannot be paid.
 */
export async function markInvoicePaid(ctx: AppContext, accountId: string, invoiceId: string) {
  const now = ctx.clock.now();
  const paid = await withTransaction(ctx.db, async (tx) => {
    const invoice = await repo.lockInvoice(tx, accountId, invoiceId);
    if (!invoice) throw notFound(`Invoice not found: ${invoiceId}`);
    if (invoice.status === 'PAID') return invoice;
    if (invoice.status !== 'DUE' && invoice.status !== 'PAST_DUE') {
      throw conflict(`Invoice is ${invoice.status} and cannot be paid`);
    }
    const subscription = (await repo.lockSubscription(tx, accountId, invoice.subscription_id))!;
    const updated = await repo.updateInvoice(tx, { ...invoice, status: 'PAID', paid_at: now, modified_at: now });
    let next = subscription;
    if (invoice.type === 'IN_ADVANCE_INITIAL' && !subscription.is_active && !subscription.ended_at && !subscription.cancelled_at) {
      next = await repo.updateSubscription(tx, { ...subscription, is_active: true, modified_at: now });
      const plan = (await catalogRepo.findPlan(tx, accountId, subscription.plan_id))!;
      await onPeriodPaid(tx, next, plan, { start: subscription.current_period_start, end: subscription.current_period_end }, now);
    }
    if (invoice.status === 'PAST_DUE' && next.entitlements_revoked && !(await repo.hasPastDue(tx, accountId, subscription.id))) {
      await repo.updateSubscription(tx, { ...next, entitlements_revoked: false, modified_at: now });
    }
    return updated;
  });
  return (await toInvoiceViews(ctx.db, accountId, [paid]))[0]!;
}

export async function listCustomerInvoicePage(ctx: AppContext, accountId: string, ref: string, page: PageQuery) {
  const customer = await getCustomerByRef(ctx.db, accountId, ref);
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
