import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Money, dec } from '../../platform/money.js';
import {
  computeCancellationCredit,
  computeElapsedFraction,
  computeInitialPeriod,
  computeNextPeriod,
  computeRemainingRatio,
  computeUpgradeProration,
  projectEndOfPeriod,
} from './periods.js';

const at = (iso: string) => new Date(iso);
const day = (iso: string) => at(`${iso}T00:00:00Z`);
const usd = (amount: string) => Money.of(amount, 'USD');

/** Follows rollovers from `first`, returning each period end as YYYY-MM-DD. */
function chainEnds(first: Date, intervalMonths: number, anchorDay: number, count: number): string[] {
  const ends: string[] = [];
  let end = first;
  for (let i = 0; i < count; i++) {
    const next = computeNextPeriod(end, intervalMonths, anchorDay);
    assert.equal(next.start.getTime(), end.getTime(), 'each period starts where the previous ended');
    end = next.end;
    ends.push(end.toISOString().slice(0, 10));
  }
  return ends;
}

test('when subscribing mid-day then the period starts at 00:00 UTC and the anchor is that day', () => {
  const period = computeInitialPeriod(at('2026-01-31T15:20:00Z'), 1);
  assert.equal(period.start.toISOString(), '2026-01-31T00:00:00.000Z');
  assert.equal(period.end.toISOString(), '2026-02-28T00:00:00.000Z');
  assert.equal(period.anchorDay, 31);
});

test('when subscribing just before midnight UTC then the UTC day is used, not a local one', () => {
  const period = computeInitialPeriod(at('2026-03-15T23:59:59.999Z'), 1);
  assert.equal(period.start.toISOString(), '2026-03-15T00:00:00.000Z');
  assert.equal(period.end.toISOString(), '2026-04-15T00:00:00.000Z');
  assert.equal(period.anchorDay, 15);
});

test('when subscribing near a month end for 3 or 12 months then the end is clamped in the target month', () => {
  assert.equal(computeInitialPeriod(at('2026-11-30T08:00:00Z'), 3).end.toISOString(), '2027-02-28T00:00:00.000Z');
  assert.equal(computeInitialPeriod(at('2027-02-28T08:00:00Z'), 12).end.toISOString(), '2028-02-28T00:00:00.000Z');
  assert.equal(computeInitialPeriod(at('2028-02-29T08:00:00Z'), 12).end.toISOString(), '2029-02-28T00:00:00.000Z');
});

test('when the anchor is 31 in a non-leap year then periods end Feb 28, Mar 31, Apr 30', () => {
  assert.deepEqual(chainEnds(day('2027-01-31'), 1, 31, 4), ['2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31']);
});

test('when the anchor is 31 in a leap year then February ends on the 29th and March returns to the 31st', () => {
  assert.deepEqual(chainEnds(day('2028-01-31'), 1, 31, 3), ['2028-02-29', '2028-03-31', '2028-04-30']);
});

test('when the anchor is 30 or 29 then only February is clamped', () => {
  assert.deepEqual(chainEnds(day('2027-01-30'), 1, 30, 3), ['2027-02-28', '2027-03-30', '2027-04-30']);
  assert.deepEqual(chainEnds(day('2027-01-29'), 1, 29, 3), ['2027-02-28', '2027-03-29', '2027-04-29']);
  assert.deepEqual(chainEnds(day('2028-01-29'), 1, 29, 2), ['2028-02-29', '2028-03-29']);
  assert.deepEqual(chainEnds(day('2028-01-30'), 1, 30, 2), ['2028-02-29', '2028-03-30']);
});

test('when the interval is 3 months then the anchor is clamped in each target month only', () => {
  assert.deepEqual(chainEnds(day('2026-08-31'), 3, 31, 4), ['2026-11-30', '2027-02-28', '2027-05-31', '2027-08-31']);
});

test('when the interval is 12 months from a leap day anchor then non-leap years end on Feb 28', () => {
  assert.deepEqual(chainEnds(day('2028-02-29'), 12, 29, 4), ['2029-02-28', '2030-02-28', '2031-02-28', '2032-02-29']);
});

test('when a period ends in December then the next one rolls into January of the next year', () => {
  assert.deepEqual(chainEnds(day('2026-12-31'), 1, 31, 2), ['2027-01-31', '2027-02-28']);
  assert.deepEqual(chainEnds(day('2026-11-15'), 3, 15, 1), ['2027-02-15']);
  assert.deepEqual(chainEnds(day('2026-12-01'), 12, 1, 1), ['2027-12-01']);
});

test('when the previous end is not at midnight then the next end keeps its time of day', () => {
  const next = computeNextPeriod(at('2027-01-31T06:30:00Z'), 1, 31);
  assert.equal(next.end.toISOString(), '2027-02-28T06:30:00.000Z');
});

test('when the interval or anchor is out of range then a RangeError is thrown', () => {
  assert.throws(() => computeInitialPeriod(day('2026-01-01'), 0), RangeError);
  assert.throws(() => computeNextPeriod(day('2026-01-01'), 1.5, 1), RangeError);
  assert.throws(() => computeNextPeriod(day('2026-01-01'), 1, 32), RangeError);
  assert.throws(() => computeInitialPeriod(new Date(Number.NaN), 1), RangeError);
});

const start = day('2026-04-01');
const end = day('2026-05-01'); // 30 days

test('when a third of a 30-day period has elapsed then the remaining ratio is 0.66666667 (8 dp half-up)', () => {
  assert.equal(computeRemainingRatio(start, end, day('2026-04-11')).toFixed(), '0.66666667');
  assert.equal(computeRemainingRatio(start, end, day('2026-04-21')).toFixed(), '0.33333333');
});

