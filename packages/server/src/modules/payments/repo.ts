import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type {
  CheckoutSessionRow,
  ConnectionRow,
  CreditPurchaseRow,
  ProcessorCustomerRow,
  ProcessorProductRow,
  ProcessorSubscriptionRow,
} from './tables.js';
import { findTenantRow, tenantRows } from '../../platform/db/tenant-row.js';

export type { ConnectionRow, ProcessorCustomerRow, CheckoutSessionRow, CreditPurchaseRow, ProcessorProductRow, MeterEventRow, ProcessorSubscriptionRow } from './tables.js';

// Connection

export const findConnection = (db: Executor, accountId: string) =>
  db.selectFrom('processor_connections').selectAll().where('account_id', '=', accountId).executeTakeFirst();

export async function upsertConnection(db: Executor, accountId: string, fields: Partial<Omit<ConnectionRow, 'account_id' | 'created_at'>>, now: Date) {
  await db
    .insertInto('processor_connections')
    .values({
      account_id: accountId,
      api_key_sealed: null,
      api_key_mask: null,
      webhook_endpoint_id: null,
      webhook_secret_sealed: null,
      webhook_secret_mask: null,
      ...fields,
      created_at: now,
      modified_at: now,
    })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ ...fields, modified_at: now }))
    .execute();
}

export const deleteConnection = (db: Executor, accountId: string) =>
  db.deleteFrom('processor_connections').where('account_id', '=', accountId).returningAll().executeTakeFirst();

// Processor customers

export const findProcessorCustomer = (db: Executor, accountId: string, customerId: string) =>
  db.selectFrom('processor_customers').selectAll().where('account_id', '=', accountId).where('customer_id', '=', customerId).executeTakeFirst();

export const findByProcessorCustomerId = (db: Executor, accountId: string, processorCustomerId: string) =>
  db.selectFrom('processor_customers').selectAll().where('account_id', '=', accountId).where('processor_customer_id', '=', processorCustomerId).executeTakeFirst();

/** Links unless a link exists; returns the link that holds (the first writer's, under a race). */
export async function linkProcessorCustomer(db: Executor, row: ProcessorCustomerRow): Promise<ProcessorCustomerRow> {
  const inserted = await db
    .insertInto('processor_customers')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'customer_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  return inserted ?? (await findProcessorCustomer(db, row.account_id, row.customer_id))!;
}

export const setDefaultPaymentMethod = (db: Executor, accountId: string, customerId: string, paymentMethodId: string, now: Date) =>
  db
    .updateTable('processor_customers')
    .set({ default_payment_method_id: paymentMethodId, modified_at: now })
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .execute();

// Checkout sessions

/**
 * A new session; `payment_method_id` is set only when a setup session completes, `expires_at` once
 * the processor answered with its session.
 */
export const insertCheckoutSession = (db: Executor, row: Omit<CheckoutSessionRow, 'payment_method_id' | 'expires_at'>) =>
  db.insertInto('checkout_sessions').values(row).returningAll().executeTakeFirstOrThrow();

export const findCheckoutSession = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'checkout_sessions', accountId, id);

export const lockCheckoutSession = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'checkout_sessions', accountId, id, 'lock');

export const lockCheckoutSessionByProcessorInvoice = (db: Executor, accountId: string, processorInvoiceId: string) =>
  db.selectFrom('checkout_sessions').selectAll().where('account_id', '=', accountId).where('processor_invoice_id', '=', processorInvoiceId).forUpdate().executeTakeFirst();

/**
 * One page of the account's checkout sessions with their customer's reference, newest first
 * (created_at, then id, both descending), and the count of all that match.
 */
