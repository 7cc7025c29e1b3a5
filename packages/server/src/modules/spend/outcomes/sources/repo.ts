import type { Insertable, Updateable } from 'kysely';
import type { Executor } from '../../../../platform/db/database.js';
import type { SourceRow, SpendOutcomeSourcesTable } from '../../tables.js';
import { deleteTenantRow, findTenantRow } from '../../../../platform/db/tenant-row.js';

export type { SourceRow } from '../../tables.js';

export function listSources(db: Executor, accountId: string): Promise<SourceRow[]> {
  return db.selectFrom('spend_outcome_sources').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
}

export function findSource(db: Executor, accountId: string, id: string): Promise<SourceRow | undefined> {
  return findTenantRow(db, 'spend_outcome_sources', accountId, id);
}

/** Locks the source row (a delete and a sync's write exclude each other); undefined when it is gone. */
export function lockSource(db: Executor, accountId: string, id: string): Promise<SourceRow | undefined> {
  return findTenantRow(db, 'spend_outcome_sources', accountId, id, 'lock');
}

export function insertSource(db: Executor, row: Insertable<SpendOutcomeSourcesTable>): Promise<SourceRow> {
  return db.insertInto('spend_outcome_sources').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Updates the source; undefined when it was deleted meanwhile. */
export function updateSource(db: Executor, accountId: string, id: string, values: Updateable<SpendOutcomeSourcesTable>): Promise<SourceRow | undefined> {
  return db.updateTable('spend_outcome_sources').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes the source; the outcomes it pulled go with it (foreign key on delete cascade). */
export async function deleteSource(db: Executor, accountId: string, id: string): Promise<void> {
  await deleteTenantRow(db, 'spend_outcome_sources', accountId, id);
}

/** ACTIVE sources of every account after `after` (by id), for the hourly job. */
export function pageActiveSources(db: Executor, after: string | null, limit = 100): Promise<SourceRow[]> {
  let query = db.selectFrom('spend_outcome_sources').selectAll().where('status', '=', 'ACTIVE');
  if (after !== null) query = query.where('id', '>', after);
  return query.orderBy('id').limit(limit).execute();
}
