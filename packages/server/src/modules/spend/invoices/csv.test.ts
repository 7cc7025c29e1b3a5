import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { MAX_INVOICE_ROWS, majorToCents, parseInvoiceCsv, type ParsedInvoice } from './csv.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const parsed = (text: string, currency = 'USD') => {
  const result = parseInvoiceCsv(bytes(text), currency);
  assert.ok(!('problems' in result), JSON.stringify(result));
  return result as ParsedInvoice;
};
const problems = (text: string, currency = 'USD') => {
  const result = parseInvoiceCsv(bytes(text), currency);
  assert.ok('problems' in result, 'the file is refused');
  return result.problems;
};

test('majorToCents is exact on the decimal text: 0.1 + 0.2 dollars are 30 cents, 12 digits stay whole', () => {
  assert.equal(majorToCents(dec('0.1')).plus(majorToCents(dec('0.2'))).toFixed(), '30');
  assert.equal(majorToCents(dec('999999999999.99')).toFixed(), '99999999999999');
  assert.equal(majorToCents(dec('-0.015')).toFixed(), '-1.5');
});

test('kind defaults to TOKEN when the row names a model, else OTHER; values are case-insensitive', () => {
  const { lines } = parsed('description,amount,model,kind\na,1,gpt-5,\nb,1,,\nc,1,,tool\n');
  assert.deepEqual(lines.map((l) => l.kind), ['TOKEN', 'OTHER', 'TOOL']);
});

test('row numbers are spreadsheet rows: a quoted line break stays in its row, blank rows still count', () => {
  assert.deepEqual(problems('description,amount\n"two\nlines",1\n\nx,abc\n').map((p) => p.split(':')[0]), ['Row 4, column amount']);
});

test('a file with many bad rows lists at most 50 problems', () => {
  assert.equal(problems(`description,amount\n${'x,bad\n'.repeat(200)}`).length, 50);
});

test(`at most ${MAX_INVOICE_ROWS} line items; blank rows do not count`, () => {
  assert.equal(parsed(`description,amount\n${'x,1\n\n'.repeat(MAX_INVOICE_ROWS)}`).lines.length, MAX_INVOICE_ROWS);
  assert.match(problems(`description,amount\n${'x,1\n'.repeat(MAX_INVOICE_ROWS + 1)}`)[0]!, /at most 10000 per invoice/);
});

test('credits are allowed as lines, and a zero total is an invoice; a KWD amount may carry 3 places', () => {
  assert.equal(parsed('description,amount\nusage,5\ncredit,-5\n').totalCents.toFixed(), '0');
  assert.equal(parsed('description,amount\nusage,1.234\n', 'KWD').totalCents.toFixed(), '123.4');
});
