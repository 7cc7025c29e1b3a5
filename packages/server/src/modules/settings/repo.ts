import { sql, type Insertable, type RawBuilder, type Updateable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { AccountAuditLogTable, AccountSettingsTable, AuditLogRow, SettingsRow } from './tables.js';
import { tenantRows } from '../../platform/db/tenant-row.js';

export type { SettingsRow, AuditLogRow } from './tables.js';

/** The account's stored settings, or undefined when it never saved any (the defaults apply). */
export function findSettingsRow(db: Executor, accountId: string): Promise<SettingsRow | undefined> {
  return db.selectFrom('account_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** The settings row holding this slug (slugs are unique across the instance). */
export function findSettingsRowBySlug(db: Executor, slug: string): Promise<SettingsRow | undefined> {
  return db.selectFrom('account_settings').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/**
 * Rows of the accounts whose public catalog is switched on under a slug, in byte order of the slug
 * (the discovery documents list catalogs in ascending slug order, whatever the database's collation).
 */
export function listPublishedSettingsRows(db: Executor): Promise<SettingsRow[]> {
  return db
    .selectFrom('account_settings')
    .selectAll()
    .where('public_catalog_enabled', '=', true)
    .where('slug', 'is not', null)
    .orderBy(sql`slug collate "C"`)
    .execute();
}

/** Locks the account's settings row (FOR UPDATE); undefined when it has none. */
export function lockSettingsRow(db: Executor, accountId: string): Promise<SettingsRow | undefined> {
  return db.selectFrom('account_settings').selectAll().where('account_id', '=', accountId).forUpdate().executeTakeFirst();
}

/**
 * Writes the account's row unless it exists. A concurrent first write waits on the primary key
 * and then does nothing, so the lock taken after always finds a row.
 */
export async function ensureSettingsRow(db: Executor, row: Insertable<AccountSettingsTable>): Promise<void> {
  await db
    .insertInto('account_settings')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}

export function updateSettingsRow(db: Executor, accountId: string, values: Updateable<AccountSettingsTable>): Promise<SettingsRow> {
  return db.updateTable('account_settings').set(values).where('account_id', '=', accountId).returningAll().executeTakeFirstOrThrow();
}

export async function insertAuditRows(db: Executor, rows: Insertable<AccountAuditLogTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('account_audit_log').values(rows).execute();
}

/** The account's audit log, newest first (ids are UUIDv7, so they break ties in time order). */
export function listAuditRows(db: Executor, accountId: string, limit: number): Promise<AuditLogRow[]> {
  return tenantRows(db, 'account_audit_log', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * The account's usageThresholdPercents as a SQL expression over the account id column (the default
 * when it never saved settings): the usage module's ingestion context reads it in its own statement
 * (`usage.threshold_percents`, provided at startup by runtime.ts). Depends on nothing but the column.
 */
export const usageThresholdPercentsSql = (accountId: RawBuilder<unknown>) =>
  sql<number[]>`coalesce((select st.usage_threshold_percents from account_settings st where st.account_id = ${accountId}), '{80,100}'::smallint[])`;

/**
 * The account's agentMaxTopupAmount (null: no cap) as a SQL expression over the account id column:
 * read by credits' auto top-up recording in its own statement (`credits.auto_topup_spend_cap_sql`,
 * provided by payments).
 */
export const agentMaxTopupAmountSql = (accountId: RawBuilder<unknown>) =>
  sql<string | null>`(select st.agent_max_topup_amount from account_settings st where st.account_id = ${accountId})`;
