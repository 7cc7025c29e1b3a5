import { sql } from 'kysely';
import type { Jsonb } from '../../platform/db/jsonb.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { dec, type Decimal } from '../../platform/money.js';
import type {
  AllocationRow,
  GrantRow,
  LinkRow,
  ModelRow,
  PoolRow,
} from './tables.js';
import { countCustomerRows, findTenantRow, hasRow, tenantRows } from '../../platform/db/tenant-row.js';
import { jobPage } from '../../platform/jobs/items.js';

export type { ModelRow, AllocationRow, PoolRow, LinkRow, GrantRow, TransactionRow } from './tables.js';

// Models

export const findModel = (db: Executor, accountId: string, id: string) =>
  db.selectFrom('credit_models').selectAll().where('account_id', '=', accountId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();

export const findModelByDenomination = (db: Executor, accountId: string, denomination: string) =>
  db.selectFrom('credit_models').selectAll().where('account_id', '=', accountId).where('denomination', '=', denomination).where('deleted_at', 'is', null).executeTakeFirst();

export const listModels = (db: Executor, accountId: string) =>
  db.selectFrom('credit_models').selectAll().where('account_id', '=', accountId).where('deleted_at', 'is', null).orderBy('created_at').execute();

export const insertModel = (db: Executor, row: Omit<ModelRow, 'metadata'> & { metadata: Jsonb }) =>
  db.insertInto('credit_models').values(row).returningAll().executeTakeFirstOrThrow();

export const softDeleteModel = (db: Executor, accountId: string, id: string, now: Date) =>
  db.updateTable('credit_models').set({ deleted_at: now, modified_at: now }).where('account_id', '=', accountId).where('id', '=', id).execute();

// Allocations

export const listAllocations = (db: Executor, accountId: string, planIds: string[]) =>
  planIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('plan_credit_allocations as a')
        .innerJoin('credit_models as m', (j) => j.onRef('m.id', '=', 'a.credit_model_id').onRef('m.account_id', '=', 'a.account_id'))
        .selectAll('a')
        .select(['m.name as model_name', 'm.denomination', 'm.hard_limit as model_hard_limit', 'm.rollover_policy', 'm.rollover_cap'])
        .where('a.account_id', '=', accountId)
        .where('a.plan_id', 'in', planIds)
        .orderBy('a.created_at')
        .execute();

export type AllocationWithModel = Awaited<ReturnType<typeof listAllocations>>[number];

export const insertAllocation = (db: Executor, row: AllocationRow) => db.insertInto('plan_credit_allocations').values(row).returningAll().executeTakeFirstOrThrow();

export const deleteAllocation = (db: Executor, accountId: string, planId: string, modelId: string) =>
  db.deleteFrom('plan_credit_allocations').where('account_id', '=', accountId).where('plan_id', '=', planId).where('credit_model_id', '=', modelId).executeTakeFirst();

// Pools

export const findPool = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'credit_pools', accountId, id);

/** Locks pools in id order, the one order every writer uses, so two writers never deadlock. */
export const lockPools = (db: Executor, accountId: string, ids: string[]) =>
  ids.length === 0
    ? Promise.resolve([] as PoolRow[])
    : db.selectFrom('credit_pools').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).orderBy('id').forUpdate().execute();

/** Writes a refused pool's disarmed credits.depleted flag (events.ts, a locked pool). */
export const disarmDepleted = (db: Executor, accountId: string, ids: string[]) =>
  db.updateTable('credit_pools').set({ depleted_armed: false }).where('account_id', '=', accountId).where('id', 'in', ids).execute();

