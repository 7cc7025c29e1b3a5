import { Decimal, Money, dec } from '../../platform/money.js';

/**
 * Billing-period arithmetic (contract §6.1, §6.3, §4.12). Periods are half-open [start, end) in UTC.
 * Time is always passed in, never read, so every rule here is reproducible in tests.
 */

function assertDate(value: Date, name: string): void {
  if (Number.isNaN(value.getTime())) throw new RangeError(`${name} is not a valid date`);
}

function assertIntervalMonths(intervalMonths: number): void {
  if (!Number.isInteger(intervalMonths) || intervalMonths < 1) {
    throw new RangeError(`intervalMonths must be a positive integer, got ${intervalMonths}`);
  }
}

function daysInMonth(year: number, monthIndex: number): number {
  // Day 0 of the following month is the last day of this one.
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/**
 * The anchor day `months` months after `from`'s month, clamped to that month's length, at `from`'s
 * time of day. Clamping is per target month and the anchor is kept separately, so a 31st anchor
 * comes back to the 31st after February instead of drifting to the 28th (the original's bug).
 */
function anchoredDate(from: Date, months: number, anchorDay: number): Date {
  const monthCount = from.getUTCFullYear() * 12 + from.getUTCMonth() + months;
  const year = Math.floor(monthCount / 12);
  const monthIndex = monthCount % 12;
  const day = Math.min(anchorDay, daysInMonth(year, monthIndex));
  const timeOfDay = from.getTime() - Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate());
  return new Date(Date.UTC(year, monthIndex, day) + timeOfDay);
}

/** Subscribe-time period: starts on `now`'s UTC day at 00:00, ends on the anchor day `intervalMonths` later. */
export function computeInitialPeriod(now: Date, intervalMonths: number): { start: Date; end: Date; anchorDay: number } {
  assertDate(now, 'now');
  assertIntervalMonths(intervalMonths);
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const anchorDay = start.getUTCDate();
  return { start, end: anchoredDate(start, intervalMonths, anchorDay), anchorDay };
}

/**
 * The period after one ending at `previousEnd`: starts there and ends on `anchorDay` (clamped to the
 * month's length) `intervalMonths` months after previousEnd's month, at previousEnd's time of day.
 * Anchor 31: Jan 31 → Feb 28/29 → Mar 31 → Apr 30.
 */
export function computeNextPeriod(previousEnd: Date, intervalMonths: number, anchorDay: number): { start: Date; end: Date } {
  assertDate(previousEnd, 'previousEnd');
  assertIntervalMonths(intervalMonths);
  if (!Number.isInteger(anchorDay) || anchorDay < 1 || anchorDay > 31) {
    throw new RangeError(`anchorDay must be an integer from 1 to 31, got ${anchorDay}`);
  }
  return { start: new Date(previousEnd.getTime()), end: anchoredDate(previousEnd, intervalMonths, anchorDay) };
}

function clampUnit(value: Decimal): Decimal {
  return Decimal.min(Decimal.max(value, 0), 1);
}

/** Share of [start, end) measured in ms, rounded HALF_UP to `places`, clamped to [0, 1]. */
function shareOfPeriod(part: number, start: Date, end: Date, places: number): Decimal {
  const length = end.getTime() - start.getTime();
  // A zero-length period (e.g. ended by an immediate cancel at its start) is wholly elapsed.
  if (length <= 0) return dec(0);
  return clampUnit(dec(part).div(length).toDecimalPlaces(places, Decimal.ROUND_HALF_UP));
}

/** Remaining share of [start, end) at `now`, in ms, 8 dp HALF_UP, clamped to [0, 1] (§6.3). */
export function computeRemainingRatio(start: Date, end: Date, now: Date): Decimal {
  return shareOfPeriod(end.getTime() - now.getTime(), start, end, 8);
}

/** Elapsed share of [start, end) at `now`, 6 dp HALF_UP, clamped to [0, 1] (§4.12). */
export function computeElapsedFraction(start: Date, end: Date, now: Date): Decimal {
  if (end.getTime() <= start.getTime()) return dec(1);
  return shareOfPeriod(now.getTime() - start.getTime(), start, end, 6);
}

/** Lines of an in-advance → in-advance upgrade (§6.3), each rounded to the currency's minor units before netting. */
type UpgradeProration = { ratio: Decimal; oldCredit: Money; newCharge: Money; amount: Money };

/**
 * Upgrade proration when both plans bill in advance: the unused share of the old price is credited
 * and the same share of the new price charged. Rounding each line first (HALF_UP to the currency's
 * minor units) keeps the invoice amount equal to the sum of its lines:
 * amount = round(ratio×new) − round(ratio×old). Both prices must be in one currency.
 */
export function computeUpgradeProration(input: { start: Date; end: Date; now: Date; oldPrice: Money; newPrice: Money }): UpgradeProration {
  const ratio = computeRemainingRatio(input.start, input.end, input.now);
  const newCharge = input.newPrice.times(ratio).rounded();
  const oldCredit = input.oldPrice.times(ratio).rounded().negated();
  return { ratio, oldCredit, newCharge, amount: newCharge.plus(oldCredit) };
}

/** Immediate-cancel refund for an in-advance plan: −round(remainingRatio × price) in the price's currency (§6.3). */
export function computeCancellationCredit(input: { start: Date; end: Date; now: Date; price: Money }): Money {
  return input.price.times(computeRemainingRatio(input.start, input.end, input.now)).rounded().negated();
}

/** Below this elapsed share a linear projection is mostly noise, so none is given (§4.12). */
const MIN_ELAPSED_FOR_PROJECTION = dec('0.05');

/**
 * Linear end-of-period usage projection (§4.12): round_half_up(used ÷ elapsedFraction, 4) with the
 * fraction rounded to 6 dp first; null when `used` is null or less than 5 % of the period has elapsed.
 */
export function projectEndOfPeriod(used: Decimal | null, start: Date, end: Date, now: Date): Decimal | null {
  if (used === null) return null;
  const elapsed = computeElapsedFraction(start, end, now);
  if (elapsed.lt(MIN_ELAPSED_FOR_PROJECTION)) return null;
  return used.div(elapsed).toDecimalPlaces(4, Decimal.ROUND_HALF_UP);
}
