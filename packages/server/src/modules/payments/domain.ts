import { minorUnits } from '../../platform/currency.js';
import { AppError, invalid } from '../../platform/errors/app-error.js';
import { dec, roundToMinorUnits, type Decimal } from '../../platform/money.js';

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
