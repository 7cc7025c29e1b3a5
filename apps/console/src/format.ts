/**
 * Formatting of the API's amounts and times. Amounts arrive as decimal strings (api.ts reads every
 * answer with the client's exact JSON codec); they are formatted from their decimal text (Intl
 * formats a string exactly), and any arithmetic on them (sums, differences, products, comparisons)
 * is done on scaled bigints, never in floats.
 */

/** An API amount: its decimal text, or a number (the shortest text of that double is taken as its digits). */
export type DecimalInput = number | string | null | undefined;

/** An API amount as its decimal text ("12.5", "-3", "0.000125"). */
export function decimalText(value: DecimalInput): string {
  if (value === null || value === undefined) return '0';
  // String(number) is the shortest text that parses back to the same double: the API's own digits.
  const text = String(value);
  return /e/i.test(text) ? expandExponent(text) : text;
}

function expandExponent(text: string): string {
  const [mantissa, exponentText] = text.toLowerCase().split('e') as [string, string];
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace('-', '').split('.') as [string, string?];
  let digits = whole + fraction;
  let point = whole.length + exponent;
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const out = `${digits.slice(0, point)}.${digits.slice(point)}`.replace(/\.?0*$/, '') || '0';
  return negative ? `-${out}` : out;
}

/** A decimal as a scaled integer: its value is `units` ÷ 10^`scale`. */
type Scaled = { units: bigint; scale: number };

function toScaled(value: DecimalInput): Scaled {
  const text = decimalText(value);
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = text.replace(/^[-+]/, '').split('.') as [string, string?];
  const units = BigInt(whole + fraction);
  return { units: negative ? -units : units, scale: fraction.length };
}

function rescale(x: Scaled, scale: number): bigint {
  return x.units * 10n ** BigInt(scale - x.scale);
}

function fromScaled({ units, scale }: Scaled): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Exact sum of decimal amounts. */
export function sumDecimals(values: DecimalInput[]): string {
  const parts = values.map(toScaled);
  const scale = Math.max(0, ...parts.map((p) => p.scale));
  return fromScaled({ units: parts.reduce((total, p) => total + rescale(p, scale), 0n), scale });
}

/** Exact `a − b`. */
export function subtractDecimals(a: DecimalInput, b: DecimalInput): string {
  const x = toScaled(a);
  const y = toScaled(b);
  const scale = Math.max(x.scale, y.scale);
  return fromScaled({ units: rescale(x, scale) - rescale(y, scale), scale });
}

/** Exact `a × b` (the product keeps every digit: its scale is the sum of both scales). */
export function multiplyDecimals(a: DecimalInput, b: DecimalInput): string {
  const x = toScaled(a);
  const y = toScaled(b);
  return fromScaled({ units: x.units * y.units, scale: x.scale + y.scale });
}

/** −1, 0 or 1 as `a` is less than, equal to or greater than `b`, compared exactly. */
export function compareDecimals(a: DecimalInput, b: DecimalInput): -1 | 0 | 1 {
  const x = toScaled(a);
  const y = toScaled(b);
  const scale = Math.max(x.scale, y.scale);
  const d = rescale(x, scale) - rescale(y, scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** A money amount in its currency, with the currency's minor units (JPY 0, USD 2, BHD 3). */
export function formatMoney(value: DecimalInput, currency: string): string {
  // Intl formats a numeric string as an exact decimal (no trip through a double).
  return moneyFormat(currency).format(decimalText(value) as unknown as number);
}

function moneyFormat(currency: string): Intl.NumberFormat {
  const code = currency.toUpperCase();
  let format = moneyFormats.get(code);
  if (!format) {
    format = new Intl.NumberFormat(undefined, { style: 'currency', currency: code });
    moneyFormats.set(code, format);
  }
  return format;
}

const unitPriceFormats = new Map<string, Intl.NumberFormat>();

/**
 * A price per unit (per credit, per event) in its currency: at least the currency's minor units and
 * every further digit the rate has ("$0.01", "$0.0125", "¥3"), never rounded to the minor unit.
 */
export function formatUnitPrice(value: DecimalInput, currency: string): string {
  const code = currency.toUpperCase();
  let format = unitPriceFormats.get(code);
  if (!format) {
    format = new Intl.NumberFormat(undefined, { style: 'currency', currency: code, maximumFractionDigits: 20 });
    unitPriceFormats.set(code, format);
  }
  return format.format(decimalText(value) as unknown as number);
}

/** The currency's minor units (JPY 0, USD 2, BHD 3): the decimals a money amount is shown with. */
export function minorUnits(currency: string): number {
  return moneyFormat(currency).resolvedOptions().maximumFractionDigits ?? 2;
}

const creditFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 20 });

/** A credit amount, every digit kept. */
export function formatCredits(value: DecimalInput): string {
  return creditFormat.format(decimalText(value) as unknown as number);
}

const countFormat = new Intl.NumberFormat();

export function formatCount(value: number): string {
  return countFormat.format(value);
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** A timestamp in the user's zone (the UTC instant goes in the element's title). */
export function formatDateTime(iso: string | null | undefined): string {
  return iso ? dateTimeFormat.format(new Date(iso)) : '—';
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? dateFormat.format(new Date(iso)) : '—';
}
