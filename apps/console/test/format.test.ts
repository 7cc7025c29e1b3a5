import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareDecimals, decimalText, formatCredits, formatMoney, formatUnitPrice, minorUnits, multiplyDecimals, subtractDecimals, sumDecimals } from '../src/format.js';

/**
 * The console's number formatting (no browser needed: the same Intl as Chromium's V8). Each case
 * would fail if an amount went through a double: 17 significant digits and more are kept.
 */
describe('console: money and credit formatting', () => {
  /** Intl's own text for an amount a double holds exactly: the expected output in any locale. */
  const intl = (value: number, currency: string) => new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(value);
  const digits = (text: string) => text.replace(/\D/g, '');

  test('when an amount has more digits than a double holds then every digit is shown', () => {
    // Through a double the first would show …568.00 and the second lose its last digit.
    assert.equal(digits(formatMoney('12345678901234567.89', 'USD')), '1234567890123456789');
    assert.equal(digits(formatCredits('123456789012345678.000000000000000001')), '123456789012345678000000000000000001');
    assert.equal(formatCredits('0.1'), '0.1');
  });

  test("when a currency is formatted then its minor units are used: JPY 0, USD 2, BHD 3", () => {
    assert.equal(formatMoney('1234', 'JPY'), intl(1234, 'JPY'));
    assert.equal(digits(formatMoney('1234', 'JPY')), '1234');
    assert.equal(digits(formatMoney('30', 'USD')), '3000');
    assert.equal(formatMoney('1.5', 'bhd'), intl(1.5, 'BHD'));
    assert.equal(digits(formatMoney('1.5', 'BHD')), '1500');
    // MRR of 30 + 100/12: the display rounds to the currency's minor unit, half away from zero.
    assert.equal(digits(formatMoney('38.333333', 'USD')), '3833');
    assert.equal(digits(formatMoney('0.125', 'USD')), '013');
  });

  test('when decimals are summed then the sum is exact (0.1 + 0.2 is 0.3) and large values keep every digit', () => {
    assert.equal(sumDecimals(['0.1', '0.2']), '0.3');
    assert.equal(sumDecimals(['9007199254740993', '1']), '9007199254740994');
    assert.equal(sumDecimals(['-1.25', 0.25, null]), '-1');
  });

  test('when decimals are subtracted, multiplied or compared then the result is exact (no float digits)', () => {
    // As doubles: 900.997 − 99.003 × 3 is 603.9879999999999, and 0.1 × 3 is 0.30000000000000004.
    assert.equal(subtractDecimals('900.997', multiplyDecimals('99.003', 3)), '603.988');
    assert.equal(multiplyDecimals('0.1', 3), '0.3');
    assert.equal(multiplyDecimals('-1.25', '0.2'), '-0.25');
    assert.equal(multiplyDecimals('123456789012345678.9', '10'), '1234567890123456789');
    assert.equal(subtractDecimals('1', '1.000001'), '-0.000001');
    assert.equal(subtractDecimals('2.50', '0.5'), '2');
    assert.equal(compareDecimals('-0.000001', 0), -1);
    assert.equal(compareDecimals('10.10', '10.1'), 0);
    assert.equal(compareDecimals('9007199254740993', '9007199254740992'), 1, 'beyond 2^53, where doubles tie');
  });

  test('when a price per unit is formatted then it keeps every digit of the rate and at least the minor units', () => {
    assert.equal(digits(formatUnitPrice('0.0125', 'USD')), '00125');
    assert.match(formatUnitPrice('0.0125', 'USD'), /0\.0125/);
    assert.match(formatUnitPrice('0.5', 'USD'), /0\.50/);
    assert.equal(formatUnitPrice('3', 'JPY'), intl(3, 'JPY'));
    assert.match(formatUnitPrice('0.000001', 'EUR'), /0\.000001/);
  });

  test("when a currency's minor units are asked then ISO 4217's are answered", () => {
    assert.deepEqual(['JPY', 'usd', 'EUR', 'BHD', 'KWD'].map(minorUnits), [0, 2, 2, 3, 3]);
  });

  test('when the API sends a number in exponent form then its decimal text is expanded', () => {
    assert.equal(decimalText(1e-7), '0.0000001');
    assert.equal(decimalText(1.5e21), '1500000000000000000000');
  });
});
