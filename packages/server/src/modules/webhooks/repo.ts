import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { tenantRows } from '../../platform/db/tenant-row.js';
import type { DeliveryStatus, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './tables.js';

/** SQL of the webhooks module. Relay reads across accounts are plain reads; every claim is a one-row conditional UPDATE (one shard on Citus). */

export const liveEndpoints = (db: Executor, accountId: string) =>
  tenantRows(db, 'webhook_endpoints', accountId).where('deleted_at', 'is', null).orderBy('created_at').orderBy('id').execute();

export const findEndpoint = (db: Executor, accountId: string, id: string) =>
  tenantRows(db, 'webhook_endpoints', accountId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();

export const lockEndpoint = (db: Executor, accountId: string, id: string) =>
  tenantRows(db, 'webhook_endpoints', accountId).where('id', '=', id).where('deleted_at', 'is', null).forUpdate().executeTakeFirst();

export async function countEndpoints(db: Executor, accountId: string): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', accountId).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEndpoint(db: Executor, row: Insertable<WebhookEndpointsTable>) {
  return db.insertInto('webhook_endpoints').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateEndpoint(db: Executor, accountId: string, id: string, set: Updateable<WebhookEndpointsTable>) {
  return db.updateTable('webhook_endpoints').set(set).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Ends an endpoint's pending deliveries (disabled or deleted, §E4.3). */
export async function failPendingDeliveries(db: Executor, accountId: string, endpointId: string, reason: string) {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'FAILED', next_attempt_at: null, lease_until: null, last_error: reason })
    .where('account_id', '=', accountId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'PENDING')
    .execute();
}

export const findEvent = (db: Executor, accountId: string, id: string) => tenantRows(db, 'outbound_events', accountId).where('id', '=', id).executeTakeFirst();

export async function listEvents(db: Executor, accountId: string, f: { type?: string | undefined; since?: Date | undefined; until?: Date | undefined }, page: { limit: number; offset: number }) {
  let q = db.selectFrom('outbound_events').where('account_id', '=', accountId);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.since) q = q.where('created_at', '>=', f.since);
  if (f.until) q = q.where('created_at', '<', f.until);
  const [rows, total] = await Promise.all([
    q.select(['payload']).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export async function insertDeliveries(db: Executor, rows: Insertable<WebhookDeliveriesTable>[]) {
  if (rows.length === 0) return [];
  return db.insertInto('webhook_deliveries').values(rows).returningAll().execute();
}

export const findDelivery = (db: Executor, accountId: string, id: string) => tenantRows(db, 'webhook_deliveries', accountId).where('id', '=', id).executeTakeFirst();

export const listAttempts = (db: Executor, accountId: string, deliveryId: string) =>
  tenantRows(db, 'webhook_attempts', accountId).where('delivery_id', '=', deliveryId).orderBy('number').execute();

export type DeliveryFilter = { endpointId?: string | undefined; eventId?: string | undefined; eventType?: string | undefined; status?: DeliveryStatus | undefined; since?: Date | undefined; until?: Date | undefined };

export async function listDeliveries(db: Executor, accountId: string, f: DeliveryFilter, page: { limit: number; offset: number }) {
  let q = db.selectFrom('webhook_deliveries').where('account_id', '=', accountId);
  if (f.endpointId) q = q.where('endpoint_id', '=', f.endpointId);
  if (f.eventId) q = q.where('event_id', '=', f.eventId);
  if (f.eventType) q = q.where('event_type', '=', f.eventType);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.since) q = q.where('created_at', '>=', f.since);
  if (f.until) q = q.where('created_at', '<', f.until);
  const [rows, total] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

// ——— The relay ———

/** Events not yet fanned out, oldest first (a read across accounts; each is then claimed alone). */
export const unfannedEvents = (db: Executor, limit: number) =>
  db.selectFrom('outbound_events').select(['account_id', 'id', 'type']).where('fanned_out_at', 'is', null).orderBy('created_at').limit(limit).execute();

/** Claims an event's fan-out: true for the one transaction that marks it (on any node). */
export async function claimFanOut(db: Executor, accountId: string, id: string, now: Date): Promise<boolean> {
  const rows = await db.updateTable('outbound_events').set({ fanned_out_at: now }).where('account_id', '=', accountId).where('id', '=', id).where('fanned_out_at', 'is', null).returning('id').execute();
  return rows.length === 1;
}

/** Deliveries whose attempt is due and not leased by a live attempt (a read across accounts). */
export const dueDeliveries = (db: Executor, now: Date, limit: number) =>
  db
    .selectFrom('webhook_deliveries')
    .select(['account_id', 'id'])
    .where('status', '=', 'PENDING')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();

/** Leases one due delivery for one attempt; undefined when another node took it or it is no longer due. */
export async function leaseDelivery(db: Executor, accountId: string, id: string, now: Date, until: Date) {
  return db
    .updateTable('webhook_deliveries')
    .set({ lease_until: until })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
}

export async function insertAttempt(db: Executor, row: Insertable<WebhookAttemptsTable>) {
  await db.insertInto('webhook_attempts').values(row).execute();
}

export async function updateDelivery(db: Executor, accountId: string, id: string, set: Updateable<WebhookDeliveriesTable>) {
  await db.updateTable('webhook_deliveries').set(set).where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Events (with their deliveries and attempts, by cascade) older than the retention (§E1.3). */
export async function purgeEventsBefore(db: Executor, before: Date) {
  await sql`delete from outbound_events where created_at < ${before}`.execute(db);
}
