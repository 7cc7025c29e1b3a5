import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  SCALE,
  divide,
  divideByInteger,
  formatDecimal,
  isCanonicalDecimal,
  multiply,
  parseDecimal,
  roundHalfUp,
} from './decimal.js';

const d = parseDecimal;
const f = formatDecimal;

test('parse/format round-trips canonical strings', () => {
  for (const text of ['0', '1', '-1', '50', '0.5', '-25.5', '0.333333333333', '9.000000000001', '-0.000000000001', '1'.repeat(400)]) {
    assert.ok(isCanonicalDecimal(text), text);
    assert.equal(f(d(text)), text);
  }
  assert.equal(f(0n), '0');
  assert.equal(f(-0n), '0');
  assert.equal(f(SCALE * 10n), '10');
});

test('HALF_UP: ties move away from zero, less than half is dropped', () => {
  assert.equal(roundHalfUp(5n, 10n), 1n);
  assert.equal(roundHalfUp(-5n, 10n), -1n);
  assert.equal(roundHalfUp(4n, 10n), 0n);
  assert.equal(roundHalfUp(-4n, 10n), 0n);
  assert.equal(roundHalfUp(15n, 10n), 2n);
  assert.equal(roundHalfUp(-15n, 10n), -2n);
  assert.equal(roundHalfUp(5n, -10n), -1n);
  assert.throws(() => roundHalfUp(1n, 0n), RangeError);
});

test('methodology 2.3 examples', () => {
  assert.equal(f(divide(d('1'), d('3'))), '0.333333333333');
  assert.equal(f(divide(d('2'), d('3'))), '0.666666666667');
  assert.equal(f(multiply(d('0.333333333333'), d('1.5'))), '0.5');
  assert.equal(f(multiply(d('0.999999999999'), d('0.5'))), '0.5');
  assert.equal(f(multiply(d('0.999999999999'), d('1.25'))), '1.249999999999');
  assert.equal(f(divideByInteger(d('0.999999999999'), 28)), '0.035714285714');
  assert.equal(f(divideByInteger(d('0.000000000001'), 2)), '0.000000000001');
  assert.equal(f(divideByInteger(d('-0.000000000001'), 2)), '-0.000000000001');
  assert.equal(f(divideByInteger(d('0.000000000001'), 3)), '0');
});

test('rounds from the exact quotient, not a truncated one', () => {
  // 0.0000000000005 exactly: a tie at the 13th digit rounds up.
  assert.equal(f(divide(d('0.000000000001'), d('2'))), '0.000000000001');
  // Just below the tie, far past the 13th digit.
  assert.equal(f(divide(d('0.000000000001'), d('2.000000000001'))), '0');
});
