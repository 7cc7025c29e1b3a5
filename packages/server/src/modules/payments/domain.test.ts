import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../platform/errors/app-error.js';
import { dec } from '../../platform/money.js';
import { fromMinorUnitInteger, purchaseAmount, requireMinimum, requireWithinSpendCap, toMinorUnitInteger, toProcessorTiers, toProcessorUnitAmount, toRecurringInterval } from './domain.js';

test('when credits are priced then the amount rounds HALF_UP to the currency minor units', () => {
  assert.equal(purchaseAmount(dec('333'), dec('0.015'), 'USD').toFixed(), '5');
  assert.equal(purchaseAmount(dec('3'), dec('0.005'), 'USD').toFixed(), '0.02');
  assert.equal(purchaseAmount(dec('7'), dec('1.5'), 'JPY').toFixed(), '11');
  assert.equal(purchaseAmount(dec('1'), dec('0.0005'), 'KWD').toFixed(), '0.001');
});

test('when an amount goes to the processor then it is an integer of minor units by the currency exponent', () => {
  assert.equal(toMinorUnitInteger(dec('49.99'), 'USD'), 4999);
  assert.equal(toMinorUnitInteger(dec('1250'), 'JPY'), 1250);
  assert.equal(toMinorUnitInteger(dec('1.234'), 'KWD'), 1234);
  assert.throws(() => toMinorUnitInteger(dec('1.234'), 'USD'));
});

test('when the amount is below 0.50 then the purchase is refused with the contract message', () => {
  assert.throws(() => requireMinimum(dec('0.49'), 'USD'), (err: unknown) => err instanceof AppError && err.message === 'Purchase amount 0.49 USD is below the 0.50 payment minimum — buy more credits at once');
  requireMinimum(dec('0.50'), 'USD');
});

test('when the amount exceeds the spend cap then 403 spend_cap_exceeded, and a null cap never refuses', () => {
  assert.throws(() => requireWithinSpendCap(dec('25.01'), 'USD', dec('25')), (err: unknown) => err instanceof AppError && err.code === 'spend_cap_exceeded' && err.message === "Amount 25.01 exceeds this account's agent spend cap of 25.00");
  requireWithinSpendCap(dec('25'), 'USD', dec('25'));
  requireWithinSpendCap(dec('1000000'), 'USD', null);
});

test('when the processor reports minor units then the amount is exact in the currency exponent', () => {
  assert.equal(fromMinorUnitInteger(4999, 'USD').toFixed(), '49.99');
  assert.equal(fromMinorUnitInteger(4999, 'JPY').toFixed(), '4999');
  assert.equal(fromMinorUnitInteger(1001, 'KWD').toFixed(), '1.001');
});

test('when a plan interval is synced then whole years become year prices and longer than 36 months is refused', () => {
  assert.deepEqual(toRecurringInterval(1), { interval: 'month', interval_count: 1 });
  assert.deepEqual(toRecurringInterval(3), { interval: 'month', interval_count: 3 });
  assert.deepEqual(toRecurringInterval(24), { interval: 'year', interval_count: 2 });
  assert.throws(() => toRecurringInterval(48), AppError);
});

test('when a unit price goes to the processor then it is in decimal minor units, HALF_UP to 12 places', () => {
  assert.equal(toProcessorUnitAmount(dec('0.002'), 'USD'), '0.2');
  assert.equal(toProcessorUnitAmount(dec('3'), 'JPY'), '3');
  assert.equal(toProcessorUnitAmount(dec('0.00000000000000125'), 'USD'), '0');
  assert.equal(toProcessorUnitAmount(dec('0.0000000000000125'), 'USD'), '0.000000000001');
});

test('when graduated tiers go to the processor then the last tier is unbounded and a fractional bound is refused', () => {
  const tiers = [
    { upTo: dec(100), pricePerUnit: dec('0.01'), flatFee: dec('5') },
    { upTo: dec(1000), pricePerUnit: dec('0.005'), flatFee: null },
  ];
  assert.deepEqual(toProcessorTiers(tiers, 'USD'), [
    { up_to: 100, unit_amount_decimal: '1', flat_amount_decimal: '500' },
    { up_to: 'inf', unit_amount_decimal: '0.5' },
  ]);
  assert.throws(() => toProcessorTiers([{ upTo: dec('10.5'), pricePerUnit: dec(1), flatFee: null }], 'USD'), /whole units/);
});
