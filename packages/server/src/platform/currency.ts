/**
 * ISO 4217 currencies and their minor units (the number of decimal places an amount in that currency
 * carries: JPY 0, USD 2, KWD 3, CLF 4). Active codes as published by the ISO 4217 maintenance agency
 * (list one), excluding X-codes without minor units (metals, XDR, XXX…). A currency an old row holds
 * that is not here is treated as 2 places.
 */
const ZERO = ['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'];
const THREE = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'];
const FOUR = ['CLF', 'UYW'];
const TWO = [
  'AED', 'AFN', 'ALL', 'AMD', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BGN', 'BMD', 'BND', 'BOB', 'BOV',
  'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHE', 'CHF', 'CHW', 'CNY', 'COP', 'COU', 'CRC', 'CUP', 'CVE',
  'CZK', 'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD', 'FKP', 'GBP', 'GEL', 'GHS', 'GIP', 'GMD', 'GTQ', 'GYD',
  'HKD', 'HNL', 'HTG', 'HUF', 'IDR', 'ILS', 'INR', 'IRR', 'JMD', 'KES', 'KGS', 'KHR', 'KPW', 'KYD', 'KZT', 'LAK', 'LBP',
  'LKR', 'LRD', 'LSL', 'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT', 'MOP', 'MRU', 'MUR', 'MVR', 'MWK', 'MXN', 'MXV', 'MYR',
  'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'PAB', 'PEN', 'PGK', 'PHP', 'PKR', 'PLN', 'QAR', 'RON', 'RSD', 'RUB',
  'SAR', 'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP', 'SLE', 'SOS', 'SRD', 'SSP', 'STN', 'SVC', 'SYP', 'SZL', 'THB', 'TJS',
  'TMT', 'TOP', 'TRY', 'TTD', 'TWD', 'TZS', 'UAH', 'USD', 'USN', 'UYU', 'UZS', 'VED', 'VES', 'WST', 'XCD', 'XCG', 'YER',
  'ZAR', 'ZMW', 'ZWG',
];

const TABLE: ReadonlyMap<string, number> = new Map([
  ...ZERO.map((c) => [c, 0] as const),
  ...TWO.map((c) => [c, 2] as const),
  ...THREE.map((c) => [c, 3] as const),
  ...FOUR.map((c) => [c, 4] as const),
]);

/** Every code a plan may be priced in, sorted. */
export const CURRENCY_CODES: readonly string[] = [...TABLE.keys()].sort();

/** The most minor units any currency has: the scale of the money columns (invoices, lines, prices). */
export const MAX_MINOR_UNITS = 4;

/** Minor units of a currency not in the table (a row written before the table existed). */
const FALLBACK_MINOR_UNITS = 2;

export function isCurrencyCode(code: string): boolean {
  return TABLE.has(code);
}

/** Decimal places an amount in this currency carries (ISO 4217 minor units). */
export function minorUnits(currency: string): number {
  return TABLE.get(currency) ?? FALLBACK_MINOR_UNITS;
}
