import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Executor } from './database.js';
import { toJsonb } from './jsonb.js';
import type { DB } from './tables.js';

/** The tables whose rows a tenant names by id: they have an `id` and an `account_id` column. */
type TenantTable = { [T in keyof DB]: DB[T] extends { id: unknown; account_id: unknown } ? T : never }[keyof DB];
/** The tables that hold tenants' rows: an `account_id` column. */
type AccountTable = { [T in keyof DB]: DB[T] extends { account_id: unknown } ? T : never }[keyof DB];

/**
 * One row of a tenant by its id (`select * … where account_id = $1 and id = $2`), undefined when
 * absent or another account's; with `'lock'`, `for update`, held to the end of the transaction. The
 * one spelling of the read every repo makes, so no repo forgets the account.
 */
export function findTenantRow<T extends TenantTable>(db: Executor, table: T, accountId: string, id: string, lock?: 'lock'): Promise<Selectable<DB[T]> | undefined> {
  // A table name chosen by the caller: Kysely types one statement per table, not a generic one.
  const query = (db as unknown as Kysely<{ tenant_table: { id: string; account_id: string } }>)
    .selectFrom(table as 'tenant_table')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  return (lock ? query.forUpdate() : query).executeTakeFirst() as Promise<Selectable<DB[T]> | undefined>;
}

type Untyped = Kysely<{ tenant_table: { id: string; account_id: string; metadata: unknown } }>;
type Stored<T extends TenantTable> = Selectable<DB[T]> & { id: string; account_id: string; metadata: unknown };

/** Stores a new row whose `metadata` document is jsonb, and answers it as stored. */
export function insertTenantRow<T extends TenantTable>(db: Executor, table: T, row: Stored<T>): Promise<Selectable<DB[T]>> {
  return (db as unknown as Untyped)
    .insertInto(table as 'tenant_table')
    .values({ ...row, metadata: toJsonb(row.metadata) })
    .returningAll()
    .executeTakeFirstOrThrow() as Promise<Selectable<DB[T]>>;
}

/** Writes every column of a row back (its `metadata` as jsonb), found by its account and id, and answers it as stored. */
/** A row without its key columns, for an UPDATE's SET: Citus refuses any SET of the distribution column. */
export function withoutKey<R extends { account_id: string; id: string }>(row: R): Omit<R, 'account_id' | 'id'> {
  const { account_id: _account, id: _id, ...rest } = row;
  return rest;
}

export function updateTenantRow<T extends TenantTable>(db: Executor, table: T, row: Stored<T>): Promise<Selectable<DB[T]>> {
  return (db as unknown as Untyped)
    .updateTable(table as 'tenant_table')
    // Never the key columns: Citus refuses any SET of the distribution column, even to its value (ADR 0023).
    .set({ ...withoutKey(row), metadata: toJsonb(row.metadata) })
    .where('account_id', '=', row.account_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow() as Promise<Selectable<DB[T]>>;
}

/**
 * Every row of one tenant in a table (`select * … where account_id = $1`), for the caller to narrow,
 * order and page: the one spelling of the tenant scope of a repo's list reads.
 */
export function tenantRows<T extends AccountTable>(db: Executor, table: T, accountId: string): SelectQueryBuilder<DB, T, Selectable<DB[T]>> {
  const query = (db as unknown as Kysely<{ tenant_table: { account_id: string } }>).selectFrom(table as 'tenant_table').selectAll().where('account_id', '=', accountId);
  return query as unknown as SelectQueryBuilder<DB, T, Selectable<DB[T]>>;
}

/** How many rows of one customer of a tenant a table holds (the `total` of a customer's page). */
export async function countCustomerRows<T extends AccountTable>(db: Executor, table: T, accountId: string, customerId: string): Promise<number> {
  const row = await (db as unknown as Kysely<{ tenant_table: { account_id: string; customer_id: string } }>)
    .selectFrom(table as 'tenant_table')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes one row of a tenant by its id (none when absent or another account's). */
export async function deleteTenantRow<T extends TenantTable>(db: Executor, table: T, accountId: string, id: string): Promise<void> {
  await (db as unknown as Untyped).deleteFrom(table as 'tenant_table').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** Whether a query finds any row; it reads at most one. */
export async function hasRow(query: { limit(n: number): { executeTakeFirst(): Promise<unknown> } }): Promise<boolean> {
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}
