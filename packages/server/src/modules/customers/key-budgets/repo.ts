import type { Executor, Tx } from '../../../platform/db/database.js';
import { dec } from '../../../platform/money.js';
import type { BudgetState } from './domain.js';
import type { ApiKeyBudgetsTable, ApiKeySpendTable } from './tables.js';

type BudgetRow = Pick<ApiKeyBudgetsTable, 'period' | 'alert_threshold' | 'anchor_at' | 'counted_window_start' | 'alerting_since' | 'exceeded_window_start'> & {
  credit_limit: string | null;
  amount_limit: string | null;
  credits_spent: string;
  amount_spent: string;
};

const COLUMNS = ['period', 'credit_limit', 'amount_limit', 'alert_threshold', 'anchor_at', 'counted_window_start', 'credits_spent', 'amount_spent', 'alerting_since', 'exceeded_window_start'] as const;

const toState = (r: BudgetRow): BudgetState => ({
  period: r.period,
  creditLimit: r.credit_limit === null ? null : dec(r.credit_limit),
  amountLimit: r.amount_limit === null ? null : dec(r.amount_limit),
  alertThreshold: r.alert_threshold,
  anchorAt: r.anchor_at,
  countedWindowStart: r.counted_window_start,
  creditsSpent: dec(r.credits_spent),
  amountSpent: dec(r.amount_spent),
  alertingSince: r.alerting_since,
  exceededWindowStart: r.exceeded_window_start,
});

const toColumns = (s: BudgetState) => ({
  period: s.period,
  credit_limit: s.creditLimit?.toFixed() ?? null,
  amount_limit: s.amountLimit?.toFixed() ?? null,
  alert_threshold: s.alertThreshold,
  anchor_at: s.anchorAt,
  counted_window_start: s.countedWindowStart,
  credits_spent: s.creditsSpent.toFixed(),
  amount_spent: s.amountSpent.toFixed(),
  alerting_since: s.alertingSince,
  exceeded_window_start: s.exceededWindowStart,
});

export async function findBudget(db: Executor, accountId: string, keyId: string): Promise<BudgetState | null> {
  const row = await db.selectFrom('api_key_budgets').select(COLUMNS).where('account_id', '=', accountId).where('key_id', '=', keyId).executeTakeFirst();
  return row ? toState(row) : null;
}

/** Whether the key has a budget (the ingestion path's question: its events' credits count against it). */
/** The budget rows of these keys, locked (FOR UPDATE) in key-id order: the one order every spender takes them in. */
export async function lockBudgets(tx: Tx, accountId: string, keyIds: string[]): Promise<Map<string, BudgetState>> {
  const locked = new Map<string, BudgetState>();
  if (keyIds.length === 0) return locked;
  const rows = await tx
    .selectFrom('api_key_budgets')
    .select(['key_id', ...COLUMNS])
    .where('account_id', '=', accountId)
    .where('key_id', 'in', [...new Set(keyIds)].sort())
    .orderBy('key_id')
    .forUpdate()
    .execute();
  for (const r of rows) locked.set(r.key_id, toState(r));
  return locked;
}

export async function upsertBudget(tx: Tx, accountId: string, keyId: string, customerId: string, s: BudgetState, now: Date): Promise<void> {
  await tx
    .insertInto('api_key_budgets')
    .values({ account_id: accountId, key_id: keyId, customer_id: customerId, ...toColumns(s), created_at: now, modified_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'key_id']).doUpdateSet({ ...toColumns(s), modified_at: now }))
    .execute();
}

export async function saveCounters(tx: Tx, accountId: string, keyId: string, s: BudgetState, now: Date): Promise<void> {
  await tx
    .updateTable('api_key_budgets')
    .set({
      counted_window_start: s.countedWindowStart,
      credits_spent: s.creditsSpent.toFixed(),
      amount_spent: s.amountSpent.toFixed(),
      alerting_since: s.alertingSince,
      exceeded_window_start: s.exceededWindowStart,
      modified_at: now,
    })
    .where('account_id', '=', accountId)
    .where('key_id', '=', keyId)
    .execute();
}

/** The reference of the customer whose key the budget belongs to (the budget.exceeded payload names it). */
export async function findCustomerRef(db: Executor, accountId: string, keyId: string): Promise<string | null> {
  const row = await db
    .selectFrom('api_key_budgets as b')
    .innerJoin('customers as c', (join) => join.onRef('c.account_id', '=', 'b.account_id').onRef('c.id', '=', 'b.customer_id'))
    .select('c.customer_reference_id')
    .where('b.account_id', '=', accountId)
    .where('b.key_id', '=', keyId)
    .executeTakeFirst();
  return row?.customer_reference_id ?? null;
}

export async function deleteBudget(tx: Tx, accountId: string, keyId: string): Promise<void> {
  await tx.deleteFrom('api_key_budgets').where('account_id', '=', accountId).where('key_id', '=', keyId).execute();
}

export type SpendRow = Omit<ApiKeySpendTable, 'amount'> & { amount: string };

export async function insertSpends(tx: Tx, rows: SpendRow[]): Promise<void> {
  if (rows.length > 0) await tx.insertInto('api_key_spend').values(rows).execute();
}

export async function findSpend(db: Executor, accountId: string, id: string): Promise<SpendRow | undefined> {
  return db.selectFrom('api_key_spend').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export async function settleSpend(tx: Tx, accountId: string, id: string, windowStart: Date | null, now: Date): Promise<void> {
  await tx.updateTable('api_key_spend').set({ state: 'SETTLED', window_start: windowStart, modified_at: now }).where('account_id', '=', accountId).where('id', '=', id).execute();
}

export async function deleteSpend(tx: Tx, accountId: string, id: string): Promise<void> {
  await tx.deleteFrom('api_key_spend').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** PENDING reservations created before `before`, oldest first, across accounts (the sweeper's work list). */
export async function listStalePending(db: Executor, before: Date, limit: number): Promise<SpendRow[]> {
  return db.selectFrom('api_key_spend').selectAll().where('state', '=', 'PENDING').where('created_at', '<', before).orderBy('created_at').limit(limit).execute();
}
