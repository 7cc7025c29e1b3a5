import { parse } from 'csv-parse/sync';
import { minorUnits } from '../../../platform/currency.js';
import type { SpendInvoiceLineKind } from '../tables.js';
import { dec, type Decimal } from '../../../platform/money.js';

/**
 * Invoice CSV import (contract §7.8), pure: bytes in, lines or every problem out. Row numbers are
 * what a spreadsheet shows: the header is row 1, the first line item row 2; a quoted field that
 * spans lines is still one row.
 */

export const INVOICE_LINE_KINDS = ['TOKEN', 'SEAT', 'TOOL', 'OTHER'] as const satisfies readonly SpendInvoiceLineKind[];

/** Line items one invoice may carry (a vendor invoice has tens; a usage export a few thousand). */
export const MAX_INVOICE_ROWS = 10_000;
/** Largest |amount| of one line, in major units: 10,000 lines of it still fit numeric(30,10) in cents. */
export const MAX_LINE_AMOUNT = '1000000000000';
/** Largest |quantity| of one line; at most QUANTITY_SCALE decimal places (the column's scale). */
export const MAX_LINE_QUANTITY = '1000000000000000';
const QUANTITY_SCALE = 10;
export const MAX_DESCRIPTION_LENGTH = 500;
export const MAX_MODEL_LENGTH = 200;
/** How many problems one answer lists (the first is the message). */
const MAX_PROBLEMS = 50;

const REQUIRED_COLUMNS = ['description', 'amount'] as const;
/** Plain decimals only: no exponent, no thousands separators, no currency sign. */
const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

export type InvoiceLine = {
  description: string;
  kind: SpendInvoiceLineKind;
  model: string | null;
  quantity: Decimal | null;
  amountCents: Decimal;
};

export type ParsedInvoice = { lines: InvoiceLine[]; totalCents: Decimal };

/** What a refused file says: the first problem is the message, all of them (up to 50) are listed. */
export type CsvProblems = { problems: string[] };

/**
 * An amount in the invoice currency's major units (dollars) as cents, exactly: × 100 on the
 * decimal text, never through a float. "Cents" are hundredths of the major unit for every
 * currency, as everywhere in the spend module.
 */
export function majorToCents(amount: Decimal): Decimal {
  return amount.times(100);
}

/**
 * Parses an invoice CSV. Required columns `description`, `amount` (major units); optional `kind`
 * (TOKEN | SEAT | TOOL | OTHER, case-insensitive; default TOKEN when the row names a model, else
 * OTHER), `model`, `quantity`. Header names are matched trimmed and case-insensitively; other
 * columns are ignored; blank rows are skipped. Negative amounts are credits or discounts and are
 * allowed, but the invoice total may not be negative. An amount may carry at most the currency's
 * ISO 4217 minor units (USD 2, JPY 0): an invoice states settled money, so more is refused, never
 * rounded.
 */
export function parseInvoiceCsv(bytes: Uint8Array, currency: string): ParsedInvoice | CsvProblems {
  const text = decodeUtf8(bytes);
  if (text === null) return fail('file: not UTF-8 text; export the invoice as a CSV file (UTF-8)');
  if (text.includes('\u0000')) return fail('file: contains NUL characters; export the invoice as a CSV file (UTF-8)');
  let records: string[][];
  try {
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: false, trim: true }) as string[][];
  } catch (err) {
    return fail(`file: not valid CSV: ${(err as Error).message}`);
  }
  const rows = records.map((fields, index) => ({ number: index + 1, fields })).filter((row) => !isBlank(row.fields));
  const [header, ...body] = rows;
  if (!header) return fail('file: the CSV is empty; expected a header row naming at least description and amount');
  const headerRead = readHeader(header.fields, header.number);
  if ('problems' in headerRead) return headerRead;
  const { columns } = headerRead;
  if (body.length === 0) return fail(`file: the CSV has a header but no line items (row ${header.number + 1} onwards is empty)`);
  if (body.length > MAX_INVOICE_ROWS) return fail(`file: ${body.length} line items; at most ${MAX_INVOICE_ROWS} per invoice`);

  const problems: string[] = [];
  const lines: InvoiceLine[] = [];
  const scale = minorUnits(currency);
  for (const row of body) {
    const line = readRow(row.fields, row.number, columns, header.fields.length, scale, currency, problems);
    if (line) lines.push(line);
    if (problems.length >= MAX_PROBLEMS) break;
  }
  if (problems.length > 0) return { problems: problems.slice(0, MAX_PROBLEMS) };
  const totalCents = lines.reduce((sum, line) => sum.plus(line.amountCents), dec(0));
  if (totalCents.isNegative()) {
    return fail(`file: the line items add up to a negative total (${totalCents.dividedBy(100).toFixed()} ${currency}); credit lines are allowed, a negative invoice is not`);
  }
  return { lines, totalCents };
}

