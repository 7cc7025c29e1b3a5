import { stringifyJson } from '../../../src/platform/http/json.js';
import { dec, type Decimal } from '../../../src/platform/money.js';
import type { FakeRequest, FakeResponse } from './http-fake.js';

/**
 * Pieces the report-style vendor fakes (Anthropic, OpenAI) share: opaque page cursors, array query
 * parameters in both spellings, UTC day arithmetic, injected failures and exact JSON answers.
 * Test code only.
 */

export const DAY_MS = 86_400_000;

/** A count or amount a test seeds: a number, a bigint or a decimal string. */
export type Amount = number | bigint | string;

export function decOf(value: Amount | undefined | null): Decimal {
  if (value === undefined || value === null) return dec(0);
  return dec(typeof value === 'bigint' ? value.toString() : value);
}

/** `name[]=v` (bracketed, encoded or not) and bare `name=v`, as vendor-apis.md asks fakes to accept. */
export function arrayParam(query: URLSearchParams, name: string): string[] {
  return [...query.getAll(`${name}[]`), ...query.getAll(name)];
}

/** Opaque cursors: the offset of the next item, wrapped so a client cannot do arithmetic on it. */
export function pageToken(offset: number): string {
  return `page_${Buffer.from(`o:${offset}`).toString('base64url')}`;
}

export function offsetOf(token: string | null): number | null {
  if (token === null || token === '') return 0;
  if (!token.startsWith('page_')) return null;
  const match = /^o:(\d+)$/.exec(Buffer.from(token.slice(5), 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}

export function dayOfMs(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function msOfDay(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

export function addDays(day: string, n: number): string {
  return dayOfMs(msOfDay(day) + n * DAY_MS);
}

/** JSON with exact number lexemes: Decimal values are written as numbers (`0.1`, never 0.1000000000000000055). */
export function exactJson(status: number, value: unknown, headers: Record<string, string> = {}): FakeResponse {
  return { status, text: stringifyJson(value), headers: { 'content-type': 'application/json', ...headers } };
}

export type Failure = {
  /** Default 429. Any status works; the fake answers with its vendor's error body for it. */
  status?: number;
  /** Sent as the Retry-After header (e.g. '2', or an HTTP date). */
  retryAfter?: string;
  /** More response headers (e.g. GitHub's x-ratelimit-remaining / x-ratelimit-reset). */
  headers?: Record<string, string>;
  /** Only requests to this path count against the failure. Default: every path. */
  path?: string;
  /** Only requests whose path starts with this count (e.g. every signed report link). */
  pathPrefix?: string;
  message?: string;
  /** A raw body instead of the vendor's error JSON (e.g. an HTML page from a reverse proxy). */
  text?: string;
  /** A JSON body instead of the vendor's usual error shape (e.g. LiteLLM's FastAPI `{detail}`). */
  json?: unknown;
  /** Answer only after this many ms (timeout tests). */
  delayMs?: number;
};

/** The failures a test queued with failNext: each matching request consumes one. */
export class FailureQueue {
  private items: Array<Failure & { status: number }> = [];

  push(count: number, failure: Failure): void {
    for (let i = 0; i < count; i += 1) this.items.push({ ...failure, status: failure.status ?? 429 });
  }

  take(req: FakeRequest): (Failure & { status: number }) | null {
    const index = this.items.findIndex(
      (f) => (f.path === undefined || f.path === req.path) && (f.pathPrefix === undefined || req.path.startsWith(f.pathPrefix)),
    );
    if (index === -1) return null;
    return this.items.splice(index, 1)[0]!;
  }

  clear(): void {
    this.items = [];
  }
}

/**
 * The answer to a queued failure for fakes that honour `text`, `json` and `delayMs` (Cursor, GitHub,
 * LiteLLM): the raw text or JSON when given, else the vendor's error body for the status.
 */
export function failureAnswer(failure: Failure & { status: number }, vendorBody: (status: number, message?: string) => unknown): FakeResponse {
  const headers: Record<string, string> = { ...failure.headers, ...(failure.retryAfter === undefined ? {} : { 'retry-after': failure.retryAfter }) };
  const answer: FakeResponse =
    failure.text !== undefined
      ? { status: failure.status, text: failure.text, headers: { 'content-type': 'text/html', ...headers } }
      : exactJson(failure.status, failure.json ?? vendorBody(failure.status, failure.message), headers);
  if (failure.delayMs) answer.delayMs = failure.delayMs;
  return answer;
}

/** The bearer token of a request, '' when none. */
export function bearerOf(req: FakeRequest): string {
  const value = req.headers['authorization'];
  const text = Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
  return text.startsWith('Bearer ') ? text.slice('Bearer '.length) : '';
}

/**
 * A time index over a fake's seeded list: items in time order and the slice of [from, to] (both
 * inclusive, epoch ms) found by binary search, so a fake seeded with 100,000 rows answers each page
 * without re-sorting. Rebuilt after `invalidate()` (the fake's add, seed and reset helpers call it)
 * and whenever the list's length changes.
 */
export function timeIndex<T>(timeOf: (item: T) => number): { slice(list: T[], from: number, to: number): T[]; invalidate(): void } {
  let cache: { length: number; at: number[]; items: T[] } | null = null;
  const slice = (list: T[], from: number, to: number): T[] => {
    if (!cache || cache.length !== list.length) {
      const sorted = list.map((item) => ({ at: timeOf(item), item })).sort((a, b) => a.at - b.at);
      cache = { length: list.length, at: sorted.map((e) => e.at), items: sorted.map((e) => e.item) };
    }
    const { at, items } = cache;
    const lowerBound = (value: number, strict: boolean) => {
      let lo = 0;
      let hi = at.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (strict ? at[mid]! <= value : at[mid]! < value) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    return items.slice(lowerBound(from, false), lowerBound(to, true));
  };
  return {
    slice,
    invalidate() {
      cache = null;
    },
  };
}

/** Sum of a list of exact values. */
export function sum(values: Decimal[]): Decimal {
  return values.reduce((a, b) => a.plus(b), dec(0));
}
