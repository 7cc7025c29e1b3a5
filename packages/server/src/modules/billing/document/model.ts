import { minorUnits } from '../../../platform/currency.js';
import { Money, roundUnitPrice, type Decimal } from '../../../platform/money.js';
import type { DocumentSnapshot, InvoiceStatus } from '../tables.js';

/**
 * What an invoice document says (api-contract-money.md §4.4), as pure data: the invoice's stored
 * state in, the text of every item out. No I/O, no clock: the same invoice gives the same text, and
 * so (render.ts) the same bytes.
 */
export type InvoiceDocumentInput = {
  invoiceId: string;
  status: InvoiceStatus;
  number: string | null;
  finalizedAt: Date | null;
  createdAt: Date;
  dueDate: Date;
  periodStart: Date | null;
  periodEnd: Date | null;
  currency: string;
  amount: Decimal;
  /** The copy taken at finalisation; a draft's current issuer and customer. */
  parties: DocumentSnapshot;
  /** In createdAt (line) order. */
  lines: { description: string; quantity: Decimal; unitPrice: Decimal | null; amount: Decimal }[];
};

/** Every item of §4.4, each one string drawn as one text run on one line. */
export type InvoiceDocument = {
  title: string;
  header: string[];
  from: string[];
  billTo: string[];
  columns: readonly [string, string, string, string];
  rows: [string, string, string, string][];
  totals: string[];
  /** The document info dates: finalizedAt, a draft's createdAt. */
  date: Date;
  /** Document title in the PDF's info. */
  infoTitle: string;
};

/** Money (line amounts, total, amount due): HALF_UP to the currency's minor units, that many decimals, then the code: `49.00 USD`, `1500 JPY`. */
export function formatMoney(amount: Decimal, currency: string): string {
  return `${Money.of(amount, currency).rounded().toFixed()} ${currency}`;
}

/** Unit price: 6 dp HALF_UP, trailing zeros dropped down to the currency's minor units: `0.25 USD`, `0.002 USD`, `49.00 USD`, `1500 JPY`. */
export function formatUnitPrice(price: Decimal, currency: string): string {
  const minor = minorUnits(currency);
  const rounded = roundUnitPrice(price);
  const places = Math.max(minor, rounded.decimalPlaces());
  const text = rounded.toFixed(places);
  return `${text === '-0' || /^-0\.0*$/.test(text) ? text.slice(1) : text} ${currency}`;
}

/** Quantity: the decimal without trailing zeros or grouping: `1`, `1200`, `2.5`. */
export const formatQuantity = (quantity: Decimal) => quantity.toFixed();

/** `YYYY-MM-DD`, UTC. */
export const formatDate = (date: Date) => date.toISOString().slice(0, 10);

const isDraft = (status: InvoiceStatus) => status === 'PENDING';
const OWED: readonly InvoiceStatus[] = ['PENDING', 'DUE', 'PAST_DUE'];

/** The text of the document (§4.4): labels fixed, unset fields left out. */
export function composeInvoiceDocument(input: InvoiceDocumentInput): InvoiceDocument {
  const draft = isDraft(input.status);
  const { issuer, customer } = input.parties;
  const header = [
    `Invoice number: ${draft || input.number === null ? 'DRAFT' : input.number}`,
    ...(!draft && input.finalizedAt ? [`Issue date: ${formatDate(input.finalizedAt)}`] : []),
    `Due date: ${formatDate(input.dueDate)}`,
    ...(input.periodStart && input.periodEnd ? [`Service period: ${formatDate(input.periodStart)} to ${formatDate(input.periodEnd)}`] : []),
    `Status: ${input.status}`,
  ];
  const from = [
    issuer.legalName,
    ...issuer.addressLines,
    issuer.taxId === null ? null : `Tax ID: ${issuer.taxId}`,
    issuer.contactEmail,
  ].filter((l): l is string => l !== null && l !== '');
  const name = `${customer.firstName ?? ''} ${customer.lastName ?? ''}`.trim();
  const billTo = [
    name,
    ...customer.billingAddressLines,
    customer.taxId === null ? null : `Tax ID: ${customer.taxId}`,
    customer.email,
    `Reference: ${customer.customerReferenceId}`,
  ].filter((l): l is string => l !== null && l !== '');
  const rows = input.lines.map((l): [string, string, string, string] => [
    l.description,
    formatQuantity(l.quantity),
    l.unitPrice === null ? '' : formatUnitPrice(l.unitPrice, input.currency),
    formatMoney(l.amount, input.currency),
  ]);
  const due = OWED.includes(input.status) ? input.amount : Money.zero(input.currency).amount;
  return {
    title: draft ? 'DRAFT INVOICE' : 'INVOICE',
    header,
    from,
    billTo,
    columns: ['Description', 'Quantity', 'Unit price', 'Amount'],
    rows,
    totals: [`Total: ${formatMoney(input.amount, input.currency)}`, `Amount due: ${formatMoney(due, input.currency)}`],
    date: draft || !input.finalizedAt ? input.createdAt : input.finalizedAt,
    infoTitle: draft || input.number === null ? `Draft invoice ${input.invoiceId}` : `Invoice ${input.number}`,
  };
}

/** The file name of the document (§4.3): `<number>.pdf`, a draft's `draft-<invoiceId>.pdf`. */
export const documentFileName = (input: Pick<InvoiceDocumentInput, 'invoiceId' | 'status' | 'number'>) =>
  isDraft(input.status) || input.number === null ? `draft-${input.invoiceId}.pdf` : `${input.number}.pdf`;
