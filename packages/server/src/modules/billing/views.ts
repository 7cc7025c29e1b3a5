import type { Executor } from '../../platform/db/database.js';
import { dec } from '../../platform/money.js';
import * as catalog from '../catalog/index.js';
import { toPlan } from '../catalog/index.js';
import { getCustomerById, toAdminCustomer } from '../customers/index.js';
import * as repo from './repo.js';

type SubscriptionStatus = 'PENDING_PAYMENT' | 'ACTIVE' | 'CANCEL_SCHEDULED' | 'CANCELLED';

/** Derived status (ours): the contract's subscription has only isActive and cancel fields. */
export function subscriptionStatus(row: repo.SubscriptionRow): SubscriptionStatus {
  if (row.ended_at || (row.cancelled_at && !row.is_active)) return 'CANCELLED';
  if (!row.is_active) return 'PENDING_PAYMENT';
  return row.cancel_effective_at ? 'CANCEL_SCHEDULED' : 'ACTIVE';
}

function toPlanChange(row: repo.PlanChangeRow) {
  return {
    id: row.id,
    type: row.type,
    subscriptionId: row.subscription_id,
    fromPlan: row.from_plan_id,
    toPlan: row.to_plan_id,
    status: row.status,
    effectiveAt: row.effective_at,
    createdAt: row.created_at,
  };
}

/** The Subscription object of the contract, with its plan and customer nested. */
export async function toSubscriptionView(db: Executor, row: repo.SubscriptionRow) {
  const [plan, customer, change] = await Promise.all([
    catalog.findPlan(db, row.account_id, row.plan_id),
    getCustomerById(db, row.account_id, row.customer_id),
    repo.findPendingChange(db, row.account_id, row.id),
  ]);
  return {
    id: row.id,
    isActive: row.is_active,
    status: subscriptionStatus(row),
    intervalMonths: plan?.interval_months ?? null,
    customer: toAdminCustomer(customer),
    customerReferenceId: customer.customer_reference_id,
    plan: plan ? toPlan(plan) : null,
    gracePeriodDays: row.grace_period_days,
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    billingAnchorDay: row.billing_anchor_day,
    cancelMode: row.cancel_mode,
    cancelEffectiveAt: row.cancel_effective_at,
    cancelledAt: row.cancelled_at,
    scheduledChange: change ? toPlanChange(change) : null,
    metadata: row.metadata,
  };
}

type SubscriptionView = Awaited<ReturnType<typeof toSubscriptionView>>;

export function toInvoiceView(row: repo.InvoiceRow, customerReferenceId: string, items?: repo.InvoiceItemRow[], subscription?: SubscriptionView | null) {
  return {
    id: row.id,
    number: row.number,
    finalizedAt: row.finalized_at,
    customerReferenceId,
    status: row.status,
    type: row.type,
    amount: dec(row.amount),
    currency: row.currency,
    dueDate: row.due_date,
    subscriptionId: row.subscription_id,
    ...(subscription === undefined ? {} : { subscription }),
    periodStart: row.period_start,
    periodEnd: row.period_end,
    paidAt: row.paid_at,
    metadata: row.metadata,
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
    ...(items
      ? {
          items: items.map((i) => ({
            id: i.id,
            invoiceId: i.invoice_id,
            chargeAmount: dec(i.charge_amount),
            quantity: dec(i.quantity),
            unitPrice: i.unit_price === null ? null : dec(i.unit_price),
            description: i.description,
            createdAt: i.created_at,
            modifiedAt: i.modified_at,
          })),
        }
      : {}),
  };
}

/**
 * Invoices with their line items (one query) and their subscription nested, as the original API
 * sent them (one view per distinct subscription).
 */
export async function toInvoiceViews(db: Executor, accountId: string, rows: repo.InvoiceRow[]) {
  const items = await repo.listInvoiceItems(db, accountId, rows.map((r) => r.id));
  const subscriptions = new Map<string, SubscriptionView | null>();
  for (const id of new Set(rows.map((r) => r.subscription_id))) {
    const subscription = await repo.findSubscription(db, accountId, id);
    subscriptions.set(id, subscription ? await toSubscriptionView(db, subscription) : null);
  }
  const references = await customerReferences(db, accountId, rows);
  return rows.map((r) => toInvoiceView(r, references.get(r.customer_id)!, items.filter((i) => i.invoice_id === r.id), subscriptions.get(r.subscription_id)));
}

/** A subscription as it is now, read after every write, and one of its invoices (null when none): the subscribe and plan-change replies. */
export async function subscriptionWithInvoiceView(db: Executor, accountId: string, subscriptionId: string, invoiceId: string | undefined) {
  const subscription = (await repo.findSubscription(db, accountId, subscriptionId))!;
  const invoice = invoiceId ? await repo.findInvoice(db, accountId, invoiceId) : undefined;
  return {
    subscription: await toSubscriptionView(db, subscription),
    invoice: invoice ? (await toInvoiceViews(db, accountId, [invoice]))[0]! : null,
  };
}

/**
 * Each invoice's customer reference: a finalised invoice's from its snapshot (§4.5), the others' from
 * the customer as it is now (one read per distinct customer).
 */
async function customerReferences(db: Executor, accountId: string, rows: repo.InvoiceRow[]) {
  const references = new Map<string, string>();
  for (const r of rows) if (r.document_snapshot) references.set(r.customer_id, r.document_snapshot.customer.customerReferenceId);
  for (const id of new Set(rows.filter((r) => !references.has(r.customer_id)).map((r) => r.customer_id))) {
    references.set(id, (await getCustomerById(db, accountId, id)).customer_reference_id);
  }
  return references;
}
