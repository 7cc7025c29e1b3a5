import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { composeInvoiceDocument, documentFileName, formatMoney, formatQuantity, formatUnitPrice, type InvoiceDocumentInput } from './model.js';
import { renderInvoicePdf } from './render.js';

const invoice: InvoiceDocumentInput = {
  invoiceId: '01970000-0000-7000-8000-000000000001',
  status: 'DUE',
  number: 'INV-2026-000042',
  finalizedAt: new Date('2026-03-10T09:00:00Z'),
  createdAt: new Date('2026-03-10T09:00:00Z'),
  dueDate: new Date('2026-04-10T00:00:00Z'),
  periodStart: new Date('2026-03-10T00:00:00Z'),
  periodEnd: new Date('2026-04-10T00:00:00Z'),
  currency: 'USD',
  amount: dec('52.00'),
  parties: {
    issuer: { legalName: 'Acme Ltd', addressLines: ['1 Main St', 'Springfield'], taxId: 'GB123', contactEmail: 'billing@acme.test' },
    customer: { customerReferenceId: 'cust-1', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', billingAddressLines: ['9 Elm Rd'], taxId: null },
  },
  lines: [
    { description: 'Plan base price: Pro', quantity: dec(1), unitPrice: dec(49), amount: dec(49) },
    { description: 'Usage for chat: 1200 units (Model: usage)', quantity: dec('1200'), unitPrice: dec('0.0025'), amount: dec(3) },
  ],
};

const pdftotext = (bytes: Uint8Array) => {
  const file = join(mkdtempSync(join(tmpdir(), 'invoice-')), 'i.pdf');
  writeFileSync(file, bytes);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
};

describe('invoice document (api-contract-money.md §4.4, §4.5)', () => {
  test('money is rounded HALF_UP to the minor units with the code after it; unit prices keep up to 6 decimals; quantities drop trailing zeros', () => {
    assert.equal(formatMoney(dec('49'), 'USD'), '49.00 USD');
    assert.equal(formatMoney(dec('-12.345'), 'EUR'), '-12.35 EUR');
    assert.equal(formatMoney(dec('1499.5'), 'JPY'), '1500 JPY');
    assert.equal(formatMoney(dec('12.5'), 'KWD'), '12.500 KWD');
    assert.equal(formatMoney(dec('-0.001'), 'USD'), '0.00 USD', 'no -0');
    assert.equal(formatUnitPrice(dec('0.25'), 'USD'), '0.25 USD');
    assert.equal(formatUnitPrice(dec('0.002'), 'USD'), '0.002 USD');
    assert.equal(formatUnitPrice(dec('49'), 'USD'), '49.00 USD');
    assert.equal(formatUnitPrice(dec('1500'), 'JPY'), '1500 JPY');
    assert.equal(formatUnitPrice(dec('0.00000049'), 'USD'), '0.00 USD', '6 dp HALF_UP');
    assert.equal(formatUnitPrice(dec('0.0000005'), 'USD'), '0.000001 USD');
    assert.equal(formatQuantity(dec('1200.000')), '1200');
    assert.equal(formatQuantity(dec('2.50')), '2.5');
  });

  test('when an invoice is finalised then the document has its number and issue date; a draft says DRAFT and has no issue date', () => {
    const doc = composeInvoiceDocument(invoice);
    assert.equal(doc.title, 'INVOICE');
    assert.deepEqual(doc.header, ['Invoice number: INV-2026-000042', 'Issue date: 2026-03-10', 'Due date: 2026-04-10', 'Service period: 2026-03-10 to 2026-04-10', 'Status: DUE']);
    assert.deepEqual(doc.from, ['Acme Ltd', '1 Main St', 'Springfield', 'Tax ID: GB123', 'billing@acme.test']);
    assert.deepEqual(doc.billTo, ['Ada Lovelace', '9 Elm Rd', 'ada@example.com', 'Reference: cust-1']);
    assert.deepEqual(doc.rows[1], ['Usage for chat: 1200 units (Model: usage)', '1200', '0.0025 USD', '3.00 USD']);
    assert.deepEqual(doc.totals, ['Total: 52.00 USD', 'Amount due: 52.00 USD']);
    assert.equal(documentFileName(invoice), 'INV-2026-000042.pdf');

    const draft = composeInvoiceDocument({ ...invoice, status: 'PENDING', number: null, finalizedAt: null });
    assert.equal(draft.title, 'DRAFT INVOICE');
    assert.deepEqual(draft.header.slice(0, 2), ['Invoice number: DRAFT', 'Due date: 2026-04-10']);
    assert.equal(documentFileName({ ...invoice, status: 'PENDING', number: null }), `draft-${invoice.invoiceId}.pdf`);
    const paid = composeInvoiceDocument({ ...invoice, status: 'PAID' });
    assert.deepEqual(paid.totals, ['Total: 52.00 USD', 'Amount due: 0.00 USD']);
    const bare = composeInvoiceDocument({
      ...invoice,
      parties: { issuer: { legalName: null, addressLines: [], taxId: null, contactEmail: null }, customer: { ...invoice.parties.customer, firstName: ' ', lastName: null, email: null, billingAddressLines: [] } },
    });
    assert.deepEqual(bare.from, []);
    assert.deepEqual(bare.billTo, ['Reference: cust-1'], 'unset fields are left out');
  });

  test('when a document is rendered twice then the bytes are identical, a text PDF whose every item pdftotext prints on one line', async () => {
    const doc = composeInvoiceDocument(invoice);
    const a = await renderInvoicePdf(doc, invoice.invoiceId);
    const b = await renderInvoicePdf(composeInvoiceDocument({ ...invoice, lines: invoice.lines.map((l) => ({ ...l })) }), invoice.invoiceId);
    assert.equal(Buffer.compare(Buffer.from(a), Buffer.from(b)), 0);
    const head = Buffer.from(a.subarray(0, 8)).toString('latin1');
    assert.match(head, /^%PDF-1\.\d/);
    const raw = Buffer.from(a).toString('latin1');
    assert.match(raw, /\/CreationDate \(D:20260310090000Z\)/);
    assert.doesNotMatch(raw, /D:20(?!260310090000Z)\d{12}/, 'no other date: never the current time');
    const text = pdftotext(a);
    for (const item of [doc.title, ...doc.header, 'From', ...doc.from, 'Bill to', ...doc.billTo, ...doc.totals]) {
      assert.ok(text.includes(item), `${item} in:\n${text}`);
    }
    for (const row of doc.rows) {
      const line = text.split('\n').find((l) => l.includes(row[0]));
      assert.ok(line, row[0]);
      assert.match(line, new RegExp(row.filter((c) => c !== '').map((c) => c.replace(/[.()$]/g, '\\$&')).join('\\s+')));
    }
    const other = await renderInvoicePdf(composeInvoiceDocument({ ...invoice, status: 'PAID' }), invoice.invoiceId);
    assert.notEqual(Buffer.compare(Buffer.from(a), Buffer.from(other)), 0, 'a status change changes the document');
  });

  test('when an invoice has many lines then it runs over several pages and keeps every line', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => ({ description: `Line ${i + 1} with a rather long description that must shrink to fit its column`, quantity: dec(i + 1), unitPrice: null, amount: dec('1.5') }));
    const doc = composeInvoiceDocument({ ...invoice, lines, amount: dec(180) });
    const text = pdftotext(await renderInvoicePdf(doc, invoice.invoiceId));
    assert.ok(text.includes('\f'), 'more than one page');
    for (const row of doc.rows) assert.ok(text.includes(row[0]), row[0]);
    assert.ok(text.includes('Total: 180.00 USD'));
  });
});
