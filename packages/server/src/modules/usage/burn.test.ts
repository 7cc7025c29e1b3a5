import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../platform/money.js';
import { computeAverageDailyBurn, computeDepletionDate } from './burn.js';

const now = new Date('2026-09-10T12:00:00Z');

test('when a pool has run for whole days then the burn is consumed ÷ days at 4 dp half-up', () => {
  assert.equal(computeAverageDailyBurn(dec('879.5'), new Date('2026-08-31T12:00:00Z'), now)?.toFixed(), '87.95');
  // 10 ÷ 3 = 3.33333… → 3.3333; 20 ÷ 3 = 6.66666… → 6.6667
  const threeDaysAgo = new Date('2026-09-07T12:00:00Z');
  assert.equal(computeAverageDailyBurn(dec(10), threeDaysAgo, now)?.toFixed(), '3.3333');
  assert.equal(computeAverageDailyBurn(dec(20), threeDaysAgo, now)?.toFixed(), '6.6667');
});

test('when part of a day has passed since the last whole day then only whole days count', () => {
  // 2 days 23 hours → 2 whole days
  assert.equal(computeAverageDailyBurn(dec(10), new Date('2026-09-07T13:00:00Z'), now)?.toFixed(), '5');
});

test('when the pool is less than a day old then the divisor is one day', () => {
  assert.equal(computeAverageDailyBurn(dec('12.5'), new Date('2026-09-10T11:00:00Z'), now)?.toFixed(), '12.5');
  assert.equal(computeAverageDailyBurn(dec('12.5'), new Date('2026-09-11T00:00:00Z'), now)?.toFixed(), '12.5');
});

test('when nothing was consumed or the burn rounds to zero then the average is null', () => {
  const longAgo = new Date('2026-01-01T00:00:00Z');
  assert.equal(computeAverageDailyBurn(dec(0), longAgo, now), null);
  assert.equal(computeAverageDailyBurn(dec('0.001'), longAgo, now), null);
});

test('when the balance lasts a fractional number of days then depletion is now plus the ceiling in days', () => {
  // 120.5 ÷ 87.95 = 1.37… → 2 days (contract §4.12 example)
  assert.equal(computeDepletionDate(dec('120.5'), dec('87.95'), now)?.toISOString(), '2026-09-12T12:00:00.000Z');
  assert.equal(computeDepletionDate(dec(100), dec(25), now)?.toISOString(), '2026-09-14T12:00:00.000Z');
});

test('when there is no burn or no positive balance then there is no depletion date', () => {
  assert.equal(computeDepletionDate(dec(100), null, now), null);
  assert.equal(computeDepletionDate(dec(100), dec(0), now), null);
  assert.equal(computeDepletionDate(dec(0), dec(5), now), null);
  assert.equal(computeDepletionDate(dec(-3), dec(5), now), null);
});

test('when depletion is beyond the range of a Date then there is no depletion date', () => {
  assert.equal(computeDepletionDate(dec('1e12'), dec('0.0001'), now), null);
});
