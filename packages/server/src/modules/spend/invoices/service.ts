import type { AppContext } from '../../../platform/context.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { invalid, notFound } from '../../../platform/errors/app-error.js';
import { newId } from '../../../platform/ids.js';
import { dec } from '../../../platform/money.js';
import { parseInvoiceCsv } from './csv.js';
import * as repo from './repo.js';
import type { InvoiceForm, SpendInvoice } from './schema.js';

export type ImportInvoiceInput = { accountId: string; form: InvoiceForm; fileName: string | null };

/**
 * Imports an invoice from its CSV (contract §7.8): every row is checked first, and the invoice
 * with all its lines is written in one transaction, so a file with any bad row writes nothing.
 */
export async function importInvoice(ctx: AppContext, input: ImportInvoiceInput): Promise<SpendInvoice> {
  const { form } = input;
  const parsed = parseInvoiceCsv(form.file, form.currency);
  if ('problems' in parsed) {
    const [first, ...rest] = parsed.problems;
    const more = rest.length === 0 ? '' : ` (and ${rest.length} more problem${rest.length === 1 ? '' : 's'}; see fields)`;
    throw invalid(`${first}${more}`, { fields: parsed.problems.map((message) => ({ field: 'file', message })) });
  }
  const now = ctx.clock.now();
  const id = newId(now.getTime());
  const invoice = {
    id,
    account_id: input.accountId,
    provider: form.provider,
    period_start: form.periodStart,
    period_end: form.periodEnd,
    currency: form.currency,
    total_cents: parsed.totalCents.toFixed(),
    imported_from: input.fileName,
    created_at: now,
  };
  const lines = parsed.lines.map((line, index) => ({
    account_id: input.accountId,
    invoice_id: id,
    line_no: index + 1,
    description: line.description,
    kind: line.kind,
    model: line.model,
    quantity: line.quantity?.toFixed() ?? null,
    amount_cents: line.amountCents.toFixed(),
  }));
  await withTransaction(ctx.db, (tx) => repo.insertInvoice(tx, invoice, lines));
  return toInvoiceView(invoice, lines);
}

/** The account's invoices with their lines: latest period first, then in import order. */
export async function listInvoices(ctx: AppContext, accountId: string): Promise<SpendInvoice[]> {
  const rows = await repo.listInvoiceRows(ctx.db, accountId);
  const lines = await repo.listLineRows(ctx.db, accountId, rows.map((r) => r.id));
  const byInvoice = new Map<string, repo.InvoiceLineRow[]>();
  for (const line of lines) {
    const list = byInvoice.get(line.invoice_id);
    if (list) list.push(line);
    else byInvoice.set(line.invoice_id, [line]);
  }
  return rows.map((row) => toInvoiceView(row, byInvoice.get(row.id) ?? []));
}

/** Deletes one of the account's invoices; another account's or an unknown id is 404. */
export async function deleteInvoice(ctx: AppContext, accountId: string, id: string): Promise<void> {
  const deleted = await withTransaction(ctx.db, (tx) => repo.deleteInvoiceRow(tx, accountId, id));
  if (!deleted) throw notFound(`Invoice ${id} not found`);
}

type InvoiceFields = Omit<repo.InvoiceRow, 'account_id'>;
type LineFields = Omit<repo.InvoiceLineRow, 'account_id' | 'invoice_id' | 'line_no'>;

function toInvoiceView(row: InvoiceFields, lines: LineFields[]): SpendInvoice {
  return {
    id: row.id,
    provider: row.provider,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    currency: row.currency,
    totalCents: dec(row.total_cents),
    importedFrom: row.imported_from,
    createdAt: row.created_at,
    lines: lines.map((line) => ({
      description: line.description,
      kind: line.kind,
      model: line.model,
      quantity: line.quantity === null ? null : dec(line.quantity),
      amountCents: dec(line.amount_cents),
    })),
  };
}
