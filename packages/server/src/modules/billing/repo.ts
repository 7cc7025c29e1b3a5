import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { InvoiceItemRow, InvoiceRow, PlanChangeRow, SubscriptionRow } from './tables.js';
import { countCustomerRows, findTenantRow, hasRow, insertTenantRow, tenantRows, updateTenantRow } from '../../platform/db/tenant-row.js';
import { jobPage } from '../../platform/jobs/items.js';
import { toJsonb } from '../../platform/db/jsonb.js';

export type { SubscriptionRow, InvoiceRow, InvoiceItemRow, PlanChangeRow } from './tables.js';

export const findSubscription = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'subscriptions', accountId, id);

export const lockSubscription = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'subscriptions', accountId, id, 'lock');

export const listCustomerSubscriptions = (db: Executor, accountId: string, customerId: string) =>
  db.selectFrom('subscriptions').selectAll().where('account_id', '=', accountId).where('customer_id', '=', customerId).orderBy('created_at').execute();

export const insertSubscription = (db: Executor, row: SubscriptionRow) =>
  insertTenantRow(db, 'subscriptions', row);

export const updateSubscription = (db: Executor, row: SubscriptionRow) =>
  updateTenantRow(db, 'subscriptions', row);

/** An inactive, never-paid subscription of this customer and plan whose initial invoice is still DUE. */
export const findPendingInitial = (db: Executor, accountId: string, customerId: string, planId: string) =>
  db
    .selectFrom('subscriptions')
    .innerJoin('invoices', (j) => j.onRef('invoices.subscription_id', '=', 'subscriptions.id').onRef('invoices.account_id', '=', 'subscriptions.account_id'))
    .selectAll('subscriptions')
    .where('subscriptions.account_id', '=', accountId)
    .where('subscriptions.customer_id', '=', customerId)
    .where('subscriptions.plan_id', '=', planId)
    .where('subscriptions.is_active', '=', false)
    .where('subscriptions.cancelled_at', 'is', null)
    .where('invoices.type', '=', 'IN_ADVANCE_INITIAL')
    .where('invoices.status', '=', 'DUE')
    .executeTakeFirst();

/** The snapshot document as jsonb (toJsonb, the one writer of jsonb values); the row as read holds it parsed. */
const withSnapshotJsonb = (row: InvoiceRow): InvoiceRow =>
  ({ ...row, document_snapshot: row.document_snapshot === null ? null : (toJsonb(row.document_snapshot) as unknown as InvoiceRow['document_snapshot']) });

/** Only `finalisation.ts` calls this and `updateInvoice`: every write of an invoice passes the finalisation rule there. */
export const insertInvoice = (db: Executor, row: InvoiceRow) =>
  insertTenantRow(db, 'invoices', withSnapshotJsonb(row));

export const insertInvoiceItems = async (db: Executor, rows: InvoiceItemRow[]) => {
  if (rows.length > 0) await db.insertInto('invoice_items').values(rows).execute();
};

export const findInvoice = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'invoices', accountId, id);

export const lockInvoice = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'invoices', accountId, id, 'lock');

export const updateInvoice = (db: Executor, row: InvoiceRow) =>
  updateTenantRow(db, 'invoices', withSnapshotJsonb(row));

/**
 * The next number of the account's sequence for `year` (from 1): the counter row is created or
 * incremented in one statement and stays locked to the end of the caller's transaction, so
 * concurrent finalisations take consecutive values in turn and a rollback gives its value back.
 */
export async function takeInvoiceNumber(db: Executor, accountId: string, year: number): Promise<bigint> {
  const row = await db
    .insertInto('invoice_number_counters')
    .values({ account_id: accountId, year, last_number: 1 })
    .onConflict((oc) => oc.columns(['account_id', 'year']).doUpdateSet({ last_number: sql`invoice_number_counters.last_number + 1` }))
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return BigInt(row.last_number);
}

export const listInvoiceItems = (db: Executor, accountId: string, invoiceIds: string[]) =>
  invoiceIds.length === 0
    ? Promise.resolve([] as InvoiceItemRow[])
    : db.selectFrom('invoice_items').selectAll().where('account_id', '=', accountId).where('invoice_id', 'in', invoiceIds).orderBy('position').execute();

export function listInvoices(
  db: Executor,
  accountId: string,
  filter: { customerId?: string; subscriptionId?: string; statuses?: InvoiceRow['status'][]; limit?: number; offset?: number },
) {
  let q = db.selectFrom('invoices').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc');
  if (filter.customerId) q = q.where('customer_id', '=', filter.customerId);
  if (filter.subscriptionId) q = q.where('subscription_id', '=', filter.subscriptionId);
  if (filter.statuses) q = q.where('status', 'in', filter.statuses);
  if (filter.limit !== undefined) q = q.limit(filter.limit).offset(filter.offset ?? 0);
  return q.execute();
}

