import { sql, type Insertable, type RawBuilder } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { AutoTopupAttemptRow, AutoTopupRuleRow, CreditAutoTopupAttemptsTable, CreditAutoTopupRulesTable } from '../tables.js';

export type { AutoTopupAttemptRow, AutoTopupRuleRow } from '../tables.js';

// Rules

export const findRule = (db: Executor, accountId: string, poolId: string) =>
  db.selectFrom('credit_auto_topup_rules').selectAll().where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).executeTakeFirst();

export const lockRule = (db: Executor, accountId: string, poolId: string) =>
  db.selectFrom('credit_auto_topup_rules').selectAll().where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).forUpdate().executeTakeFirst();

export const upsertRule = (db: Executor, row: Insertable<CreditAutoTopupRulesTable> & { consecutive_failures: number; max_monthly_amount: string | null; retry_after: Date | null; disabled_reason: AutoTopupRuleRow['disabled_reason'] }) =>
  db
    .insertInto('credit_auto_topup_rules')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['account_id', 'credit_pool_id']).doUpdateSet({
        enabled: row.enabled,
        threshold: row.threshold,
        topup_credits: row.topup_credits,
        max_monthly_amount: row.max_monthly_amount,
        consecutive_failures: row.consecutive_failures,
        retry_after: row.retry_after,
        disabled_reason: row.disabled_reason,
        modified_at: row.modified_at,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();

export const updateRule = (db: Executor, accountId: string, poolId: string, fields: Partial<Pick<AutoTopupRuleRow, 'enabled' | 'consecutive_failures' | 'retry_after' | 'disabled_reason' | 'modified_at'>>) =>
  db.updateTable('credit_auto_topup_rules').set(fields).where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).returningAll().executeTakeFirst();

export const deleteRule = (db: Executor, accountId: string, poolId: string) =>
  db.deleteFrom('credit_auto_topup_rules').where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).executeTakeFirst();

/** Sets the pool's denormalised threshold (the rule's while enabled, else null); the caller holds the pool lock. */
export const setPoolThreshold = (db: Executor, accountId: string, poolId: string, threshold: string | null) =>
  db.updateTable('credit_pools').set({ auto_topup_threshold: threshold }).where('account_id', '=', accountId).where('id', '=', poolId).execute();

/** Clears the retry block of every rule of a customer (a new default payment method, money §2.5). */
export const clearRetryAfter = (db: Executor, accountId: string, customerId: string, now: Date) =>
  db
    .updateTable('credit_auto_topup_rules')
    .set({ retry_after: null, modified_at: now })
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('retry_after', 'is not', null)
    .execute();

/**
 * What a draw below the threshold needs to decide (money §2.3 rules 1, 3–5), in one statement: the
 * rule, whether an attempt is PENDING, this month's SUCCEEDED and PENDING amounts, and the spend cap
 * (`spendCapSql`, the account setting as a SQL expression over the account id; credits may not
 * import settings).
 */
export async function readRecordingFacts(db: Executor, accountId: string, poolId: string, monthStart: Date, spendCapSql: (accountId: RawBuilder<unknown>) => RawBuilder<unknown>) {
  const { rows } = await sql<AutoTopupRuleRow & { pending: boolean; month_to_date: string; spend_cap: string | null }>`
    select r.*,
           exists (select 1 from credit_auto_topup_attempts a where a.account_id = r.account_id and a.credit_pool_id = r.credit_pool_id and a.status = 'PENDING') as pending,
           (select coalesce(sum(a.amount), 0)::text from credit_auto_topup_attempts a
             where a.account_id = r.account_id and a.credit_pool_id = r.credit_pool_id and a.status in ('PENDING', 'SUCCEEDED') and a.created_at >= ${monthStart}) as month_to_date,
           (${spendCapSql(sql`r.account_id`)})::text as spend_cap
      from credit_auto_topup_rules r
     where r.account_id = ${accountId} and r.credit_pool_id = ${poolId}`.execute(db);
  return rows[0];
}

/** The pool's SUCCEEDED and PENDING amounts since `monthStart`, and whether one is PENDING (the rule view). */
export async function poolAttemptTotals(db: Executor, accountId: string, poolId: string, monthStart: Date) {
  const { rows } = await sql<{ pending: boolean; month_to_date: string }>`
    select coalesce(bool_or(a.status = 'PENDING'), false) as pending,
           coalesce(sum(a.amount) filter (where a.created_at >= ${monthStart}), 0)::text as month_to_date
      from credit_auto_topup_attempts a
     where a.account_id = ${accountId} and a.credit_pool_id = ${poolId} and a.status in ('PENDING', 'SUCCEEDED')`.execute(db);
  return rows[0]!;
}

// Attempts

/**
 * Records a PENDING attempt unless the pool has one: the partial unique index decides between
 * concurrent draws, and the loser's statement records nothing without failing its transaction.
 */
export async function insertPendingAttempt(db: Executor, row: Insertable<CreditAutoTopupAttemptsTable>): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    insert into credit_auto_topup_attempts (id, account_id, credit_pool_id, customer_id, status, credits, price_per_credit, amount, currency,
      balance_at_trigger, trigger_transaction_id, payment_method_id, payment_intent_id, grant_id, failure_code, failure_message, created_at, completed_at)
    values (${row.id}, ${row.account_id}, ${row.credit_pool_id}, ${row.customer_id}, 'PENDING', ${row.credits}, ${row.price_per_credit}, ${row.amount}, ${row.currency},
      ${row.balance_at_trigger}, ${row.trigger_transaction_id}, null, null, null, null, null, ${row.created_at}, null)
    on conflict (account_id, credit_pool_id) where status = 'PENDING' do nothing
    returning id`.execute(db);
  return rows.length > 0;
}

export const findAttempt = (db: Executor, accountId: string, id: string) =>
  db.selectFrom('credit_auto_topup_attempts').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();

export const lockAttempt = (db: Executor, accountId: string, id: string) =>
  db.selectFrom('credit_auto_topup_attempts').selectAll().where('account_id', '=', accountId).where('id', '=', id).forUpdate().executeTakeFirst();

export const updateAttempt = (db: Executor, accountId: string, id: string, fields: Partial<Omit<AutoTopupAttemptRow, 'id' | 'account_id'>>) =>
  db.updateTable('credit_auto_topup_attempts').set(fields).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export const listAttempts = (db: Executor, accountId: string, poolId: string, page: { limit: number; offset: number }) =>
  db
    .selectFrom('credit_auto_topup_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('credit_pool_id', '=', poolId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();

export async function countAttempts(db: Executor, accountId: string, poolId: string): Promise<number> {
  const row = await db
    .selectFrom('credit_auto_topup_attempts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('credit_pool_id', '=', poolId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** PENDING attempts created before `before`, across accounts, oldest first (the recovery job). */
export const stalePendingAttempts = (db: Executor, before: Date, limit: number) =>
  db
    .selectFrom('credit_auto_topup_attempts')
    .select(['account_id', 'id', 'created_at'])
    .where('status', '=', 'PENDING')
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