/** Sets a locked pool's low-balance threshold and its flag (armed by the balance, never fired). */
export const updateLowBalanceThreshold = (db: Executor, accountId: string, id: string, threshold: string | null, armed: boolean, now: Date) =>
  db
    .updateTable('credit_pools')
    .set({ low_balance_threshold: threshold, low_balance_armed: armed, modified_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

export const findCustomerPool = (db: Executor, accountId: string, customerId: string, denomination: string) =>
  tenantRows(db, 'credit_pools', accountId)
    .where('customer_id', '=', customerId)
    .where('denomination', '=', denomination)
    .where('status', '!=', 'ARCHIVED')
    .orderBy('created_at')
    .executeTakeFirst();

export function listPools(db: Executor, accountId: string, filter: { customerId?: string; limit?: number; offset?: number } = {}) {
  let q = db.selectFrom('credit_pools').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id');
  if (filter.customerId) q = q.where('customer_id', '=', filter.customerId);
  if (filter.limit !== undefined) q = q.limit(filter.limit).offset(filter.offset ?? 0);
  return q.execute();
}

export const countPools = (db: Executor, accountId: string, customerId: string) => countCustomerRows(db, 'credit_pools', accountId, customerId);

type NewPool = Pick<PoolRow, 'id' | 'account_id' | 'customer_id' | 'name' | 'denomination' | 'currency' | 'hard_limit' | 'rollover_policy' | 'rollover_cap'> & {
  low_balance_threshold?: string | null;
  low_balance_armed?: boolean;
  metadata: Jsonb;
  now: Date;
};

/** Inserts an ACTIVE pool with zero balance, zero totals and an empty ledger. */
export const insertPool = (db: Executor, { now, ...pool }: NewPool) =>
  db
    .insertInto('credit_pools')
    .values({
      ...pool,
      status: 'ACTIVE',
      balance: '0',
      total_granted: '0',
      total_consumed: '0',
      total_expired: '0',
      total_reversed: '0',
      ledger_seq: '0',
      created_at: now,
      modified_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

// Links

export const findLink = (db: Executor, accountId: string, poolId: string, subscriptionId: string) =>
  db.selectFrom('credit_pool_links').selectAll().where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).where('subscription_id', '=', subscriptionId).executeTakeFirst();

/** A pool's links to subscriptions, oldest first. */
export const listLinksOfPool = (db: Executor, accountId: string, poolId: string) =>
  db.selectFrom('credit_pool_links').selectAll().where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).orderBy('created_at').orderBy('subscription_id').execute();

export const insertLink = (db: Executor, row: LinkRow) => db.insertInto('credit_pool_links').values(row).returningAll().executeTakeFirstOrThrow();

export const deleteLink = (db: Executor, accountId: string, poolId: string, subscriptionId: string) =>
  db.deleteFrom('credit_pool_links').where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).where('subscription_id', '=', subscriptionId).executeTakeFirst();

/** A subscription's links (`l`) joined to their pools (`p`) in one denomination, for the caller to select from. */
export const linksToPools = (db: Executor, accountId: string, subscriptionId: string, denomination: string) =>
  db
    .selectFrom('credit_pool_links as l')
    .innerJoin('credit_pools as p', (j) => j.onRef('p.id', '=', 'l.credit_pool_id').onRef('p.account_id', '=', 'l.account_id'))
    .where('l.account_id', '=', accountId)
    .where('l.subscription_id', '=', subscriptionId)
    .where('p.denomination', '=', denomination);

/** The subscription's linked pools in one denomination, in draw order. */
export const listLinkedPools = (db: Executor, accountId: string, subscriptionId: string, denomination: string) =>
  linksToPools(db, accountId, subscriptionId, denomination)
    .select(['l.credit_pool_id', 'l.draw_priority', 'l.draw_limit', 'l.total_drawn', 'p.hard_limit', 'p.status', 'p.balance', 'p.total_granted', 'p.total_consumed', 'p.currency'])
    .orderBy('l.draw_priority')
    .orderBy('l.created_at')
    .execute();

// Grants

export const findGrant = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'credit_grants', accountId, id);

export const findGrantByKey = (db: Executor, accountId: string, key: string) =>
  db.selectFrom('credit_grants').selectAll().where('account_id', '=', accountId).where('idempotency_key', '=', key).executeTakeFirst();

