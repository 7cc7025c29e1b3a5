/**
 * Fields printed on invoice documents, shared by the issuer (account settings, api-contract-money.md
 * §1.1) and the customer (§1.2): the same address-line and tax-id rules apply to both.
 */

/** Address lines: at most this many, each at most MAX_LINE_LENGTH characters after trimming. */
export const MAX_ADDRESS_LINES = 6;
export const MAX_LINE_LENGTH = 200;
export const MAX_TAX_ID_LENGTH = 64;

/** Address lines as stored: each trimmed, empty ones dropped; null when more than 6 remain or one is longer than 200. */
export function normaliseAddressLines(lines: string[]): string[] | null {
  const kept = lines.map((l) => l.trim()).filter((l) => l !== '');
  return kept.length <= MAX_ADDRESS_LINES && kept.every((l) => l.length <= MAX_LINE_LENGTH) ? kept : null;
}

/** A printed text field as stored: trimmed, "" or null → null; undefined when longer than `max`. */
export function normaliseText(value: string | null, max: number): string | null | undefined {
  const text = value?.trim() ?? '';
  if (text.length > max) return undefined;
  return text === '' ? null : text;
}
