import assert from 'node:assert/strict';
import { test } from 'node:test';

import { datesInRange, daysBetween, fromDayNumber, isCalendarDate, toDayNumber } from './dates.js';

test('valid and invalid calendar dates', () => {
  for (const ok of ['0001-01-01', '2024-02-29', '2000-02-29', '9999-12-31', '2026-12-31']) assert.ok(isCalendarDate(ok), ok);
  for (const bad of ['0000-01-01', '1900-02-29', '2027-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-1-01', '2026-01-01T00:00:00Z', '20260101', '']) {
    assert.equal(isCalendarDate(bad), false, bad);
  }
});

test('day numbers agree with UTC calendar arithmetic across the whole range', () => {
  assert.equal(toDayNumber('1970-01-01'), 0);
  const reference = (n: number): string => {
    const date = new Date(0);
    date.setUTCFullYear(1, 0, 1);
    date.setUTCDate(1 + n - toDayNumber('0001-01-01'));
    return date.toISOString().slice(0, 10);
  };
  for (let n = toDayNumber('0001-01-01'); n <= toDayNumber('9999-12-31'); n += 997) {
    const text = fromDayNumber(n);
    assert.equal(text, reference(n), String(n));
    assert.equal(toDayNumber(text), n);
  }
  assert.equal(fromDayNumber(toDayNumber('9999-12-31')), '9999-12-31');
});

test('half-open ranges', () => {
  assert.equal(daysBetween('2028-01-01', '2029-01-01'), 366);
  assert.equal(daysBetween('2026-02-01', '2026-03-01'), 28);
  assert.deepEqual(datesInRange('2028-02-27', '2028-03-02'), ['2028-02-27', '2028-02-28', '2028-02-29', '2028-03-01']);
  assert.deepEqual(datesInRange('2026-01-01', '2026-01-01'), []);
});
