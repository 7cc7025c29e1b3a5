import { Decimal, dec } from '../../../platform/money.js';

/**
 * The rounding rules of the spend reports, one function each. Everything else in the reports is an
 * exact sum of exact products (NUMERIC) and is never rounded; only a quotient needs a rule.
 */

/** Decimal places of a per-outcome amount in cents (a ten-thousandth of a cent). */
export const PER_OUTCOME_SCALE = 4;

/**
 * Cents ÷ outcomes, HALF_UP to `PER_OUTCOME_SCALE` places (outcome report `costPerOutcomeCents`,
 * P&L `buildPerOutcomeCents`). Null with no outcomes.
 */
export function perOutcomeCents(cents: Decimal, outcomes: number): Decimal | null {
  if (outcomes <= 0) return null;
  return cents.div(outcomes).toDecimalPlaces(PER_OUTCOME_SCALE, Decimal.ROUND_HALF_UP);
}

/** Decimal places of `cacheShare` (0.1234 = 12.34 %). */
export const CACHE_SHARE_SCALE = 4;

/**
 * Savings `cacheShare` = cache reads ÷ (uncached input + cache reads + cache writes), HALF_UP to
 * `CACHE_SHARE_SCALE` places; 0 with no input-side tokens. In [0, 1]: the reads are part of the sum,
 * and rounding a value ≤ 1 half up never passes 1.
 */
export function cacheShareOf(uncached: Decimal, cacheRead: Decimal, cacheWrite: Decimal): Decimal {
  const all = uncached.plus(cacheRead).plus(cacheWrite);
  if (all.isZero()) return dec(0);
  return cacheRead.div(all).toDecimalPlaces(CACHE_SHARE_SCALE, Decimal.ROUND_HALF_UP);
}
