import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { budgetValues, budgetWindows, ceilingAlert, checkBump, dollarText, effectiveMonthlyCents, projectedAlert, spikeAlert } from './domain.js';

test('budgetValues: one ceiling at least, none negative, threshold 1–100 defaulting to 80, ALERT by default', () => {
  assert.throws(() => budgetValues({}), { message: 'Set a daily or a monthly ceiling (or both)' });
  assert.throws(() => budgetValues({ dailyCents: null, monthlyCents: null }), { message: 'Set a daily or a monthly ceiling (or both)' });
  assert.throws(() => budgetValues({ monthlyCents: dec(-1) }), { message: 'A ceiling cannot be negative' });
  assert.throws(() => budgetValues({ dailyCents: dec(5), alertThreshold: 0 }), /1 to 100/);
  assert.throws(() => budgetValues({ dailyCents: dec(5), alertThreshold: 101 }), /1 to 100/);
  const v = budgetValues({ monthlyCents: dec('1000.5') });
  assert.equal(v.alertThreshold, 80);
  assert.equal(v.monthlyMode, 'ALERT');
  assert.equal(v.dailyCents, null);
  assert.equal(v.monthlyCents!.toFixed(), '1000.5');
});

test('checkBump: needs a positive standing ceiling, must exceed it, expiry in the future', () => {
  const now = new Date('2026-05-10T00:00:00Z');
  const later = new Date('2026-05-20T00:00:00Z');
  assert.throws(() => checkBump(null, { monthlyCents: dec(100), expiresAt: later, reason: null }, now), { message: 'A bump lifts the monthly ceiling; set one first' });
  assert.throws(() => checkBump(dec(0), { monthlyCents: dec(100), expiresAt: later, reason: null }, now), { message: 'A bump lifts the monthly ceiling; set one first' });
  assert.throws(() => checkBump(dec(50000), { monthlyCents: dec(50000), expiresAt: later, reason: null }, now), {
    message: 'A bump must be above the standing ceiling of $500.00 — lower the budget instead',
  });
  assert.throws(() => checkBump(dec(50000), { monthlyCents: dec(60000), expiresAt: now, reason: null }, now), { message: "The bump's expiry is already in the past" });
  checkBump(dec(50000), { monthlyCents: dec(60000), expiresAt: later, reason: 'launch' }, now);
});

test('effectiveMonthlyCents: the bump while it lasts', () => {
  const budget = { monthlyCents: dec(100), bumpMonthlyCents: dec(200), bumpExpiresAt: new Date('2026-05-20T00:00:00Z') };
  assert.equal(effectiveMonthlyCents(budget, new Date('2026-05-19T23:59:59Z'))!.toFixed(), '200');
  assert.equal(effectiveMonthlyCents(budget, new Date('2026-05-20T00:00:00Z'))!.toFixed(), '100');
});

test('budgetWindows: UTC day and month, resets at the next boundary (December rolls the year)', () => {
  const w = budgetWindows(new Date('2026-12-31T23:30:00Z'));
  assert.equal(w.dailyResetsAt.toISOString(), '2027-01-01T00:00:00.000Z');
  assert.equal(w.monthlyResetsAt.toISOString(), '2027-01-01T00:00:00.000Z');
  assert.equal(w.monthStart.toISOString(), '2026-12-01T00:00:00.000Z');
});

test('ceilingAlert: THRESHOLD from floor(spent×100/limit) ≥ threshold below 100, BREACH at or over the limit', () => {
  assert.equal(ceilingAlert('Backend', 'MONTH', dec('7999.99'), dec(10000), 80, null), null, '79.9999% floors to 79');
  const t = ceilingAlert('Backend', 'MONTH', dec(8000), dec(10000), 80, null)!;
  assert.equal(t.kind, 'THRESHOLD');
  assert.equal(t.message, 'Backend is at 80% of its monthly budget: $80.00 of $100.00 this month.');
  const b = ceilingAlert('Backend', 'DAY', dec(10000), dec(10000), 80, null)!;
  assert.equal(b.kind, 'BREACH');
  assert.equal(b.message, 'Backend is over its daily budget: $100.00 of $100.00 today.');
  assert.match(ceilingAlert('Backend', 'MONTH', dec(20000), dec(10000), 80, 'The gateway now refuses its requests.')!.message, /\$200\.00 of \$100\.00 this month\. The gateway/);
  assert.equal(ceilingAlert('Zero', 'DAY', dec(0), dec(0), 80, null), null, 'nothing spent against a zero ceiling');
  assert.equal(ceilingAlert('Zero', 'DAY', dec('0.01'), dec(0), 80, null)!.kind, 'BREACH');
});

test('spikeAlert: at least $5 today and more than twice the trailing-week daily average', () => {
  assert.equal(spikeAlert('U', dec(499), dec(0)), null);
  assert.equal(spikeAlert('U', dec(1400), dec(4900)), null, 'exactly twice the average is not a spike');
  const s = spikeAlert('U', dec(1401), dec(4900))!;
  assert.equal(s.message, 'U has spent $14.01 today, against a trailing-week average of $7.00 a day.');
  assert.equal(s.limitCents, null);
});

test('projectedAlert: a fifth of the month elapsed, under the ceiling, on pace above it', () => {
  // May has 31 days; a fifth is 6.2 days.
  assert.equal(projectedAlert('U', dec(5000), dec(10000), new Date('2026-05-07T00:00:00Z')), null, '6 days < a fifth');
  const p = projectedAlert('U', dec(5000), dec(10000), new Date('2026-05-08T00:00:00Z'))!;
  assert.equal(p.kind, 'PROJECTED');
  // 5000 × 31 / 7 = 22142.857… cents
  assert.equal(p.message, 'U is on pace for $221.43 this month against a $100.00 budget ($50.00 so far).');
  assert.equal(projectedAlert('U', dec(10000), dec(10000), new Date('2026-05-20T00:00:00Z')), null, 'at the ceiling is a breach, not a projection');
  assert.equal(projectedAlert('U', dec(100), dec(10000), new Date('2026-05-20T00:00:00Z')), null, 'on pace below the ceiling');
});

test('dollarText rounds HALF_UP to cents of a dollar', () => {
  assert.equal(dollarText(dec('12.5')), '0.13');
  assert.equal(dollarText(dec('12.4999')), '0.12');
  assert.equal(dollarText(dec('123456789')), '1234567.89');
});
