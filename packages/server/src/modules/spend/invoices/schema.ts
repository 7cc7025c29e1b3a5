import { z } from 'zod';
import { CURRENCY_CODES } from '../../../platform/currency.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { INVOICE_LINE_KINDS, MAX_INVOICE_ROWS } from './csv.js';
import { SPEND_PROVIDERS } from '../providers.js';

/** Largest CSV file accepted (1 MiB): a vendor invoice is a few KiB, a usage-level export far below this. */
export const MAX_INVOICE_FILE_BYTES = 1024 * 1024;

const date = (what: string) => z.iso.date({ error: 'must be a date YYYY-MM-DD' }).describe(what);

export const InvoiceIdParams = z.object({ id: z.uuid({ error: 'must be a UUID' }) });

/**
 * The multipart form, as the route reads it into `request.body` before validation (see
 * invoices/form.ts): text parts as strings, the `file` part as its bytes.
 */
export const InvoiceFormSchema = z
  .object({
    provider: z.enum(SPEND_PROVIDERS),
    periodStart: date('First day the invoice covers (inclusive)'),
    periodEnd: date('Last day the invoice covers (inclusive); not before periodStart'),
    // Trimmed and upper-cased first, as account settings read currencies ("usd" → "USD").
    currency: z
      .preprocess(
        (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
        z.enum(CURRENCY_CODES as [string, ...string[]], { error: 'must be an ISO 4217 code such as USD' }),
      )
      .default('USD')
      .meta({ type: 'string', enum: [...CURRENCY_CODES], description: 'ISO 4217 code, case-insensitive; default USD' }),
    file: z
      .custom<Buffer>((v) => Buffer.isBuffer(v), { error: 'must be a file part holding the CSV' })
      .meta({
        type: 'string',
        format: 'binary',
        description:
          `CSV (UTF-8, comma-separated, header row, at most ${MAX_INVOICE_FILE_BYTES} bytes and ${MAX_INVOICE_ROWS} line items). ` +
          'Required columns description, amount (major units, e.g. dollars: a plain decimal with at most the currency\'s minor units; ' +
          'negative for credits and discounts); optional kind (TOKEN, SEAT, TOOL, OTHER; default TOKEN when model is set, else OTHER), ' +
          'model, quantity. Other columns are ignored.',
      }),
  })
  .refine((form) => form.periodEnd >= form.periodStart, { path: ['periodEnd'], message: 'must not be before periodStart' });
export type InvoiceForm = z.output<typeof InvoiceFormSchema>;

export const InvoiceLineSchema = z.object({
  description: z.string(),
  kind: z.enum(INVOICE_LINE_KINDS),
  model: z.string().nullable(),
  quantity: decimalOutput.nullable(),
  amountCents: decimalOutput,
});

export const SpendInvoiceSchema = z
  .object({
    id: z.uuid(),
    provider: z.enum(SPEND_PROVIDERS),
    periodStart: z.iso.date(),
    periodEnd: z.iso.date(),
    currency: z.string(),
    totalCents: decimalOutput.describe('Sum of the lines, in cents of the invoice currency'),
    importedFrom: z.string().nullable().describe('Name of the uploaded file'),
    createdAt: z.date(),
    lines: z.array(InvoiceLineSchema),
  })
  .meta({ id: 'SpendInvoice' });
export type SpendInvoice = z.input<typeof SpendInvoiceSchema>;