export const countInvoices = (db: Executor, accountId: string, customerId: string) => countCustomerRows(db, 'invoices', accountId, customerId);

export async function hasPastDue(db: Executor, accountId: string, subscriptionId: string): Promise<boolean> {
  return hasRow(db.selectFrom('invoices').select('id').where('account_id', '=', accountId).where('subscription_id', '=', subscriptionId).where('status', '=', 'PAST_DUE'));
}

/** Whether the subscription has its one period invoice (initial or regular) for the period starting at `periodStart` (index invoices_one_per_period). */
export async function hasPeriodInvoice(db: Executor, accountId: string, subscriptionId: string, periodStart: Date): Promise<boolean> {
  return hasRow(
    db
      .selectFrom('invoices')
      .select('id')
      .where('account_id', '=', accountId)
      .where('subscription_id', '=', subscriptionId)
      .where('period_start', '=', periodStart)
      .where('type', 'in', ['IN_ADVANCE_INITIAL', 'REGULAR']),
  );
}

/** Open (DUE or PENDING) invoices of a subscription, locked. */
export const lockOpenInvoices = (db: Executor, accountId: string, subscriptionId: string) =>
  tenantRows(db, 'invoices', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'in', ['DUE', 'PENDING'])
    .forUpdate()
    .execute();

export const findPendingChange = (db: Executor, accountId: string, subscriptionId: string) =>
  db.selectFrom('scheduled_plan_changes').selectAll().where('account_id', '=', accountId).where('subscription_id', '=', subscriptionId).where('status', '=', 'PENDING').executeTakeFirst();

/**
 * The invoice a paid upgrade raised (ours: its metadata names the change, api-contract-agent-v2.md
 * §4.8), the newest if several; undefined where the processor raised it.
 */
export const findPlanChangeInvoice = (db: Executor, accountId: string, subscriptionId: string, changeId: string) =>
  db
    .selectFrom('invoices')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('type', '=', 'ADJUSTMENT')
    .where(sql<boolean>`metadata->>'planChangeId' = ${changeId}`)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();

export const findPlanChange = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'scheduled_plan_changes', accountId, id);

export const insertPlanChange = (db: Executor, row: PlanChangeRow) => db.insertInto('scheduled_plan_changes').values(row).returningAll().executeTakeFirstOrThrow();

export const setPlanChangeStatus = (db: Executor, accountId: string, id: string, status: PlanChangeRow['status']) =>
  db.updateTable('scheduled_plan_changes').set({ status }).where('account_id', '=', accountId).where('id', '=', id).execute();

export const cancelPendingChanges = (db: Executor, accountId: string, subscriptionId: string) =>
  db
    .updateTable('scheduled_plan_changes')
    .set({ status: 'CANCELLED' })
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();

/** Usage and revenue per feature for one subscription period, locked so late events serialise with the close. */
export const lockPeriodCounters = (db: Executor, accountId: string, subscriptionId: string, periodStart: Date) =>
  db
    .selectFrom('usage_counters')
    .innerJoin('features', (j) => j.onRef('features.id', '=', 'usage_counters.feature_id').onRef('features.account_id', '=', 'usage_counters.account_id'))
    .select(['usage_counters.feature_id', 'features.key as feature_key', 'usage_counters.used', 'usage_counters.revenue'])
    .where('usage_counters.account_id', '=', accountId)
    .where('usage_counters.subscription_id', '=', subscriptionId)
    .where('usage_counters.period_start', '=', periodStart)
    .orderBy('features.key')
    .forUpdate('usage_counters')
    .execute();

// Cross-account scans for the jobs: each returns ids only; the work re-locks each row.

/**
 * Accounts where the processor drives billing (PROCESSOR_INTEGRATION) are left out of every cycle
 * job (contract §6.6): their periods and invoices come from the processor's webhooks.
 */
const billedHere = (accountColumn: string) =>
  sql<boolean>`not exists (select 1 from account_settings st where st.account_id = ${sql.ref(accountColumn)} and st.stripe_mode = 'PROCESSOR_INTEGRATION')`;

// The job queries page by id (`after`: the last id of the previous page), so a job passes over an
// item that failed instead of fetching it again (platform/jobs/items.ts).

export const dueDowngrades = (db: Executor, now: Date, after: string | null = null) =>
  db
    .selectFrom('scheduled_plan_changes')
    .select(['account_id', 'id', 'subscription_id'])
    .where('status', '=', 'PENDING')
    // A PENDING upgrade waits for its payment (§4.8), never for a date.
    .where('type', '=', 'DOWNGRADE')
    .where('effective_at', '<=', now)
    .where(billedHere('scheduled_plan_changes.account_id'))
    .$call(jobPage('id', after))
    .execute();

