import { Decimal, dec } from '../../platform/money.js';

/**
 * Credit-pool burndown for the usage forecast (contract §4.12). Pure: `now` is passed in.
 */

const MS_PER_DAY = 86_400_000;
/** The largest instant a JS Date can hold; a depletion further out than this is no forecast at all. */
const MAX_DATE_MS = 8.64e15;

/**
 * Average credits consumed per day since the pool was created, 4 dp HALF_UP. Fewer than one whole
 * day counts as one, so a new pool does not report an inflated burn. Null when there is no burn
 * (the contract omits a zero average).
 */
export function computeAverageDailyBurn(totalConsumed: Decimal, createdAt: Date, now: Date): Decimal | null {
  const wholeDays = Math.max(1, Math.floor((now.getTime() - createdAt.getTime()) / MS_PER_DAY));
  const burn = totalConsumed.div(wholeDays).toDecimalPlaces(4, Decimal.ROUND_HALF_UP);
  return burn.gt(0) ? burn : null;
}

/**
 * When the balance runs out at the average burn: now + ceil(balance ÷ averageDailyBurn) days.
 * Null when there is no burn, nothing left to deplete, or the date lies beyond what a Date can hold.
 */
export function computeDepletionDate(balance: Decimal, averageDailyBurn: Decimal | null, now: Date): Date | null {
  if (averageDailyBurn === null || averageDailyBurn.lte(0) || balance.lte(0)) return null;
  const days = balance.div(averageDailyBurn).ceil();
  const at = dec(now.getTime()).plus(days.times(MS_PER_DAY));
  return at.gt(MAX_DATE_MS) ? null : new Date(at.toNumber());
}