/** Drawable grants of the given pools, FIFO (oldest first). The caller holds the pools' locks. */
export const listLiveGrants = (db: Executor, accountId: string, poolIds: string[]) =>
  poolIds.length === 0
    ? Promise.resolve([] as GrantRow[])
    : tenantRows(db, 'credit_grants', accountId)
        .where('credit_pool_id', 'in', poolIds)
        .where('remaining', '>', '0')
        .where('voided_at', 'is', null)
        .orderBy('created_at')
        .orderBy('seq')
        .execute();

export function listGrants(db: Executor, accountId: string, poolId: string, page?: { limit: number; offset: number }) {
  let q = db.selectFrom('credit_grants').selectAll().where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).orderBy('created_at').orderBy('seq');
  if (page) q = q.limit(page.limit).offset(page.offset);
  return q.execute();
}

export async function countGrants(db: Executor, accountId: string, poolId: string) {
  const r = await db.selectFrom('credit_grants').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).executeTakeFirstOrThrow();
  return Number(r.n);
}

export const insertGrant = (db: Executor, row: Omit<GrantRow, 'seq' | 'metadata'> & { metadata: Jsonb }) =>
  db.insertInto('credit_grants').values(row).returningAll().executeTakeFirstOrThrow();

export const findPeriodGrant = (db: Executor, accountId: string, subscriptionId: string, poolId: string, periodStart: Date) =>
  db
    .selectFrom('credit_grants')
    .select('id')
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('credit_pool_id', '=', poolId)
    .where('period_start', '=', periodStart)
    .where('grant_type', '=', 'PLAN_INCLUDED')
    .executeTakeFirst();

/** The subscription's plan-included and rollover grants in a pool that still hold credits, oldest first. */
export const listRollableGrants = (db: Executor, accountId: string, subscriptionId: string, poolId: string) =>
  tenantRows(db, 'credit_grants', accountId)
    .where('subscription_id', '=', subscriptionId)
    .where('credit_pool_id', '=', poolId)
    .where('grant_type', 'in', ['PLAN_INCLUDED', 'ROLLOVER'])
    .where('remaining', '>', '0')
    .where('voided_at', 'is', null)
    .orderBy('created_at')
    .orderBy('seq')
    .execute();

/** Paged by id (`after`: the last id of the previous page) so the job passes over a failed grant. */
export const expiredGrants = (db: Executor, now: Date, after: string | null = null) =>
  db
    .selectFrom('credit_grants')
    .select(['account_id', 'id', 'credit_pool_id'])
    .where('expires_at', '<=', now)
    .where('remaining', '>', '0')
    .where('voided_at', 'is', null)
    .$call(jobPage('id', after))
    .execute();

// Transactions

/**
 * Whether the account has a usage event with this id. Credits may not import usage (ADR 0005), so
 * this ownership check of a manual deduction's `eventId` reads the table directly.
 */
export async function usageEventExists(db: Executor, accountId: string, id: string): Promise<boolean> {
  return hasRow(db.selectFrom('usage_events').select('id').where('account_id', '=', accountId).where('id', '=', id));
}

export const findTransaction = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'credit_transactions', accountId, id);

export const findTransactionByKey = (db: Executor, accountId: string, key: string) =>
  db.selectFrom('credit_transactions').selectAll().where('account_id', '=', accountId).where('idempotency_key', '=', key).executeTakeFirst();

export const findReversalOf = (db: Executor, accountId: string, id: string) =>
  db.selectFrom('credit_transactions').select('id').where('account_id', '=', accountId).where('reversed_transaction_id', '=', id).executeTakeFirst();

export function listTransactions(db: Executor, accountId: string, poolId: string, page?: { limit: number; offset: number }) {
  let q = db.selectFrom('credit_transactions').selectAll().where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).orderBy('seq');
  if (page) q = q.limit(page.limit).offset(page.offset);
  return q.execute();
}