export const dueCancellations = (db: Executor, now: Date, after: string | null = null) =>
  db
    .selectFrom('subscriptions')
    .select(['account_id', 'id'])
    .where('is_active', '=', true)
    .where('cancel_effective_at', '<=', now)
    .where(billedHere('subscriptions.account_id'))
    .$call(jobPage('id', after))
    .execute();

export const dueRollovers = (db: Executor, now: Date, after: string | null = null) =>
  db
    .selectFrom('subscriptions')
    .select(['account_id', 'id'])
    .where('is_active', '=', true)
    .where('current_period_end', '<=', now)
    .where(billedHere('subscriptions.account_id'))
    .where((eb) => eb.or([eb('cancel_effective_at', 'is', null), eb('cancel_effective_at', '>', eb.ref('current_period_end'))]))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('invoices').select(sql`1`.as('x')).whereRef('invoices.account_id', '=', 'subscriptions.account_id').whereRef('invoices.subscription_id', '=', 'subscriptions.id').where('invoices.status', '=', 'PAST_DUE'))),
    )
    .$call(jobPage('subscriptions.id', after))
    .execute();

/**
 * A DUE invoice is past due once its due date plus its subscription's grace period has passed (§6.2):
 * the one condition of the past-due job and of the overview's figure (an invoice due today is not
 * past due seconds later). Needs `subscriptions` joined to the invoice.
 */
const graceExpired = (now: Date) => sql<boolean>`invoices.due_date + make_interval(days => subscriptions.grace_period_days) < ${now}`;

/**
 * The invoice of an upgrade that waits for it (§4.8): an offer the customer may pay or not, for a plan
 * not yet delivered, so it never goes past due nor revokes anything. Needs `invoices` in scope.
 */
export const awaitsUpgrade = sql<boolean>`(invoices.type = 'ADJUSTMENT' and exists (
  select 1 from scheduled_plan_changes c
  where c.account_id = invoices.account_id and c.subscription_id = invoices.subscription_id
    and c.status = 'PENDING' and c.type = 'UPGRADE' and c.id::text = invoices.metadata->>'planChangeId'))`;

export const overdueInvoices = (db: Executor, now: Date, after: string | null = null) =>
  db
    .selectFrom('invoices')
    .innerJoin('subscriptions', (j) => j.onRef('subscriptions.account_id', '=', 'invoices.account_id').onRef('subscriptions.id', '=', 'invoices.subscription_id'))
    .select(['invoices.account_id', 'invoices.id'])
    .where('invoices.status', '=', 'DUE')
    .where(billedHere('invoices.account_id'))
    .where(graceExpired(now))
    .where(sql<boolean>`not ${awaitsUpgrade}`)
    .$call(jobPage('invoices.id', after))
    .execute();

/**
 * Per currency: the account's subscriptions that bill (ACTIVE, CANCEL_SCHEDULED) and their monthly
 * recurring revenue, Σ plan price ÷ interval months (a plan without an interval counts monthly),
 * exact to 6 places as text.
 */
export const sumRecurringRevenue = (db: Executor, accountId: string) =>
  db
    .selectFrom('subscriptions')
    .innerJoin('plans', (j) => j.onRef('plans.account_id', '=', 'subscriptions.account_id').onRef('plans.id', '=', 'subscriptions.plan_id'))
    .where('subscriptions.account_id', '=', accountId)
    // subscriptionStatus() ACTIVE or CANCEL_SCHEDULED
    .where('subscriptions.is_active', '=', true)
    .where('subscriptions.ended_at', 'is', null)
    .select([
      'plans.currency',
      sql<string>`count(*)::text`.as('subscriptions'),
      sql<string>`round(coalesce(sum(coalesce(plans.price_amount, 0) / greatest(coalesce(plans.interval_months, 1), 1)), 0), 6)::text`.as('mrr'),
    ])
    .groupBy('plans.currency')
    .orderBy('plans.currency')
    .execute();

/**
 * Per currency: invoices past due at `now` (PAST_DUE, or DUE with due date plus grace passed, which
 * the next past-due job run makes PAST_DUE), their count and Σ amount.
 */
export const sumPastDueInvoices = (db: Executor, accountId: string, now: Date) =>
  db
    .selectFrom('invoices')
    .innerJoin('subscriptions', (j) => j.onRef('subscriptions.account_id', '=', 'invoices.account_id').onRef('subscriptions.id', '=', 'invoices.subscription_id'))
    .where('invoices.account_id', '=', accountId)
    .where((eb) => eb.or([eb('invoices.status', '=', 'PAST_DUE'), eb.and([eb('invoices.status', '=', 'DUE'), graceExpired(now), sql<boolean>`not ${awaitsUpgrade}`])]))
    .select(['invoices.currency', sql<string>`count(*)::text`.as('invoices'), sql<string>`coalesce(sum(invoices.amount), 0)::text`.as('amount')])
    .groupBy('invoices.currency')
    .orderBy('invoices.currency')
    .execute();
