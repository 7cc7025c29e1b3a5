import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CURRENCY_CODES, MAX_MINOR_UNITS, isCurrencyCode, minorUnits } from './currency.js';
import { Money, dec, floorCredits, roundCredits, roundToMinorUnits } from './money.js';

test('when looking up minor units then ISO 4217 gives JPY 0, USD/EUR 2, KWD/BHD 3, CLF 4, and unknown codes 2', () => {
  assert.deepEqual(
    ['JPY', 'KRW', 'USD', 'EUR', 'GBP', 'KWD', 'BHD', 'TND', 'CLF', 'ZZZ'].map(minorUnits),
    [0, 0, 2, 2, 2, 3, 3, 3, 4, 2],
  );
  assert.equal(isCurrencyCode('USD'), true);
  assert.equal(isCurrencyCode('ZZZ'), false);
  assert.equal(Math.max(...CURRENCY_CODES.map(minorUnits)), MAX_MINOR_UNITS, 'the money columns hold the widest currency');
});

test('when rounding to minor units then it is HALF_UP at the boundary, away from zero for negatives', () => {
  const cases: [string, string, string][] = [
    ['JPY', '100.5', '101'],
    ['JPY', '100.4999999', '100'],
    ['JPY', '-100.5', '-101'],
    ['USD', '0.005', '0.01'],
    ['USD', '0.0049999', '0'],
    ['USD', '-0.005', '-0.01'],
    ['USD', '19.994999', '19.99'],
    ['KWD', '1.0005', '1.001'],
    ['KWD', '1.0004999', '1'],
    ['KWD', '-2.3335', '-2.334'],
  ];
  for (const [currency, value, expected] of cases) {
    assert.equal(roundToMinorUnits(dec(value), currency).toFixed(), expected, `${value} ${currency}`);
  }
});

test('when a Money value is written then it carries exactly its currency minor units and never "-0"', () => {
  assert.equal(Money.of('1000', 'JPY').toFixed(), '1000');
  assert.equal(Money.of('12.5', 'USD').toFixed(), '12.50');
  assert.equal(Money.of('1.2345', 'KWD').rounded().toFixed(), '1.235');
  assert.equal(Money.of('-0.0001', 'USD').rounded().amount.isNegative(), false);
  assert.equal(Money.of('0', 'USD').negated().amount.isNegative(), false);
  assert.equal(Money.of('1.25', 'USD').fitsMinorUnits(), true);
  assert.equal(Money.of('1.25', 'JPY').fitsMinorUnits(), false);
  assert.equal(Money.of('1.234', 'KWD').fitsMinorUnits(), true);
});

test('when Money values of two currencies are added then it throws instead of mixing them', () => {
  assert.equal(Money.of('1.10', 'USD').plus(Money.of('2.205', 'USD')).amount.toFixed(), '3.305');
  assert.throws(() => Money.of('1', 'USD').plus(Money.of('1', 'JPY')), /USD and JPY/);
});

test('when rounding credits then it keeps 6 places: HALF_UP for amounts, FLOOR for covered usage', () => {
  assert.equal(roundCredits(dec('4.9999995')).toFixed(), '5');
  assert.equal(roundCredits(dec('0.0000004')).toFixed(), '0');
  assert.equal(roundCredits(dec('0.0000005')).toFixed(), '0.000001');
  assert.equal(floorCredits(dec('1.9999999')).toFixed(), '1.999999');
});
