import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { ConnectionRow, SpendConnectionsTable, SpendProvider } from '../tables.js';
import { hasRow } from '../../../platform/db/tenant-row.js';

export type { ConnectionRow } from '../tables.js';

/** A live (not deleted) connection of the account, or undefined. */
export function findLiveConnection(db: Executor, accountId: string, id: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('spend_connections').selectAll().where('account_id', '=', accountId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Locks a live connection row (FOR UPDATE): syncs' chunk writes, delete and key replacement serialise on it. */
export function lockLiveConnection(db: Executor, accountId: string, id: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('spend_connections').selectAll().where('account_id', '=', accountId).where('id', '=', id).where('deleted_at', 'is', null).forUpdate().executeTakeFirst();
}

/** The account's live connections, oldest first. */
export function listLiveConnections(db: Executor, accountId: string): Promise<ConnectionRow[]> {
  return db.selectFrom('spend_connections').selectAll().where('account_id', '=', accountId).where('deleted_at', 'is', null).orderBy('created_at').orderBy('id').execute();
}

export async function liveLabelExists(db: Executor, accountId: string, provider: SpendProvider, label: string): Promise<boolean> {
  return hasRow(
    db
      .selectFrom('spend_connections')
      .select('id')
      .where('account_id', '=', accountId)
      .where('provider', '=', provider)
      .where(sql<string>`lower(label)`, '=', label.toLowerCase())
      .where('deleted_at', 'is', null),
  );
}

export function insertConnection(db: Executor, row: Insertable<SpendConnectionsTable>): Promise<ConnectionRow> {
  return db.insertInto('spend_connections').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateConnection(db: Executor, accountId: string, id: string, values: Updateable<SpendConnectionsTable>): Promise<ConnectionRow | undefined> {
  return db.updateTable('spend_connections').set(values).where('account_id', '=', accountId).where('id', '=', id).where('deleted_at', 'is', null).returningAll().executeTakeFirst();
}

/** Removes everything the connection pulled in [from, to) (or all of it without a window). */
export async function deletePulledRows(db: Executor, accountId: string, connectionId: string, window?: { from: string; to: string }): Promise<void> {
  for (const table of ['spend_usage_buckets', 'spend_vendor_costs', 'spend_actor_metrics'] as const) {
    let query = db.deleteFrom(table).where('account_id', '=', accountId).where('connection_id', '=', connectionId);
    if (window) query = query.where('day', '>=', window.from).where('day', '<', window.to);
    await query.execute();
  }
}

/**
 * Connections the hourly sync works through, in keyset pages by id across accounts: ACTIVE and
 * live, with (`initial: true`) or without their first 30 days pulled yet.
 */
export function pageActiveConnections(db: Executor, after: string | null, initialPending: boolean, limit = 100): Promise<ConnectionRow[]> {
  let query = db.selectFrom('spend_connections').selectAll().where('status', '=', 'ACTIVE').where('deleted_at', 'is', null);
  query = initialPending ? query.where('initial_sync_at', 'is', null) : query.where('initial_sync_at', 'is not', null);
  if (after) query = query.where('id', '>', after);
  return query.orderBy('id').limit(limit).execute();
}
