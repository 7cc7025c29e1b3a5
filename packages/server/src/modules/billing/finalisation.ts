import type { Executor, Tx } from '../../platform/db/database.js';
import { getCustomerById } from '../customers/index.js';
import { getAccountSettings } from '../settings/index.js';
import { recordInvoiceEvent } from './outbound.js';
import * as repo from './repo.js';
import type { DocumentSnapshot } from './tables.js';

/**
 * Invoice finalisation (api-contract-money.md §4.1, §4.5): the one place where an invoice gets its
 * number. Every write of an invoice goes through `insertInvoice` or `updateInvoice` here (billing's
 * raise, finalise, settle, void and past-due steps, the processor's mirrored invoices, agent signup
 * and CREDIT invoices all write through them), so no path can finalise without a number.
 */

/**
 * An invoice is finalised when it is written, for the first time, with a status other than PENDING;
 * VOID straight from PENDING (or a mirrored invoice created VOID) is never finalised. A numbered
 * invoice keeps its number whatever happens to it after.
 */
export const isFinalising = (row: repo.InvoiceRow) => row.number === null && row.status !== 'PENDING' && row.status !== 'VOID';

/** `<prefix>-<YYYY>-<NNNNNN>`: at least six digits (a millionth invoice of a year gets seven). */
export const formatInvoiceNumber = (prefix: string, year: number, n: bigint) => `${prefix}-${year}-${n.toString().padStart(6, '0')}`;

/**
 * Numbers the invoice and copies the issuer and the customer onto it, in the caller's transaction.
 * `finalized_at` is the write's `modified_at` (the caller's clock); its UTC year picks the sequence.
 * The counter row stays locked until the transaction ends, so numbers follow the order of finalisation.
 */
async function finalise(tx: Tx, row: repo.InvoiceRow): Promise<repo.InvoiceRow> {
  const finalizedAt = row.modified_at;
  const { parties, prefix } = await currentParties(tx, row);
  const year = finalizedAt.getUTCFullYear();
  const n = await repo.takeInvoiceNumber(tx, row.account_id, year);
  return { ...row, number: formatInvoiceNumber(prefix, year, n), finalized_at: finalizedAt, document_snapshot: parties };
}

/**
 * The issuer (account settings §1.1) and the customer (§1.2) as they are now, and the number prefix:
 * what finalisation copies onto the invoice, and what a draft's document prints.
 */
export async function currentParties(db: Executor, invoice: Pick<repo.InvoiceRow, 'account_id' | 'customer_id'>): Promise<{ parties: DocumentSnapshot; prefix: string }> {
  const settings = await getAccountSettings(db, invoice.account_id);
  const customer = await getCustomerById(db, invoice.account_id, invoice.customer_id);
  const parties: DocumentSnapshot = {
    issuer: { legalName: settings.legalName, addressLines: settings.addressLines, taxId: settings.taxId, contactEmail: settings.contactEmail },
    customer: {
      customerReferenceId: customer.customer_reference_id,
      firstName: customer.first_name,
      lastName: customer.last_name,
      email: customer.email,
      billingAddressLines: customer.billing_address_lines,
      taxId: customer.tax_id,
    },
  };
  return { parties, prefix: settings.invoiceNumberPrefix };
}

/**
 * Stores a new invoice (numbered when it is created finalised). Its `invoice.finalized` is recorded by
 * the caller with `recordFinalized` once the lines exist, after its `invoice.created` (raiseInvoice).
 */
export async function insertInvoice(tx: Tx, row: repo.InvoiceRow): Promise<repo.InvoiceRow> {
  return repo.insertInvoice(tx, isFinalising(row) ? await finalise(tx, row) : row);
}

/**
 * Writes an invoice back (numbered when this write finalises it, and then its `invoice.finalized`
 * recorded at once, before the caller's event of the new status: `invoice.paid`, `invoice.past_due`).
 */
export async function updateInvoice(tx: Tx, row: repo.InvoiceRow): Promise<repo.InvoiceRow> {
  if (!isFinalising(row)) return repo.updateInvoice(tx, row);
  const updated = await repo.updateInvoice(tx, await finalise(tx, row));
  await recordFinalized(tx, updated);
  return updated;
}

/**
 * `invoice.finalized` (api-contract-events.md §E5.11): once per invoice, in the finalising transaction,
 * the Invoice with its `number`; only a write that numbers the invoice calls it (`isFinalising`).
 */
export async function recordFinalized(tx: Tx, invoice: repo.InvoiceRow): Promise<void> {
  await recordInvoiceEvent(tx, 'invoice.finalized', invoice, invoice.finalized_at ?? invoice.modified_at);
}
