import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { RuleRow, SpendRulesTable, SpendUnitsTable, UnitRow } from '../tables.js';
import { findTenantRow } from '../../../platform/db/tenant-row.js';

export type { UnitRow, RuleRow } from '../tables.js';

/** Serialises edits of one account's unit tree (parent moves, deletes), so no two moves make a loop together. */
export async function lockUnitTree(tx: Executor, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`spend_units:${accountId}`}, 0))`.execute(tx);
}

export async function personLevelEnabled(db: Executor, accountId: string): Promise<boolean> {
  const row = await db.selectFrom('spend_settings').select('person_level_enabled').where('account_id', '=', accountId).executeTakeFirst();
  return row?.person_level_enabled ?? false;
}

export function listUnits(db: Executor, accountId: string): Promise<UnitRow[]> {
  return db.selectFrom('spend_units').selectAll().where('account_id', '=', accountId).orderBy('name').orderBy('id').execute();
}

export function findUnit(db: Executor, accountId: string, id: string): Promise<UnitRow | undefined> {
  return findTenantRow(db, 'spend_units', accountId, id);
}

/** Every unit's parent, for the loop check. */
export async function parentMap(db: Executor, accountId: string): Promise<Map<string, string | null>> {
  const rows = await db.selectFrom('spend_units').select(['id', 'parent_id']).where('account_id', '=', accountId).execute();
  return new Map(rows.map((r) => [r.id, r.parent_id]));
}

export function insertUnit(db: Executor, row: Insertable<SpendUnitsTable>): Promise<UnitRow> {
  return db.insertInto('spend_units').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateUnit(db: Executor, accountId: string, id: string, values: Updateable<SpendUnitsTable>): Promise<UnitRow> {
  return db.updateTable('spend_units').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Moves the unit's children up to its parent, then deletes it (its rules go with it). */
export async function deleteUnit(db: Executor, unit: UnitRow, now: Date): Promise<void> {
  await db
    .updateTable('spend_units')
    .set({ parent_id: unit.parent_id, modified_at: now })
    .where('account_id', '=', unit.account_id)
    .where('parent_id', '=', unit.id)
    .execute();
  await db.deleteFrom('spend_units').where('account_id', '=', unit.account_id).where('id', '=', unit.id).execute();
}

/** Rules in matching order: priority ascending, then creation. */
export function listRules(db: Executor, accountId: string): Promise<RuleRow[]> {
  return db.selectFrom('spend_rules').selectAll().where('account_id', '=', accountId).orderBy('priority').orderBy('created_seq').execute();
}

/** Inserts the rule; undefined when the same (unit, provider, kind, value) exists. */
export function insertRule(db: Executor, row: Insertable<SpendRulesTable>): Promise<RuleRow | undefined> {
  return db
    .insertInto('spend_rules')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'spend_unit_id', 'provider', 'match_kind', 'match_value']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findRule(db: Executor, accountId: string, id: string): Promise<RuleRow | undefined> {
  return findTenantRow(db, 'spend_rules', accountId, id);
}

export async function deleteRule(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('spend_rules').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
