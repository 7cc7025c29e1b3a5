import { parseJson, stringifyJson } from '../../../platform/http/json.js';
import { dec, isDecimal, type Decimal } from '../../../platform/money.js';
import { VendorError, type VendorClientOptions } from './types.js';

/**
 * The one HTTP path of the vendor clients: a timeout per attempt, bounded retries with exponential
 * backoff and jitter on 429 (honouring Retry-After, seconds or an HTTP date), 5xx (and Anthropic's
 * 529) and network errors; every other status is final. Errors become VendorError carrying the
 * vendor's message as `messageOf` extracts it from the parsed body (never the raw body).
 */
export type VendorRequest = {
  method?: 'GET' | 'POST';
  /** Path with leading slash, appended to the base URL. */
  path: string;
  /** Repeated keys for arrays; the caller spells bracketed names itself (`group_by[]`). */
  query?: Record<string, string | number | boolean | readonly string[] | undefined | null>;
  headers?: Record<string, string>;
  /** Sent as JSON; a Decimal is written as its exact number lexeme. */
  json?: unknown;
};

export type VendorHttp = {
  /** Parsed JSON body of a 2xx answer. */
  request<T = unknown>(req: VendorRequest): Promise<T>;
  /**
   * Parsed JSON body of a 2xx answer with exact numbers (platform/http/json.ts): a safe integer
   * lexeme is a number, every other number lexeme a Decimal, so a vendor's `0.1` dollars never
   * becomes a float. Read counts with `countOf` and amounts with `exactOf`.
   */
  exact<T = unknown>(req: VendorRequest): Promise<T>;
  /** Raw text body of a 2xx answer (NDJSON report files). */
  text(req: VendorRequest & { absoluteUrl?: string }): Promise<string>;
};

export const USER_AGENT = 'tally-spend/1.0';
const MAX_BACKOFF_MS = 30_000;

export function vendorHttp(
  options: VendorClientOptions,
  describe: {
    vendor: string;
    authHeaders: Record<string, string>;
    messageOf: (status: number, body: unknown) => string | null;
    /**
     * A vendor's own "wait, then retry" signal on a status the generic rule treats as final (GitHub
     * answers a spent rate limit with 403 and x-ratelimit-reset): the wait in ms, or null.
     */
    retryDelayMs?: (status: number, headers: Headers) => number | null;
  },
): VendorHttp {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  async function send(req: VendorRequest & { absoluteUrl?: string }): Promise<Response> {
    const url = new URL(req.absoluteUrl ?? options.baseUrl.replace(/\/+$/, '') + req.path);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json', ...describe.authHeaders, ...req.headers };
    if (req.json !== undefined) headers['content-type'] = 'application/json';
    for (let attempt = 0; ; attempt += 1) {
      let response: Response;
      try {
        response = await fetch(url, {
          method: req.method ?? 'GET',
          headers,
          ...(req.json === undefined ? {} : { body: stringifyJson(req.json) }),
          signal: AbortSignal.timeout(options.timeoutMs),
          ...(options.dispatcher ? ({ dispatcher: options.dispatcher } as object) : {}),
        });
      } catch (err) {
        options.onAnswer?.('error');
        if (attempt < options.maxRetries && !isGuardRefusal(err)) {
          await sleep(backoffMs(attempt));
          continue;
        }
        throw new VendorError(networkMessage(describe.vendor, err, options.timeoutMs), null, { cause: err });
      }
      options.onAnswer?.(response.status);
      if (response.ok) return response;
      const hinted = describe.retryDelayMs?.(response.status, response.headers) ?? null;
      const retryable = hinted !== null || response.status === 429 || response.status >= 500;
      if (retryable && attempt < options.maxRetries) {
        await response.body?.cancel().catch(() => undefined);
        await sleep(hinted ?? retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(attempt));
        continue;
      }
      const text = await response.text().catch(() => '');
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      const message = describe.messageOf(response.status, body) ?? `${describe.vendor} answered HTTP ${response.status}`;
      throw new VendorError(message, response.status);
    }
  }

  return {
    async request<T>(req: VendorRequest): Promise<T> {
      const response = await send(req);
      const text = await response.text();
      try {
        return (text ? JSON.parse(text) : null) as T;
      } catch (err) {
        throw new VendorError(`${describe.vendor} answered with a body that is not JSON`, response.status, { cause: err });
      }
    },
    async exact<T>(req: VendorRequest): Promise<T> {
      const response = await send(req);
      const text = await response.text();
      try {
        return (text ? parseJson(text) : null) as T;
      } catch (err) {
        throw new VendorError(`${describe.vendor} answered with a body that is not JSON`, response.status, { cause: err });
      }
    },
    async text(req) {
      return (await send(req)).text();
    },
  };
}

