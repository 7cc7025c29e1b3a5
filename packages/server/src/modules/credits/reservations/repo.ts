import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { Jsonb } from '../../../platform/db/jsonb.js';
import type { ReservationRow } from '../tables.js';
import { linksToPools, type PoolRow } from '../repo.js';
import { findTenantRow, tenantRows } from '../../../platform/db/tenant-row.js';
import { jobPage } from '../../../platform/jobs/items.js';

export type { ReservationRow } from '../tables.js';

export const findReservation = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'credit_reservations', accountId, id);

/** The row lock every settlement (capture, release, expiry) takes first, before any pool lock. */
export const lockReservation = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'credit_reservations', accountId, id, 'lock');

export const findReservationByKey = (db: Executor, accountId: string, key: string) =>
  db.selectFrom('credit_reservations').selectAll().where('account_id', '=', accountId).where('idempotency_key', '=', key).executeTakeFirst();

/** The flow's open hold (at most one: a partial unique index). */
export const findHeldByFlow = (db: Executor, accountId: string, flowId: string) =>
  db.selectFrom('credit_reservations').selectAll().where('account_id', '=', accountId).where('flow_id', '=', flowId).where('status', '=', 'HELD').executeTakeFirst();

/** Locks the flow's open hold; a hold settled while this waited is not returned (the row no longer matches). */
export const lockHeldByFlow = (db: Executor, accountId: string, flowId: string) =>
  db.selectFrom('credit_reservations').selectAll().where('account_id', '=', accountId).where('flow_id', '=', flowId).where('status', '=', 'HELD').forUpdate().executeTakeFirst();

/** Locks the open holds of these flows in id order (a batch's, before any pool lock); the flows that have one. */
export async function lockHeldByFlows(db: Executor, accountId: string, flowIds: string[]): Promise<string[]> {
  if (flowIds.length === 0) return [];
  const rows = await db
    .selectFrom('credit_reservations')
    .select('flow_id')
    .where('account_id', '=', accountId)
    .where('flow_id', 'in', flowIds)
    .where('status', '=', 'HELD')
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => r.flow_id!);
}

export const insertReservation = (db: Executor, row: Omit<ReservationRow, 'metadata'> & { metadata: Jsonb }) =>
  db.insertInto('credit_reservations').values(row).returningAll().executeTakeFirstOrThrow();

export const closeReservation = (
  db: Executor,
  accountId: string,
  id: string,
  set: Pick<ReservationRow, 'status' | 'settled_at'> & Partial<Pick<ReservationRow, 'capture_requested' | 'amount_captured' | 'event_id'>>,
) => db.updateTable('credit_reservations').set(set).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

/** HELD reservations past their expiry, paged by id for the expiry job. */
export const expiredReservations = (db: Executor, now: Date, after: string | null) =>
  db
    .selectFrom('credit_reservations')
    .select(['account_id', 'id'])
    .where('status', '=', 'HELD')
    .where('expires_at', '<=', now)
    .$call(jobPage('id', after))
    .execute();

/** The reservation's HOLD rows (one per pool it held from), with the grants each drew from. */
export async function listHolds(db: Executor, accountId: string, reservationId: string) {
  const holds = await db
    .selectFrom('credit_transactions')
    .select(['id', 'credit_pool_id', 'amount'])
    .where('account_id', '=', accountId)
    .where('reservation_id', '=', reservationId)
    .where('transaction_type', '=', 'HOLD')
    .orderBy('credit_pool_id')
    .execute();
  if (holds.length === 0) return [];
  const draws = await db
    .selectFrom('credit_transaction_draws as d')
    .innerJoin('credit_grants as g', (j) => j.onRef('g.account_id', '=', 'd.account_id').onRef('g.id', '=', 'd.credit_grant_id'))
    .select(['d.transaction_id', 'd.credit_grant_id', 'd.amount', 'g.created_at', 'g.seq'])
    .where('d.account_id', '=', accountId)
    .where('d.transaction_id', 'in', holds.map((h) => h.id))
    .orderBy('g.created_at')
    .orderBy('g.seq')
    .execute();
  return holds.map((h) => ({ poolId: h.credit_pool_id, transactionId: h.id, held: h.amount, draws: draws.filter((d) => d.transaction_id === h.id) }));
}

export type PoolForReservation = PoolRow & { draw_priority: number | null; draw_limit: string | null; total_drawn: string | null; linked_at: Date | null };

/**
 * Locks, in pool-id order (the order every writer uses), the subscription's linked pools in the
 * denomination and any other pool the reservation holds credits in (a pool unlinked since the hold),
 * and returns them with their link to the subscription (null when unlinked), links read under the lock.
 */
export async function lockReservationPools(db: Executor, accountId: string, subscriptionId: string, denomination: string, heldPoolIds: string[]): Promise<PoolForReservation[]> {
  const linked = await linksToPools(db, accountId, subscriptionId, denomination).select('p.id').execute();
  const ids = [...new Set([...linked.map((r) => r.id), ...heldPoolIds])];
  if (ids.length === 0) return [];
  const pools = await db.selectFrom('credit_pools').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).orderBy('id').forUpdate().execute();
  const links = await tenantRows(db, 'credit_pool_links', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('credit_pool_id', 'in', ids)
    .execute();
  return pools.map((p) => {
    const l = links.find((x) => x.credit_pool_id === p.id && p.denomination === denomination);
    return { ...p, draw_priority: l?.draw_priority ?? null, draw_limit: l?.draw_limit ?? null, total_drawn: l?.total_drawn ?? null, linked_at: l?.created_at ?? null };
  });
}

type ReservationLedgerSums = {
  reservation_id: string;
  credit_pool_id: string;
  status: string;
  amount_held: string;
  amount_captured: string | null;
  /** Credits its HOLD rows took from the pool. */
  held: string;
  /** Σ held_change: what it still holds in the pool (0 once settled). */
  held_left: string;
  /** Credits its CAPTURE rows consumed in the pool: −(amount + held_change). */
  captured: string;
};

/** Per reservation and pool, what its ledger rows held, still hold and consumed (for the audit). */
export async function reservationLedgerSums(db: Executor, accountId: string): Promise<ReservationLedgerSums[]> {
  const { rows } = await sql<ReservationLedgerSums>`
    select t.reservation_id, t.credit_pool_id, r.status, r.amount_held::text as amount_held, r.amount_captured::text as amount_captured,
           sum(case when t.transaction_type = 'HOLD' then -t.amount else 0 end)::text as held,
           sum(t.held_change)::text as held_left,
           sum(case when t.transaction_type = 'CAPTURE' then -(t.amount + t.held_change) else 0 end)::text as captured
      from credit_transactions t
      join credit_reservations r on r.account_id = t.account_id and r.id = t.reservation_id
     where t.account_id = ${accountId} and t.reservation_id is not null
     group by t.reservation_id, t.credit_pool_id, r.status, r.amount_held, r.amount_captured`.execute(db);
  return rows;
}
