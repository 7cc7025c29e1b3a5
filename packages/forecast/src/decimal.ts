/**
 * Exact decimal arithmetic on BigInt scaled integers.
 *
 * Every value is held as an integer count of 10^-12 units: the methodology
 * caps inputs and named results at 12 fractional digits, so one fixed scale
 * represents all of them exactly and addition/subtraction never round. Only
 * products and quotients produce extra digits, and those go through
 * `roundHalfUp`, the single rounding rule of the contract (section 2.3).
 */

/** A decimal scaled by 10^12 (1 credit === SCALE). */
export type Scaled = bigint;

export const FRACTION_DIGITS = 12;
export const SCALE: Scaled = 10n ** BigInt(FRACTION_DIGITS);

// The canonical grammar of section 2.1; "-0" is excluded separately.
const CANONICAL_DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]{0,11}[1-9])?$/;

export function isCanonicalDecimal(text: string): boolean {
  return text !== '-0' && CANONICAL_DECIMAL.test(text);
}

/** Parses a canonical decimal string. Callers validate first; this trusts the grammar. */
export function parseDecimal(text: string): Scaled {
  const negative = text.charCodeAt(0) === 45; // '-'
  const unsigned = negative ? text.slice(1) : text;
  const point = unsigned.indexOf('.');
  let scaled: Scaled;
  if (point < 0) {
    scaled = BigInt(unsigned) * SCALE;
  } else {
    const fraction = unsigned.slice(point + 1).padEnd(FRACTION_DIGITS, '0');
    scaled = BigInt(unsigned.slice(0, point)) * SCALE + BigInt(fraction);
  }
  return negative ? -scaled : scaled;
}

/** Formats in canonical form: no exponent, no trailing fractional zeros, zero as "0". */
export function formatDecimal(value: Scaled): string {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const integer = (magnitude / SCALE).toString();
  const remainder = magnitude % SCALE;
  let text = integer;
  if (remainder !== 0n) {
    const fraction = remainder.toString().padStart(FRACTION_DIGITS, '0').replace(/0+$/, '');
    text = `${integer}.${fraction}`;
  }
  return negative ? `-${text}` : text;
}

export function fromInteger(value: number): Scaled {
  return BigInt(value) * SCALE;
}

/**
 * HALF_UP: divide and round to the nearest integer; an exact tie moves away
 * from zero. Working from the exact numerator/denominator pair means the
 * result is rounded from the exact rational value, never from a truncated
 * intermediate.
 */
export function roundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('division by zero');
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  let quotient = n / d;
  if ((n % d) * 2n >= d) quotient += 1n;
  return negative ? -quotient : quotient;
}

/** Product of two scaled values, rounded half-up back to 12 fractional digits. */
export function multiply(left: Scaled, right: Scaled): Scaled {
  return roundHalfUp(left * right, SCALE);
}

/** Product with a whole number of days: exact, no rounding needed. */
export function multiplyByInteger(value: Scaled, factor: number): Scaled {
  return value * BigInt(factor);
}

/** Quotient of two scaled values, rounded half-up to 12 fractional digits. */
export function divide(numerator: Scaled, denominator: Scaled): Scaled {
  return roundHalfUp(numerator * SCALE, denominator);
}

/** Quotient by a whole number (a day count), rounded half-up. */
export function divideByInteger(numerator: Scaled, divisor: number): Scaled {
  return roundHalfUp(numerator, BigInt(divisor));
}

export function sum(values: readonly Scaled[]): Scaled {
  let total = 0n;
  for (const value of values) total += value;
  return total;
}

export function max(left: Scaled, right: Scaled): Scaled {
  return left > right ? left : right;
}
