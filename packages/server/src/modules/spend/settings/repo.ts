import type { Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { SpendSettingsRow, SpendSettingsTable } from '../tables.js';

export type { SpendSettingsRow } from '../tables.js';

export function findSpendSettingsRow(db: Executor, accountId: string): Promise<SpendSettingsRow | undefined> {
  return db.selectFrom('spend_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** Creates the account's row unless it exists, then locks it (a concurrent first write waits, then finds it). */
export async function lockSpendSettingsRow(db: Executor, accountId: string, now: Date): Promise<SpendSettingsRow> {
  await db
    .insertInto('spend_settings')
    .values({ account_id: accountId, created_at: now, modified_at: now })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
  return db.selectFrom('spend_settings').selectAll().where('account_id', '=', accountId).forUpdate().executeTakeFirstOrThrow();
}

export function updateSpendSettingsRow(db: Executor, accountId: string, values: Updateable<SpendSettingsTable>): Promise<SpendSettingsRow> {
  return db.updateTable('spend_settings').set(values).where('account_id', '=', accountId).returningAll().executeTakeFirstOrThrow();
}

/** Accounts whose weekly digest is on, by id, for the Monday job (keyset paging). */
export async function pageDigestAccounts(db: Executor, after: string | null, limit = 100): Promise<{ id: string; account_id: string }[]> {
  let query = db.selectFrom('spend_settings').select('account_id').where('digest_enabled', '=', true).orderBy('account_id').limit(limit);
  if (after) query = query.where('account_id', '>', after);
  const rows = await query.execute();
  return rows.map((r) => ({ id: r.account_id, account_id: r.account_id }));
}
