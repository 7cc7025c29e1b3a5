import type { Executor } from '../../platform/db/database.js';
import type { Insertable } from 'kysely';
import type { CustomerRow, CustomersTable } from './tables.js';

/** A customer as inserted: the agent lifecycle and mandate columns default to null. */
type NewCustomerRow = Insertable<CustomersTable>;
import { findTenantRow, withoutKey } from '../../platform/db/tenant-row.js';

export type { CustomerRow } from './tables.js';

export const findCustomerByRef = (db: Executor, accountId: string, ref: string) =>
  db.selectFrom('customers').selectAll().where('account_id', '=', accountId).where('customer_reference_id', '=', ref).executeTakeFirst();

/** The customer row, locked for the rest of the transaction (a PATCH reads then writes it). */
export const lockCustomerByRef = (db: Executor, accountId: string, ref: string) =>
  db.selectFrom('customers').selectAll().where('account_id', '=', accountId).where('customer_reference_id', '=', ref).forUpdate().executeTakeFirst();

export const lockCustomerById = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'customers', accountId, id, 'lock');

export const findCustomerById = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'customers', accountId, id);

export const insertCustomer = (db: Executor, row: NewCustomerRow) => db.insertInto('customers').values(row).returningAll().executeTakeFirstOrThrow();

/** Inserts unless the reference exists; returns the row either way (race-safe auto-creation). */
/** The customer with this reference, inserted when missing; `created` says which. */
export async function ensureCustomer(db: Executor, row: NewCustomerRow): Promise<{ row: CustomerRow; created: boolean }> {
  const inserted = await db
    .insertInto('customers')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'customer_reference_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  return inserted ? { row: inserted, created: true } : { row: (await findCustomerByRef(db, row.account_id, row.customer_reference_id))!, created: false };
}

export const updateCustomer = (db: Executor, row: CustomerRow) =>
  db.updateTable('customers').set(withoutKey(row)).where('account_id', '=', row.account_id).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();

export function listCustomers(db: Executor, accountId: string, options: { ref?: string | undefined; limit?: number; offset?: number }) {
  let q = db.selectFrom('customers').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id');
  if (options.ref) q = q.where('customer_reference_id', '=', options.ref);
  if (options.limit !== undefined) q = q.limit(options.limit).offset(options.offset ?? 0);
  return q.execute();
}

export async function countCustomers(db: Executor, accountId: string, ref?: string): Promise<number> {
  let q = db.selectFrom('customers').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', accountId);
  if (ref) q = q.where('customer_reference_id', '=', ref);
  return Number((await q.executeTakeFirstOrThrow()).n);
}