export async function countTransactions(db: Executor, accountId: string, poolId: string) {
  const r = await db.selectFrom('credit_transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', accountId).where('credit_pool_id', '=', poolId).executeTakeFirstOrThrow();
  return Number(r.n);
}

export const listDraws = (db: Executor, accountId: string, transactionId: string) =>
  db.selectFrom('credit_transaction_draws').selectAll().where('account_id', '=', accountId).where('transaction_id', '=', transactionId).execute();

/** The ids of the pools linked to a subscription. */
export async function listLinkedPoolIds(db: Executor, accountId: string, subscriptionId: string): Promise<string[]> {
  const links = await db.selectFrom('credit_pool_links').select('credit_pool_id').where('account_id', '=', accountId).where('subscription_id', '=', subscriptionId).execute();
  return links.map((l) => l.credit_pool_id);
}

// Draw-down of many events (draw.ts `openCreditDraws`)

/** The pools linked to the subscriptions in the denominations, locked in pool-id order (every writer's order). */
export async function lockPoolsOf(tx: Tx, accountId: string, subscriptionIds: string[], denominations: string[]) {
  const { rows } = await sql<PoolRow>`
    select p.* from credit_pools p
     where p.account_id = ${accountId} and p.denomination = any(${denominations}::text[])
       and p.id in (select l.credit_pool_id from credit_pool_links l
                     where l.account_id = ${accountId} and l.subscription_id = any(${subscriptionIds}::uuid[]))
     order by p.id
     for update of p`.execute(tx);
  return rows;
}

/** A subscription's link to a pool as a draw reads it: priority, limit and what it has drawn. */
export type LinkState = { poolId: string; subscriptionId: string; drawPriority: number; linkedAt: Date; drawLimit: Decimal | null; totalDrawn: Decimal };

/** A live grant as a draw reads it (FIFO by creation): its remainder and expiry. */
export type DrawGrant = { id: string; credit_pool_id: string; remaining: string; expires_at: Date | null };

/**
 * The links of the locked pools to the subscriptions and the pools' live grants (oldest first, the
 * FIFO order of listLiveGrants), in one statement read under the pool locks: both change only while
 * their pool is locked, so neither can be stale.
 */
export async function readDrawState(tx: Tx, accountId: string, poolIds: string[], subscriptionIds: string[]): Promise<{ links: LinkState[]; grants: DrawGrant[] }> {
  const { rows } = await sql<{
    kind: 'link' | 'grant';
    pool_id: string;
    subscription_id: string | null;
    draw_priority: number | null;
    created_at: Date;
    draw_limit: string | null;
    amount: string;
    grant_id: string | null;
    expires_at: Date | null;
  }>`
    select 'link' as kind, credit_pool_id as pool_id, subscription_id, draw_priority, created_at, draw_limit, total_drawn as amount,
           null::uuid as grant_id, null::timestamptz as expires_at, 0::bigint as seq
      from credit_pool_links
     where account_id = ${accountId} and credit_pool_id = any(${poolIds}::uuid[]) and subscription_id = any(${subscriptionIds}::uuid[])
    union all
    select 'grant', credit_pool_id, null, null, created_at, null, remaining, id, expires_at, seq
      from credit_grants
     where account_id = ${accountId} and credit_pool_id = any(${poolIds}::uuid[]) and remaining > 0 and voided_at is null
     order by kind, created_at, seq`.execute(tx);
  const links: LinkState[] = [];
  const grants: DrawGrant[] = [];
  for (const r of rows) {
    if (r.kind === 'link') {
      links.push({ poolId: r.pool_id, subscriptionId: r.subscription_id!, drawPriority: r.draw_priority!, linkedAt: r.created_at, drawLimit: r.draw_limit === null ? null : dec(r.draw_limit), totalDrawn: dec(r.amount) });
    } else {
      grants.push({ id: r.grant_id!, credit_pool_id: r.pool_id, remaining: r.amount, expires_at: r.expires_at });
    }
  }
  return { links, grants };
}
