import { sql, type Insertable } from 'kysely';
import type { Executor, Tx } from '../../../platform/db/database.js';
import type { AlertRow, SpendAlertsTable } from '../tables.js';
import { findTenantRow } from '../../../platform/db/tenant-row.js';

export type { AlertRow } from '../tables.js';

/** Rows per INSERT statement (13 parameters each, well under PostgreSQL's 65,535). */
const INSERT_CHUNK = 1000;

/**
 * Serialises the account's budget evaluations until `tx` ends (a transaction-scoped advisory lock:
 * released by COMMIT or ROLLBACK, so a crashed node never holds it). PGlite has the same function.
 */
export async function lockAccountEvaluation(tx: Tx, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`spend_alerts:${accountId}`}, 0))`.execute(tx);
}

/**
 * Inserts the alerts not yet fired in their window and returns those (in input order); a row whose
 * (account, unit, kind, period, window start) exists is skipped by the unique key, so concurrent
 * evaluations on any number of nodes fire each alert once.
 */
export async function insertNewAlerts(db: Executor, rows: Insertable<SpendAlertsTable>[]): Promise<AlertRow[]> {
  const inserted: AlertRow[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = await db
      .insertInto('spend_alerts')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .onConflict((oc) => oc.constraint('spend_alerts_once_per_window').doNothing())
      .returningAll()
      .execute();
    inserted.push(...chunk);
  }
  const order = new Map(rows.map((r, i) => [r.id, i]));
  return inserted.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

/** Newest first; every unacknowledged alert, or the latest `limit`. */
export function listAlerts(db: Executor, accountId: string, options: { unackedOnly: boolean; limit: number }): Promise<AlertRow[]> {
  let query = db.selectFrom('spend_alerts').selectAll().where('account_id', '=', accountId);
  if (options.unackedOnly) query = query.where('acked_at', 'is', null);
  else query = query.limit(options.limit);
  return query.orderBy('fired_at', 'desc').orderBy('created_seq', 'desc').execute();
}

/** Acknowledges the alert unless it already is; returns the row either way (undefined: no such alert). */
export async function ackAlert(db: Executor, accountId: string, id: string, ackedBy: string, now: Date): Promise<AlertRow | undefined> {
  const acked = await db
    .updateTable('spend_alerts')
    .set({ acked_at: now, acked_by: ackedBy })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('acked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return acked ?? findTenantRow(db, 'spend_alerts', accountId, id);
}

/** Alerts fired in [from, to). */
export async function countAlertsFired(db: Executor, accountId: string, from: Date, to: Date): Promise<number> {
  const row = await db
    .selectFrom('spend_alerts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('fired_at', '>=', from)
    .where('fired_at', '<', to)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Ids of the account's units now (an alert is recorded only for a unit that still exists). */
export async function unitIds(db: Executor, accountId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('spend_units').select('id').where('account_id', '=', accountId).execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Drops the bumps of `unitIds` whose expiry has passed by `now` (checked again in the statement, so
 * a bump renewed meanwhile stays); returns the units whose bump was dropped.
 */
export async function dropExpiredBumps(db: Executor, accountId: string, unitIds: string[], now: Date): Promise<string[]> {
  if (unitIds.length === 0) return [];
  const rows = await db
    .updateTable('spend_budgets')
    .set({ bump_monthly_cents: null, bump_expires_at: null, bump_reason: null, modified_at: now })
    .where('account_id', '=', accountId)
    .where('spend_unit_id', 'in', unitIds)
    .where('bump_expires_at', '<=', now)
    .returning('spend_unit_id')
    .execute();
  return rows.map((r) => r.spend_unit_id);
}

/** Accounts with at least one spend unit (the ones an evaluation can fire for), by id, for the hourly job. */
export async function pageSpendAccounts(db: Executor, after: string | null, limit = 100): Promise<{ id: string; account_id: string }[]> {
  let query = db.selectFrom('spend_units').select('account_id').distinct().orderBy('account_id').limit(limit);
  if (after) query = query.where('account_id', '>', after);
  const rows = await query.execute();
  return rows.map((r) => ({ id: r.account_id, account_id: r.account_id }));
}
