import { Decimal as DecimalJs } from 'decimal.js';
import { minorUnits } from './currency.js';

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

/** Decimal places of credits: balances, grants, transactions, draws (contract §6.5). */
export const CREDITS_SCALE = 6;

/**
 * Credits, and amounts accrued below a currency's minor unit (event revenue and cost, quote
 * estimates): 6 dp, HALF_UP. They reach a currency's minor units only on an invoice line.
 */
export function roundCredits(value: Decimal): Decimal {
  return value.toDecimalPlaces(CREDITS_SCALE, Decimal.ROUND_HALF_UP);
}

/** Credits → usage units they cover (meter exclusion): 6 dp, FLOOR. */
export function floorCredits(value: Decimal): Decimal {
  return value.toDecimalPlaces(CREDITS_SCALE, Decimal.ROUND_FLOOR);
}

/**
 * An amount in a currency. Invoice lines, invoice amounts, plan prices and proration are `Money`,
 * and round to the currency's ISO 4217 minor units (JPY 0, USD 2, KWD 3), HALF_UP (§6.5).
 */
export class Money {
  private constructor(
    readonly amount: Decimal,
    readonly currency: string,
  ) {}

  static of(amount: DecimalLike, currency: string): Money {
    return new Money(dec(amount), currency);
  }

  static zero(currency: string): Money {
    return new Money(dec(0), currency);
  }

  /** HALF_UP to the currency's minor units; −0 becomes 0 so no invoice shows "-0". */
  rounded(): Money {
    const r = roundToMinorUnits(this.amount, this.currency);
    return new Money(r.isZero() ? dec(0) : r, this.currency);
  }

  plus(other: Money): Money {
    return new Money(this.amount.plus(this.sameCurrency(other).amount), this.currency);
  }

  minus(other: Money): Money {
    return new Money(this.amount.minus(this.sameCurrency(other).amount), this.currency);
  }

  times(factor: DecimalLike): Money {
    return new Money(this.amount.times(dec(factor)), this.currency);
  }

  negated(): Money {
    return new Money(this.amount.isZero() ? dec(0) : this.amount.neg(), this.currency);
  }

  isZero(): boolean {
    return this.amount.isZero();
  }

  /** The NUMERIC text of a rounded amount: exactly the currency's minor units ("1000", "12.50", "1.235"). */
  toFixed(): string {
    return this.amount.toFixed(minorUnits(this.currency), Decimal.ROUND_HALF_UP);
  }

  /** Whether the amount needs no rounding in its currency (a price as sent). */
  fitsMinorUnits(): boolean {
    return this.amount.decimalPlaces() <= minorUnits(this.currency);
  }

  private sameCurrency(other: Money): Money {
    if (other.currency !== this.currency) throw new Error(`Money: ${this.currency} and ${other.currency} do not add`);
    return other;
  }
}

/** The rounding rule of money (§6.5): HALF_UP to the currency's ISO 4217 minor units. */
export function roundToMinorUnits(value: Decimal, currency: string): Decimal {
  return value.toDecimalPlaces(minorUnits(currency), Decimal.ROUND_HALF_UP);
}

/** Decimal places of an invoice line's unit price (api-contract-money.md §4.2). */
export const UNIT_PRICE_SCALE = 6;

/** An invoice line's unit price: 6 dp, HALF_UP (a rule's price per unit may have up to 30). */
export function roundUnitPrice(value: Decimal): Decimal {
  return value.toDecimalPlaces(UNIT_PRICE_SCALE, Decimal.ROUND_HALF_UP);
}
