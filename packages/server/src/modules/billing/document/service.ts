import type { AppContext } from '../../../platform/context.js';
import { AppError, notFound } from '../../../platform/errors/app-error.js';
import type { Principal } from '../../../platform/http/principal.js';
import { isUuid } from '../../../platform/ids.js';
import { dec } from '../../../platform/money.js';
import { currentParties } from '../finalisation.js';
import * as repo from '../repo.js';
import { composeInvoiceDocument, documentFileName } from './model.js';
import { renderInvoicePdf } from './render.js';

/**
 * An invoice's PDF (api-contract-money.md §4.3): any invoice of the account for a tenant key or an
 * operator; a portal token only its own customer's (403 otherwise). An id that is not a uuid, an
 * unknown invoice and another account's are all 404. A finalised invoice prints the issuer and
 * customer copied at finalisation; a draft prints the current ones.
 */
export async function getInvoicePdf(ctx: AppContext, principal: Principal, invoiceId: string): Promise<{ fileName: string; bytes: Uint8Array }> {
  const missing = () => notFound(`Invoice not found: ${invoiceId}`);
  if (!isUuid(invoiceId)) throw missing();
  const invoice = await repo.findInvoice(ctx.db, principal.accountId, invoiceId.toLowerCase());
  if (!invoice) throw missing();
  if (principal.kind === 'customer' && invoice.customer_id !== principal.customerId) {
    throw new AppError('forbidden', 'This API key is scoped to another customer');
  }
  const items = await repo.listInvoiceItems(ctx.db, invoice.account_id, [invoice.id]);
  const input = {
    invoiceId: invoice.id,
    status: invoice.status,
    number: invoice.number,
    finalizedAt: invoice.finalized_at,
    createdAt: invoice.created_at,
    dueDate: invoice.due_date,
    periodStart: invoice.period_start,
    periodEnd: invoice.period_end,
    currency: invoice.currency,
    amount: dec(invoice.amount),
    parties: invoice.document_snapshot ?? (await currentParties(ctx.db, invoice)).parties,
    lines: items.map((i) => ({ description: i.description, quantity: dec(i.quantity), unitPrice: i.unit_price === null ? null : dec(i.unit_price), amount: dec(i.charge_amount) })),
  };
  return { fileName: documentFileName(input), bytes: await renderInvoicePdf(composeInvoiceDocument(input), invoice.id) };
}
