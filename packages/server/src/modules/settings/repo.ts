import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { AccountSettingsTable } from '../../platform/db/tables.js';

export type SettingsRow = Selectable<AccountSettingsTable>;

/** The account's stored settings, or undefined when it never saved any (the defaults apply). */
export function findSettingsRow(db: Executor, accountId: string): Promise<SettingsRow | undefined> {
  return db.selectFrom('account_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

/** The settings row holding this slug (slugs are unique across the instance). */
export function findSettingsRowBySlug(db: Executor, slug: string): Promise<SettingsRow | undefined> {
  return db.selectFrom('account_settings').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** Locks the account's settings row (FOR UPDATE); undefined when it has none. */
export function lockSettingsRow(db: Executor, accountId: string): Promise<SettingsRow | undefined> {
  return db.selectFrom('account_settings').selectAll().where('account_id', '=', accountId).forUpdate().executeTakeFirst();
}