/** A token or event count from an `exact` body (number, Decimal or numeric string); absent → 0. */
export function countOf(value: unknown, vendor: string, field: string): bigint {
  if (value === undefined || value === null) return 0n;
  const text = isDecimal(value) ? value.toFixed() : typeof value === 'number' || typeof value === 'string' ? String(value).trim() : '';
  if (!/^-?\d+$/.test(text)) throw new VendorError(`${vendor} sent ${field} = ${JSON.stringify(String(value))}, not a whole number`);
  return BigInt(text);
}

/** An amount from an `exact` body (number, Decimal or numeric string), exact; absent → null. */
export function exactOf(value: unknown, vendor: string, field: string): Decimal | null {
  if (value === undefined || value === null) return null;
  if (isDecimal(value)) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return dec(value);
  if (typeof value === 'string' && /^\s*-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) return dec(value.trim());
  throw new VendorError(`${vendor} sent ${field} = ${JSON.stringify(String(value))}, not a number`);
}

/** Exponential backoff with full jitter: up to 0.5 s, 1 s, 2 s, … capped at 30 s. */
export function backoffMs(attempt: number): number {
  return Math.floor(Math.random() * Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt));
}

/** Retry-After as delta seconds or an HTTP date; null when absent or unreadable; capped. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(MAX_BACKOFF_MS, Math.ceil(Number(trimmed) * 1000));
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.min(MAX_BACKOFF_MS, Math.max(0, at - now));
}

function isGuardRefusal(err: unknown): boolean {
  // The outbound-URL guard's refusal (connection-time check) is final, never retried.
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i += 1) {
    if ((e as { code?: string }).code === 'OUTBOUND_URL_REFUSED') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function networkMessage(vendor: string, err: unknown, timeoutMs: number): string {
  const name = (err as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `${vendor} did not answer within ${timeoutMs} ms`;
  let e: unknown = err;
  for (let i = 0; i < 4 && e; i += 1) {
    if ((e as { code?: string }).code === 'OUTBOUND_URL_REFUSED') return (e as Error).message;
    e = (e as { cause?: unknown }).cause;
  }
  return `${vendor} could not be reached`;
}

/** `vendorHttp` for a vendor that takes the admin key as a bearer token (OpenAI, LiteLLM). */
export function bearerHttp(options: VendorClientOptions, vendor: string, messageOf: (status: number, body: unknown) => string | null): VendorHttp {
  return vendorHttp(options, { vendor, authHeaders: { authorization: `Bearer ${options.adminKey}` }, messageOf });
}

/** The error body Anthropic (`{type:"error", error:{type, message}}`) and OpenAI (`{error:{message, type, param, code}}`) answer with → its message. */
export function errorMessageOf(_status: number, body: unknown): string | null {
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === 'string' && message.trim() !== '' ? message : null;
}

/**
 * The rows of a daily-bucket report (Anthropic, OpenAI: one bucket per day holding `results`): each
 * result mapped with its bucket's UTC day; a bucket whose day is outside the window (`dayOf` null)
 * is dropped, never written.
 */
export function bucketRows<B extends { results?: unknown[] }, Row>(buckets: B[], dayOf: (bucket: B) => string | null, row: (result: NonNullable<B['results']>[number], day: string) => Row): Row[] {
  const rows: Row[] = [];
  for (const bucket of buckets) {
    const day = dayOf(bucket);
    if (day === null) continue;
    for (const r of bucket.results ?? []) rows.push(row(r, day));
  }
  return rows;
}

/**
 * Every page of a cursor-paged report (Anthropic, OpenAI): the same query plus `page=<next_page>`
 * until `has_more` is false or `next_page` empty. A page without a `data` list, a cursor answered
 * twice, or more than `maxPages` pages is the vendor's fault: VendorError.
 */
export async function cursorPages<T>(http: VendorHttp, vendor: string, req: VendorRequest, maxPages = 1000): Promise<T[]> {
  type Page = { data?: T[]; has_more?: boolean; next_page?: string | null };
  const items: T[] = [];
  let page: string | undefined;
  for (let n = 0; n < maxPages; n += 1) {
    const body = await http.exact<Page>({ ...req, query: { ...req.query, page } });
    if (!body || !Array.isArray(body.data)) throw new VendorError(`${vendor} answered ${req.path} without a data list`);
    items.push(...body.data);
    if (!body.has_more || !body.next_page) return items;
    if (body.next_page === page) throw new VendorError(`${vendor} answered ${req.path} with the same page cursor twice`);
    page = body.next_page;
  }
  throw new VendorError(`${vendor} answered ${req.path} with more than ${maxPages} pages`);
}