export async function listCheckoutSessions(
  db: Executor,
  input: { accountId: string; customerReferenceId?: string | undefined; status?: string | undefined; purpose?: string | undefined; limit: number; offset: number },
) {
  let scope = db
    .selectFrom('checkout_sessions as s')
    .innerJoin('customers as c', (join) => join.onRef('c.account_id', '=', 's.account_id').onRef('c.id', '=', 's.customer_id'))
    .where('s.account_id', '=', input.accountId);
  if (input.customerReferenceId !== undefined) scope = scope.where('c.customer_reference_id', '=', input.customerReferenceId);
  if (input.status !== undefined) scope = scope.where('s.status', '=', input.status as CheckoutSessionRow['status']);
  if (input.purpose !== undefined) scope = scope.where('s.purpose', '=', input.purpose as CheckoutSessionRow['purpose']);
  const [rows, count] = await Promise.all([
    scope.selectAll('s').select('c.customer_reference_id').orderBy('s.created_at', 'desc').orderBy('s.id', 'desc').limit(input.limit).offset(input.offset).execute(),
    scope.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** The PENDING session already open for this invoice (a retried subscribe or checkout reuses it). */
export const findPendingSessionForInvoice = (db: Executor, accountId: string, invoiceId: string) =>
  tenantRows(db, 'checkout_sessions', accountId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'PENDING')
    .where('checkout_url', 'is not', null)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();

export const updateCheckoutSession = (db: Executor, accountId: string, id: string, fields: Partial<Omit<CheckoutSessionRow, 'id' | 'account_id'>>) =>
  db.updateTable('checkout_sessions').set(fields).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

// Credit purchases

export const insertPurchase = (db: Executor, row: CreditPurchaseRow) =>
  db.insertInto('credit_purchases').values(row).returningAll().executeTakeFirstOrThrow();

export const lockPurchase = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'credit_purchases', accountId, id, 'lock');

export const updatePurchase = (db: Executor, accountId: string, id: string, fields: Partial<Omit<CreditPurchaseRow, 'id' | 'account_id'>>) =>
  db.updateTable('credit_purchases').set(fields).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

// Webhook events

/** Records an event id; false when it was recorded before (a repeat, or a concurrent copy that won). */
export async function recordEvent(db: Executor, accountId: string, eventId: string, type: string, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('processor_events')
    .values({ account_id: accountId, event_id: eventId, type, received_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}

// Processor products and prices (PROCESSOR_INTEGRATION)

export const findProcessorPrice = (db: Executor, accountId: string, planId: string, priceKey: string) =>
  db.selectFrom('processor_products').selectAll().where('account_id', '=', accountId).where('plan_id', '=', planId).where('price_key', '=', priceKey).executeTakeFirst();

/** Any price row of the plan: its product is the plan's product. */
export const findPlanProduct = (db: Executor, accountId: string, planId: string) =>
  db.selectFrom('processor_products').select('processor_product_id').where('account_id', '=', accountId).where('plan_id', '=', planId).limit(1).executeTakeFirst();

export const findPlanByProcessorPrice = (db: Executor, accountId: string, processorPriceId: string) =>
  db.selectFrom('processor_products').select('plan_id').where('account_id', '=', accountId).where('processor_price_id', '=', processorPriceId).executeTakeFirst();

/** Inserts unless present; the row that holds is returned (the first writer's, under a race). */
export async function saveProcessorPrice(db: Executor, row: ProcessorProductRow): Promise<ProcessorProductRow> {
  await db.insertInto('processor_products').values(row).onConflict((oc) => oc.doNothing()).execute();
  return (await findProcessorPrice(db, row.account_id, row.plan_id, row.price_key))!;
}

// Processor subscriptions (PROCESSOR_INTEGRATION)

/** Inserts a PENDING link; false when the customer already has one in flight (partial unique index). */
export async function insertProcessorSubscription(db: Executor, row: ProcessorSubscriptionRow): Promise<boolean> {
  const inserted = await db.insertInto('processor_subscriptions').values(row).onConflict((oc) => oc.doNothing()).returning('subscription_id').executeTakeFirst();
  return inserted !== undefined;
}

export const findPendingProcessorSubscription = (db: Executor, accountId: string, customerId: string) =>
  db.selectFrom('processor_subscriptions').selectAll().where('account_id', '=', accountId).where('customer_id', '=', customerId).where('status', '=', 'PENDING').executeTakeFirst();

export const lockProcessorSubscription = (db: Executor, accountId: string, subscriptionId: string) =>
  db.selectFrom('processor_subscriptions').selectAll().where('account_id', '=', accountId).where('subscription_id', '=', subscriptionId).forUpdate().executeTakeFirst();

export const lockProcessorSubscriptionByProcessorId = (db: Executor, accountId: string, processorSubscriptionId: string) =>
  db.selectFrom('processor_subscriptions').selectAll().where('account_id', '=', accountId).where('processor_subscription_id', '=', processorSubscriptionId).forUpdate().executeTakeFirst();

export const lockProcessorSubscriptionByCheckout = (db: Executor, accountId: string, checkoutSessionId: string) =>
  db.selectFrom('processor_subscriptions').selectAll().where('account_id', '=', accountId).where('checkout_session_id', '=', checkoutSessionId).forUpdate().executeTakeFirst();

export const updateProcessorSubscription = (db: Executor, accountId: string, subscriptionId: string, fields: Partial<Omit<ProcessorSubscriptionRow, 'account_id' | 'subscription_id'>>) =>
  db.updateTable('processor_subscriptions').set(fields).where('account_id', '=', accountId).where('subscription_id', '=', subscriptionId).returningAll().executeTakeFirstOrThrow();

// Mirrored invoices (PROCESSOR_INTEGRATION)

export const findMirroredInvoice = (db: Executor, accountId: string, processorInvoiceId: string) =>
  db.selectFrom('processor_invoices').select('invoice_id').where('account_id', '=', accountId).where('processor_invoice_id', '=', processorInvoiceId).executeTakeFirst();

export const insertMirroredInvoice = (db: Executor, accountId: string, processorInvoiceId: string, invoiceId: string, now: Date) =>
  db.insertInto('processor_invoices').values({ account_id: accountId, processor_invoice_id: processorInvoiceId, invoice_id: invoiceId, created_at: now }).execute();

// Meter outbox (PROCESSOR_INTEGRATION)

/** Queues one usage event for the meters, only when the account's processor drives billing (one statement). */
export async function queueMeterEvent(
  db: Executor,
  e: { accountId: string; eventId: string; customerId: string; featureId: string; eventName: string; units: string; occurredAt: Date; now: Date },
): Promise<void> {
  await sql`
    insert into processor_meter_events (account_id, event_id, customer_id, feature_id, event_name, units, occurred_at, status, created_at)
    select ${e.accountId}::uuid, ${e.eventId}::uuid, ${e.customerId}::uuid, ${e.featureId}::uuid, ${e.eventName}, ${e.units}::numeric,
           ${e.occurredAt}::timestamptz, 'PENDING', ${e.now}::timestamptz
     where exists (select 1 from account_settings st where st.account_id = ${e.accountId}::uuid and st.stripe_mode = 'PROCESSOR_INTEGRATION')
    on conflict do nothing`.execute(db);
}

export async function accountsWithPendingMeterEvents(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('processor_meter_events').select('account_id').distinct().where('status', '=', 'PENDING').limit(1000).execute();
  return rows.map((r) => r.account_id);
}

/** PENDING rows of one account after `after` (by event id, a UUIDv7: ingestion order). */
export const pendingMeterEvents = (db: Executor, accountId: string, after: string | null, limit: number) =>
  tenantRows(db, 'processor_meter_events', accountId)
    .where('status', '=', 'PENDING')
    .$if(after !== null, (qb) => qb.where('event_id', '>', after!))
    .orderBy('event_id')
    .limit(limit)
    .execute();

export const markMeterEventSent = (db: Executor, accountId: string, eventId: string, now: Date) =>
  db.updateTable('processor_meter_events').set({ status: 'SENT', sent_at: now, last_error: null }).where('account_id', '=', accountId).where('event_id', '=', eventId).execute();

export const markMeterEventFailed = (db: Executor, accountId: string, eventId: string, error: string) =>
  db
    .updateTable('processor_meter_events')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: error }))
    .where('account_id', '=', accountId)
    .where('event_id', '=', eventId)
    .execute();

export const findProcessorSubscription = (db: Executor, accountId: string, subscriptionId: string) =>
  db.selectFrom('processor_subscriptions').selectAll().where('account_id', '=', accountId).where('subscription_id', '=', subscriptionId).executeTakeFirst();

// Retried processor work (PROCESSOR_INTEGRATION)

const inProcessorIntegration = sql<boolean>`exists (select 1 from account_settings st where st.account_id = x.account_id and st.stripe_mode = 'PROCESSOR_INTEGRATION')`;

/**
 * Customers whose processor customer is still missing although work waits for it (PENDING meter
 * events, a PENDING subscribe): the request that needed it failed or lost the processor's answer.
 * Keyset-paged by customer id across accounts.
 */
export async function customersAwaitingProcessorCustomer(db: Executor, after: string | null, limit = 200): Promise<{ id: string; account_id: string }[]> {
  const { rows } = await sql<{ id: string; account_id: string }>`
    select x.customer_id as id, x.account_id from (
      select account_id, customer_id from processor_meter_events where status = 'PENDING'
      union
      select account_id, customer_id from processor_subscriptions where status = 'PENDING'
    ) x
    where ${inProcessorIntegration}
      and not exists (select 1 from processor_customers pc where pc.account_id = x.account_id and pc.customer_id = x.customer_id)
      ${after === null ? sql`` : sql`and x.customer_id > ${after}::uuid`}
    order by x.customer_id
    limit ${limit}`.execute(db);
  return rows;
}

/** ACTIVE paid in-advance plans of processor-driven accounts (the plans the processor bills), keyset-paged by id. */
export async function plansToSync(db: Executor, after: string | null, limit = 200): Promise<{ id: string; account_id: string }[]> {
  const { rows } = await sql<{ id: string; account_id: string }>`
    select x.id, x.account_id from plans x
    where x.status = 'ACTIVE' and x.billing_timing = 'IN_ADVANCE' and x.price_amount > 0 and ${inProcessorIntegration}
      ${after === null ? sql`` : sql`and x.id > ${after}::uuid`}
    order by x.id
    limit ${limit}`.execute(db);
  return rows;
}

/**
 * SQL fragment for usage's ingestion statement: whether the account whose id is `accountId` (a
 * column reference) is processor-driven, so its usage goes to the meter outbox. Its text depends on
 * the column only (it is part of prepared statements).
 */
export const processorDrivenSql = (accountId: RawBuilder<unknown>) =>
  sql<boolean>`exists (select 1 from account_settings st where st.account_id = ${accountId} and st.stripe_mode = 'PROCESSOR_INTEGRATION')`;