type Columns = Record<string, number>;

function readHeader(fields: string[], rowNumber: number): { columns: Columns } | CsvProblems {
  const columns: Columns = {};
  const problems: string[] = [];
  fields.forEach((raw, index) => {
    const name = raw.trim().toLowerCase();
    if (name === '') return;
    if (name in columns) problems.push(`Row ${rowNumber}, column ${name}: appears more than once in the header`);
    else columns[name] = index;
  });
  for (const required of REQUIRED_COLUMNS) {
    if (!(required in columns)) {
      problems.push(`Row ${rowNumber}, column ${required}: missing from the header (required columns: ${REQUIRED_COLUMNS.join(', ')}; optional: kind, model, quantity)`);
    }
  }
  return problems.length > 0 ? { problems } : { columns };
}

function readRow(
  fields: string[],
  rowNumber: number,
  columns: Columns,
  width: number,
  scale: number,
  currency: string,
  problems: string[],
): InvoiceLine | null {
  if (fields.length !== width) {
    problems.push(`Row ${rowNumber}: has ${fields.length} fields, the header has ${width}`);
    return null;
  }
  const before = problems.length;
  const problem = (column: string, message: string) => problems.push(`Row ${rowNumber}, column ${column}: ${message}`);
  const cell = (column: string) => (column in columns ? fields[columns[column]!]!.trim() : '');

  const description = cell('description');
  if (description === '') problem('description', 'is empty');
  else if (description.length > MAX_DESCRIPTION_LENGTH) problem('description', `longer than ${MAX_DESCRIPTION_LENGTH} characters`);

  const amountText = cell('amount');
  const amount = amountText === '' ? (problem('amount', 'is empty'), null) : readDecimal(amountText, 'amount', problem);
  if (amount) {
    if (amount.abs().gt(MAX_LINE_AMOUNT)) problem('amount', `beyond ±${MAX_LINE_AMOUNT}: '${quote(amountText)}'`);
    else if (amount.decimalPlaces() > scale) problem('amount', `${currency} amounts have at most ${scale} decimal places: '${quote(amountText)}'`);
  }

  const model = cell('model') || null;
  if (model && model.length > MAX_MODEL_LENGTH) problem('model', `longer than ${MAX_MODEL_LENGTH} characters`);

  const kindText = cell('kind').toUpperCase();
  const kind: SpendInvoiceLineKind | null =
    kindText === '' ? (model ? 'TOKEN' : 'OTHER') : (INVOICE_LINE_KINDS as readonly string[]).includes(kindText) ? (kindText as SpendInvoiceLineKind) : null;
  if (!kind) problem('kind', `must be one of ${INVOICE_LINE_KINDS.join(', ')}: '${quote(cell('kind'))}'`);

  const quantityText = cell('quantity');
  const quantity = quantityText === '' ? null : readDecimal(quantityText, 'quantity', problem);
  if (quantity) {
    if (quantity.abs().gt(MAX_LINE_QUANTITY)) problem('quantity', `beyond ±${MAX_LINE_QUANTITY}: '${quote(quantityText)}'`);
    else if (quantity.decimalPlaces() > QUANTITY_SCALE) problem('quantity', `at most ${QUANTITY_SCALE} decimal places: '${quote(quantityText)}'`);
  }

  if (problems.length > before || !amount || !kind) return null;
  return { description, kind, model, quantity, amountCents: majorToCents(amount) };
}

/** A plain decimal (`-12.50`, `+3`, `.5`), or null after reporting the cell. */
function readDecimal(text: string, column: string, problem: (column: string, message: string) => void): Decimal | null {
  if (!DECIMAL_TEXT.test(text)) {
    problem(column, `not a number: '${quote(text)}' (write a plain decimal such as 1234.50: no currency sign, no thousands separator)`);
    return null;
  }
  return dec(text);
}

function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

const isBlank = (fields: string[]) => fields.every((f) => f.trim() === '');
/** A cell as quoted in a message: at most 40 characters. */
const quote = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);
const fail = (problem: string): CsvProblems => ({ problems: [problem] });
