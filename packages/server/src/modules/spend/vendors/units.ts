import { parseJson } from '../../../platform/http/json.js';
import type { Decimal } from '../../../platform/money.js';
import { countOf } from './http.js';
import { VendorError, type DayWindow } from './types.js';

/**
 * Units and windows shared by the vendor clients. JSON answers are read with
 * `http.exact()` (lossless: a vendor's `0.1` never becomes a float); counts and amounts then go
 * through http.ts's `countOf` / `exactOf`, or `countOrNull` below where "not reported" must stay null.
 */

/** One NDJSON line (report files) parsed losslessly; '' is null. */
export function parseExact(vendor: string, text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return parseJson(text);
  } catch (err) {
    throw new VendorError(`${vendor} answered with a body that is not JSON`, null, { cause: err });
  }
}

/** A count the vendor may leave out (per-person metrics): absent → null, else as `countOf`. */
export function countOrNull(value: unknown, vendor: string, field: string): bigint | null {
  return value === null || value === undefined ? null : countOf(value, vendor, field);
}

/** Dollars (OpenAI, LiteLLM) → cents, exactly. */
export function centsOfDollars(dollars: Decimal): Decimal {
  return dollars.times(100);
}

export function sumNullable(a: bigint | null, b: bigint | null): bigint | null {
  return a === null ? b : b === null ? a : a + b;
}

export function sumNullableDecimal(a: Decimal | null, b: Decimal | null): Decimal | null {
  return a === null ? b : b === null ? a : a.plus(b);
}

/** Only USD amounts can be stored: another currency is the vendor's refusal to us (VendorError). */
export function assertUsd(vendor: string, currency: string | null | undefined): void {
  if (currency && currency.toUpperCase() !== 'USD') {
    throw new VendorError(`${vendor} reported an amount in ${currency}; only USD amounts can be stored`);
  }
}

/** The UTC day of an instant when it lies in the window [from, to), else null. */
export function dayInWindow(date: Date, window: DayWindow): string | null {
  const day = date.toISOString().slice(0, 10);
  return day >= window.from && day < window.to ? day : null;
}

const DAY_MS = 86_400_000;

/** 'YYYY-MM-DD' → epoch ms of its UTC midnight. */
export function epochMsOfDay(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/** Epoch ms → its UTC day 'YYYY-MM-DD'. */
export function dayOfEpochMs(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  return dayOfEpochMs(epochMsOfDay(day) + days * DAY_MS);
}

/** Every day of [from, to). */
export function daysOf(window: DayWindow): string[] {
  const days: string[] = [];
  for (let day = window.from; day < window.to; day = addDays(day, 1)) days.push(day);
  return days;
}

/** [from, to) cut into consecutive windows of at most `maxDays` days. */
export function splitWindow(window: DayWindow, maxDays: number): DayWindow[] {
  const parts: DayWindow[] = [];
  for (let from = window.from; from < window.to; ) {
    const end = addDays(from, maxDays);
    const to = end < window.to ? end : window.to;
    parts.push({ from, to });
    from = to;
  }
  return parts;
}

/** A string field of a vendor record, '' when absent or not a string. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The vendor's message from a parsed error body's usual fields (never the raw body); capped. */
export function messageText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return trimmed.length > 500 ? `${trimmed.slice(0, 497)}...` : trimmed;
}
