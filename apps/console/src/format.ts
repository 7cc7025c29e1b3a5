/**
 * Formatting of the API's amounts and times. Amounts arrive as JSON numbers rendered from exact
 * decimals; they are formatted from their decimal text (Intl formats a string exactly) and summed
 * as scaled bigints, never added as floats.
 */

/** An API amount as its decimal text ("12.5", "-3", "0.000125"). */
export function decimalText(value: number | string | null | undefined): string {
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

/** Exact sum of decimal amounts. */
export function sumDecimals(values: (number | string | null | undefined)[]): string {
  const parts = values.map(decimalText);
  const scale = Math.max(0, ...parts.map((p) => (p.split('.')[1] ?? '').length));
  let total = 0n;
  for (const part of parts) {
    const negative = part.startsWith('-');
    const [whole, fraction = ''] = part.replace('-', '').split('.') as [string, string?];
    const scaled = BigInt(whole + fraction.padEnd(scale, '0'));
    total += negative ? -scaled : scaled;
  }
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** A money amount in its currency, with the currency's minor units (JPY 0, USD 2, BHD 3). */
export function formatMoney(value: number | string | null | undefined, currency: string): string {
  const code = currency.toUpperCase();
  let format = moneyFormats.get(code);
  if (!format) {
    format = new Intl.NumberFormat(undefined, { style: 'currency', currency: code });
    moneyFormats.set(code, format);
  }
  // Intl formats a numeric string as an exact decimal (no trip through a double).
  return format.format(decimalText(value) as unknown as number);
}

const creditFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 20 });

/** A credit amount, every digit kept. */
export function formatCredits(value: number | string | null | undefined): string {
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
