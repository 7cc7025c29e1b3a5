import type { Insertable, Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { BudgetRow, SpendBudgetsTable } from '../tables.js';

export type { BudgetRow } from '../tables.js';

export function findBudget(db: Executor, accountId: string, unitId: string): Promise<BudgetRow | undefined> {
  return db.selectFrom('spend_budgets').selectAll().where('account_id', '=', accountId).where('spend_unit_id', '=', unitId).executeTakeFirst();
}

export function lockBudget(db: Executor, accountId: string, unitId: string): Promise<BudgetRow | undefined> {
  return db.selectFrom('spend_budgets').selectAll().where('account_id', '=', accountId).where('spend_unit_id', '=', unitId).forUpdate().executeTakeFirst();
}

export function listBudgets(db: Executor, accountId: string): Promise<BudgetRow[]> {
  return db.selectFrom('spend_budgets').selectAll().where('account_id', '=', accountId).orderBy('spend_unit_id').execute();
}

/** Inserts or replaces the unit's budget (the bump and enforcement state are kept unless `values` sets them). */
export function upsertBudget(db: Executor, row: Insertable<SpendBudgetsTable>, update: Updateable<SpendBudgetsTable>): Promise<BudgetRow> {
  return db
    .insertInto('spend_budgets')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'spend_unit_id']).doUpdateSet(update))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateBudget(db: Executor, accountId: string, unitId: string, values: Updateable<SpendBudgetsTable>): Promise<BudgetRow> {
  return db.updateTable('spend_budgets').set(values).where('account_id', '=', accountId).where('spend_unit_id', '=', unitId).returningAll().executeTakeFirstOrThrow();
}

export async function deleteBudget(db: Executor, accountId: string, unitId: string): Promise<boolean> {
  const result = await db.deleteFrom('spend_budgets').where('account_id', '=', accountId).where('spend_unit_id', '=', unitId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