test('when now is before the start or after the end then the remaining ratio is clamped to 1 or 0', () => {
  assert.equal(computeRemainingRatio(start, end, day('2026-03-01')).toFixed(), '1');
  assert.equal(computeRemainingRatio(start, end, start).toFixed(), '1');
  assert.equal(computeRemainingRatio(start, end, end).toFixed(), '0');
  assert.equal(computeRemainingRatio(start, end, day('2026-06-01')).toFixed(), '0');
  assert.equal(computeRemainingRatio(start, start, start).toFixed(), '0');
});

/** A proration's figures as their exact text, to compare in one assertion. */
const prorationText = (p: ReturnType<typeof computeUpgradeProration>) => ({
  ratio: p.ratio.toFixed(),
  newCharge: p.newCharge.toFixed(),
  oldCredit: p.oldCredit.toFixed(),
  amount: p.amount.toFixed(),
});

test('when upgrading 30.00 → 60.00 with 10 of 30 days elapsed then the adjustment is 40.00 − 20.00 = 20.00', () => {
  const p = computeUpgradeProration({ start, end, now: day('2026-04-11'), oldPrice: usd('30.00'), newPrice: usd('60.00') });
  assert.deepEqual(prorationText(p), { ratio: '0.66666667', newCharge: '40.00', oldCredit: '-20.00', amount: '20.00' });
});

test('when proration lines round then the amount is the difference of the rounded lines', () => {
  // ratio 0.5: 0.5 × 10.01 = 5.005 → 5.01 and 0.5 × 0.01 = 0.005 → 0.01, so 5.00, not round(5.000)
  const p = computeUpgradeProration({ start, end, now: day('2026-04-16'), oldPrice: usd('0.01'), newPrice: usd('10.01') });
  assert.deepEqual(prorationText(p), { ratio: '0.5', newCharge: '5.01', oldCredit: '-0.01', amount: '5.00' });
});

test('when cancelling immediately then the credit is minus the remaining share of the price, 2 dp', () => {
  assert.equal(computeCancellationCredit({ start, end, now: day('2026-04-11'), price: usd('29.99') }).toFixed(), '-19.99');
  const none = computeCancellationCredit({ start, end, now: end, price: usd('29.99') });
  assert.equal(none.toFixed(), '0.00');
  assert.equal(none.amount.isNegative(), false, 'no negative zero on a credit line');
});

test('when the plans are priced in JPY or KWD then proration rounds to 0 or 3 places, HALF_UP', () => {
  // ratio 0.5 (15 of 30 days left)
  const jpy = computeUpgradeProration({ start, end, now: day('2026-04-16'), oldPrice: Money.of('999', 'JPY'), newPrice: Money.of('1001', 'JPY') });
  assert.deepEqual([jpy.newCharge.toFixed(), jpy.oldCredit.toFixed(), jpy.amount.toFixed()], ['501', '-500', '1'], '500.5 → 501, 499.5 → 500');
  const kwd = computeUpgradeProration({ start, end, now: day('2026-04-16'), oldPrice: Money.of('0.001', 'KWD'), newPrice: Money.of('10.001', 'KWD') });
  assert.deepEqual([kwd.newCharge.toFixed(), kwd.oldCredit.toFixed(), kwd.amount.toFixed()], ['5.001', '-0.001', '5.000']);
  assert.equal(computeCancellationCredit({ start, end, now: day('2026-04-11'), price: Money.of('2999', 'JPY') }).toFixed(), '-1999', '2999 × 0.66666667 = 1999.33…');
  assert.equal(computeCancellationCredit({ start, end, now: day('2026-04-11'), price: Money.of('29.999', 'KWD') }).toFixed(), '-19.999');
});

test('when computing the elapsed fraction then it is 6 dp half-up and clamped to [0, 1]', () => {
  assert.equal(computeElapsedFraction(start, end, day('2026-04-11')).toFixed(), '0.333333');
  assert.equal(computeElapsedFraction(start, end, day('2026-03-01')).toFixed(), '0');
  assert.equal(computeElapsedFraction(start, end, day('2026-07-01')).toFixed(), '1');
  assert.equal(computeElapsedFraction(start, start, start).toFixed(), '1');
});

test('when less than 5 % of the period has elapsed or used is null then there is no projection', () => {
  const justBefore = new Date(start.getTime() + 0.05 * 30 * 86_400_000 - 60_000);
  assert.equal(projectEndOfPeriod(dec(100), start, end, justBefore), null);
  assert.equal(projectEndOfPeriod(null, start, end, day('2026-04-20')), null);
});

test('when enough of the period has elapsed then the projection is used ÷ elapsed fraction at 4 dp', () => {
  const sep = { start: day('2026-09-01'), end: day('2026-10-01') };
  assert.equal(projectEndOfPeriod(dec(3000), sep.start, sep.end, day('2026-09-10'))?.toFixed(), '10000');
  // elapsed 0.05 exactly is enough; 1.5 days of 30
  assert.equal(projectEndOfPeriod(dec(1), sep.start, sep.end, at('2026-09-02T12:00:00Z'))?.toFixed(), '20');
  // fraction is rounded first: 10/30 → 0.333333, 1 ÷ 0.333333 = 3.000003…
  assert.equal(projectEndOfPeriod(dec(1), sep.start, sep.end, day('2026-09-11'))?.toFixed(), '3');
  assert.equal(projectEndOfPeriod(dec(100), sep.start, sep.end, day('2026-09-11'))?.toFixed(), '300.0003');
});
