import { Decimal as DecimalJs } from 'decimal.js';

/**
 * The exact decimal type for money, credits, weights and rates. Amounts never pass through a JS
 * number: they arrive as JSON lexemes (see http/json.ts), travel as `Decimal`, are stored as
 * NUMERIC, and leave as JSON number lexemes. Plain notation, never exponent form.
 *
 * Rounding lives in named functions below, one per rule, each with its mode spelled out.
 */
export const Decimal = DecimalJs.clone({
  precision: 60,
  rounding: DecimalJs.ROUND_HALF_UP,
  toExpNeg: -60,
  toExpPos: 60,
});
export type Decimal = InstanceType<typeof Decimal>;

export type DecimalLike = Decimal | string | number | bigint;

export function dec(value: DecimalLike): Decimal {
  return new Decimal(typeof value === 'bigint' ? value.toString() : value);
}

export function isDecimal(value: unknown): value is Decimal {
  return Decimal.isDecimal(value);
}

/** Number of digits after the decimal point, ignoring trailing zeros ("1.500" has 1). */
export function decimalPlaces(value: Decimal): number {
  return value.decimalPlaces();
}

/** Invoice lines, invoice amounts, plan prices, proration: 2 dp, HALF_UP. */
export function roundMoney(value: Decimal): Decimal {
  return value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

/** Credits, event revenue and cost, quote estimates: 6 dp, HALF_UP. */
export function roundCredits(value: Decimal): Decimal {
  return value.toDecimalPlaces(6, Decimal.ROUND_HALF_UP);
}
