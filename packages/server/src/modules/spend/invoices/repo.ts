import type { Insertable } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { InvoiceLineRow, InvoiceRow, SpendInvoiceLinesTable, SpendInvoicesTable } from '../tables.js';
import { findTenantRow, tenantRows } from '../../../platform/db/tenant-row.js';

export type { InvoiceRow, InvoiceLineRow } from '../tables.js';

/** Lines per INSERT statement: 7 parameters each stays far below both drivers' parameter limit. */
const LINES_PER_INSERT = 1000;

export async function insertInvoice(db: Executor, invoice: Insertable<SpendInvoicesTable>, lines: Insertable<SpendInvoiceLinesTable>[]): Promise<void> {
  await db.insertInto('spend_invoices').values(invoice).execute();
  for (let i = 0; i < lines.length; i += LINES_PER_INSERT) {
    await db.insertInto('spend_invoice_lines').values(lines.slice(i, i + LINES_PER_INSERT)).execute();
  }
}

/** The account's invoices: latest period first, then in import order (ids are UUIDv7). */
export function listInvoiceRows(db: Executor, accountId: string): Promise<InvoiceRow[]> {
  return tenantRows(db, 'spend_invoices', accountId)
    .orderBy('period_start', 'desc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

export function findInvoiceRow(db: Executor, accountId: string, id: string): Promise<InvoiceRow | undefined> {
  return findTenantRow(db, 'spend_invoices', accountId, id);
}

/** Lines of these invoices, in file order. */
export function listLineRows(db: Executor, accountId: string, invoiceIds: string[]): Promise<InvoiceLineRow[]> {
  if (invoiceIds.length === 0) return Promise.resolve([]);
  return tenantRows(db, 'spend_invoice_lines', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('invoice_id')
    .orderBy('line_no')
    .execute();
}

/** Deletes the invoice (its lines go with it: on delete cascade); false when the account has none with this id. */
export async function deleteInvoiceRow(db: Executor, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('spend_invoices').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
