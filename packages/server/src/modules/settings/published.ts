import type { Executor } from '../../platform/db/database.js';
import { toAccountSettings, type AccountSettings } from './domain.js';
import * as repo from './repo.js';

/**
 * The settings of every account that publishes its catalog (a slug and `publicCatalogEnabled`), in
 * ascending slug order (byte order). Instance-wide: for the agent discovery documents.
 */
export async function listPublishedCatalogSettings(db: Executor): Promise<AccountSettings[]> {
  const rows = await repo.listPublishedSettingsRows(db);
  return rows.map((row) => toAccountSettings(row.account_id, row));
}
