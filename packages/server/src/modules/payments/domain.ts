import { minorUnits } from '../../platform/currency.js';
import { AppError, invalid } from '../../platform/errors/app-error.js';
import { dec, Decimal, roundToMinorUnits } from '../../platform/money.js';

/** The processor's smallest charge, in the currency's major unit (contract §4.7). */
export const PAYMENT_MINIMUM = dec('0.50');

/** Rounding rule of a credit purchase (§4.7 step 2): credits × price, HALF_UP to the currency's minor units. */
export function purchaseAmount(credits: Decimal, pricePerCredit: Decimal, currency: string): Decimal {
  return roundToMinorUnits(credits.times(pricePerCredit), currency);
}

/** `amount` in the processor's integer minor units (cents for USD, yen for JPY, fils for KWD). */
export function toMinorUnitInteger(amount: Decimal, currency: string): number {
  const minor = amount.times(dec(10).pow(minorUnits(currency)));
  if (!minor.isInteger()) throw new Error(`${amount.toFixed()} ${currency} is not a whole number of minor units`);
  if (minor.gt(Number.MAX_SAFE_INTEGER)) throw invalid(`Amount ${amount.toFixed()} ${currency} is too large for the payment processor`);
  return minor.toNumber();
}

/** Renders an amount with its currency's minor units (`12.50 USD`, `1250 JPY`). */
export function formatAmount(amount: Decimal, currency: string): string {
  return amount.toFixed(minorUnits(currency));
}

export function requireMinimum(amount: Decimal, currency: string): void {
  if (amount.lt(PAYMENT_MINIMUM)) {
    throw invalid(`Purchase amount ${formatAmount(amount, currency)} ${currency} is below the 0.50 payment minimum — buy more credits at once`);
  }
}

/**
 * The agent spend cap (contract §5.1): checked before any money moves, on every agent-initiated
 * charge. A null cap means no cap.
 */
export function requireWithinSpendCap(amount: Decimal, currency: string, cap: Decimal | null): void {
  if (cap !== null && amount.gt(cap)) {
    throw new AppError('spend_cap_exceeded', `Amount ${formatAmount(amount, currency)} exceeds this account's agent spend cap of ${formatAmount(cap, currency)}`);
  }
}

/** An integer of the currency's minor units back to an exact amount (4200 USD → 42.00; 4200 JPY → 4200). */
export function fromMinorUnitInteger(minor: number, currency: string): Decimal {
  return dec(minor).div(dec(10).pow(minorUnits(currency)));
}

/** The processor's longest billing interval (3 years); plans allow up to 120 months. */
const MAX_PROCESSOR_INTERVAL_MONTHS = 36;

/** A plan's interval as the processor's recurring price states it: whole years as `year`, else `month`. */
export function toRecurringInterval(intervalMonths: number): { interval: 'month' | 'year'; interval_count: number } {
  if (intervalMonths > MAX_PROCESSOR_INTERVAL_MONTHS) {
    throw invalid(`A plan billed every ${intervalMonths} months cannot be synced to Stripe: the longest interval it supports is ${MAX_PROCESSOR_INTERVAL_MONTHS} months`);
  }
  return intervalMonths % 12 === 0 ? { interval: 'year', interval_count: intervalMonths / 12 } : { interval: 'month', interval_count: intervalMonths };
}

/** Our invoice status for a processor invoice status (contract §5.5). */
export const INVOICE_STATUS_FROM_PROCESSOR = {
  paid: 'PAID',
  open: 'DUE',
  draft: 'PENDING',
  void: 'VOID',
  uncollectible: 'PAST_DUE',
} as const;

/**
 * A meter event's value: the processor takes whole numbers, so billable units are rounded HALF_UP
 * per event (0.4 units report nothing; 2.5 report 3).
 */
export function toMeterValue(units: Decimal): number {
  return units.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

/** The processor's finest price: `*_decimal` amounts carry at most 12 decimal places of a minor unit. */
const PROCESSOR_PRICE_DECIMAL_PLACES = 12;

/**
 * A per-unit price or a tier's flat fee as the processor's `*_decimal` minor units (0.002 USD →
 * "0.2" cents), HALF_UP to its 12 decimal places: finer rates (ours allow 30) are the one place a
 * processor-billed price can differ from ours, by less than 10⁻¹² of a minor unit per unit.
 */
export function toProcessorUnitAmount(amount: Decimal, currency: string): string {
  return amount.times(dec(10).pow(minorUnits(currency))).toDecimalPlaces(PROCESSOR_PRICE_DECIMAL_PLACES, Decimal.ROUND_HALF_UP).toFixed();
}

/**
 * Graduated tiers as the processor's (`tiers_mode=graduated`): meters count whole units, so a tier
 * bound must be a whole number; our last bounded tier keeps pricing past its bound at its rate,
 * which is the processor's unbounded (`inf`) last tier.
 */
export function toProcessorTiers(tiers: { upTo: Decimal | null; pricePerUnit: Decimal; flatFee: Decimal | null }[], currency: string) {
  return tiers.map((tier, i) => {
    if (tier.upTo !== null && !tier.upTo.isInteger()) {
      throw invalid(`A graduated tier bound of ${tier.upTo.toFixed()} units cannot be synced to Stripe: its meters count whole units`);
    }
    return {
      up_to: tier.upTo === null || i === tiers.length - 1 ? ('inf' as const) : tier.upTo.toNumber(),
      unit_amount_decimal: toProcessorUnitAmount(tier.pricePerUnit, currency),
      ...(tier.flatFee && !tier.flatFee.isZero() ? { flat_amount_decimal: toProcessorUnitAmount(tier.flatFee, currency) } : {}),
    };
  });
}
