import type { Executor } from '../../platform/db/database.js';
import { toAccountSettings, type AccountSettings } from './domain.js';
import * as repo from './repo.js';

/** The account's settings, defaults filled in for an account that never saved any. */
export async function getAccountSettings(db: Executor, accountId: string): Promise<AccountSettings> {
  return toAccountSettings(accountId, await repo.findSettingsRow(db, accountId));
}

/** The settings of the account publishing this slug, or null (slugs are stored trimmed, lower-cased). */
export async function findAccountSettingsBySlug(db: Executor, slug: string): Promise<AccountSettings | null> {
  const row = await repo.findSettingsRowBySlug(db, slug.trim().toLowerCase());
  return row ? toAccountSettings(row.account_id, row) : null;
}

/**
 * Locks the account's settings row for the rest of the transaction and returns the settings; null
 * when the account never saved settings (then nothing agent-facing is enabled). Agent signups take
 * this lock around their cap count and insert.
 */
export async function lockAccountSettings(tx: Executor, accountId: string): Promise<AccountSettings | null> {
  const row = await repo.lockSettingsRow(tx, accountId);
  return row ? toAccountSettings(accountId, row) : null;
}
