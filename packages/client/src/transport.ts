/**
 * The one place every call goes through: credentials, the exact JSON codec (./json.ts), the
 * envelope, typed errors, timeouts and retries (ADR 0024). Only `fetch`, `AbortController`,
 * `Headers`, `URLSearchParams` and timers: no Node built-ins.
 *
 * Retry policy: a call is retried only when it is safe to run twice — a GET, or a call carrying an
 * idempotency key (`Idempotency-Key`, or an `eventIdempotencyKey` / `idempotencyKey` in the body,
 * made once per logical call and sent unchanged on every attempt), so the service answers a repeat
 * as a duplicate instead of storing it again. Retried: network errors, attempt timeouts, 408, 429
 * (waiting at least `Retry-After`, seconds or an HTTP date) and 5xx. Never retried: other 4xx, with
 * one exception: 409 `idempotency_conflict` under an `Idempotency-Key` after an attempt that got no
 * answer (that attempt may still be running: the service answers "still in progress" until it ends).
 * Waits grow exponentially with full jitter: random(0, min(retryMaxMs, retryBaseMs · 2^attempt)).
 */
import {
  apiErrorClass,
  gateOf,
  TallyAbortedError,
  TallyApiError,
  TallyError,
  TallyNetworkError,
  TallyRateLimitedError,
  TallyTimeoutError,
  type TallyFieldError,
} from './errors.js';
import { parseJson, stringifyJson } from './json.js';

export type TransportOptions = {
  /** The service's origin, e.g. `https://tally.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** A tenant API key (`sk_…`) or a customer key (`ck_…`), sent as `X-API-Key`. */
  apiKey?: string;
  /** Sent as `Authorization: Bearer …` (wins over `apiKey` at the service). */
  bearerToken?: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof fetch;
  /** Per attempt, including reading the answer. Default 30000. */
  timeoutMs?: number;
  /** Retries after the first attempt, for calls that are safe to retry. Default 3. */
  maxRetries?: number;
  /** Backoff base. Default 250. */
  retryBaseMs?: number;
  /** Backoff cap (before jitter). Default 8000. */
  retryMaxMs?: number;
  /** A 429 whose `Retry-After` is longer than this is not waited for: the `TallyRateLimitedError` is thrown. Default 60000. */
  maxRetryAfterMs?: number;
  /** Headers sent with every call (e.g. `User-Agent` where the runtime allows it). */
  headers?: Record<string, string>;
};

export type RequestOptions = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below `baseUrl`, starting with `/`, with path parameters already encoded (see `encodePath`). */
  path: string;
  /** Undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Written with the exact JSON codec: decimal strings under decimal keys go out as JSON numbers. */
  body?: unknown;
  /** Sent as `Idempotency-Key`; made once per logical call by the caller, reused on every retry. */
  idempotencyKey?: string;
  /** Overrides the transport's `timeoutMs` for this call (per attempt). */
  timeoutMs?: number;
  /** Default: true for GET and for calls with an idempotency key (header, or `eventIdempotencyKey` / `idempotencyKey` in the body). */
  retry?: boolean;
  /** Cancels the call (and any wait between attempts) with `TallyAbortedError`. */
  signal?: AbortSignal;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
  /** `bytes`: a 2xx body is returned as it came (`Uint8Array`, e.g. an invoice PDF); errors are still the JSON envelope. Default `json`. */
  responseType?: 'json' | 'bytes';
};

export type TallyResponse<T> = {
  status: number;
  /** The envelope's `data` (the whole body when the answer is not an envelope; undefined when empty). */
  data: T;
  headers: Headers;
  /** `X-Request-Id`. */
  requestId?: string;
  /** How many attempts the call took (1 = no retry); always set by `Transport`. */
  attempts?: number;
  /** The service replayed a stored answer (`Idempotent-Replayed: true`); always set by `Transport`. */
  replayed?: boolean;
};

const DEFAULTS = { timeoutMs: 30_000, maxRetries: 3, retryBaseMs: 250, retryMaxMs: 8_000, maxRetryAfterMs: 60_000 };

/** Encodes one path parameter (`encodePath\`/customers/${ref}\``). */
export function encodePath(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');
}

/** A fresh idempotency key: a random UUID. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/** `Retry-After` (delta-seconds or an HTTP date) in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** True when running the request twice cannot do the work twice. */
export function isSafeToRetry(o: Pick<RequestOptions, 'method' | 'idempotencyKey' | 'body'>): boolean {
  if (o.method === 'GET' || o.idempotencyKey) return true;
  const body = o.body as { eventIdempotencyKey?: unknown; idempotencyKey?: unknown; events?: unknown } | null | undefined;
  if (!body || typeof body !== 'object') return false;
  if (typeof body.eventIdempotencyKey === 'string' || typeof body.idempotencyKey === 'string') return true;
  return (
    Array.isArray(body.events) &&
    body.events.length > 0 &&
    body.events.every((e) => typeof (e as { eventIdempotencyKey?: unknown } | null)?.eventIdempotencyKey === 'string')
  );
}

type Attempt<T> = { ok: true; response: TallyResponse<T> } | { ok: false; error: TallyError; retryable: boolean; waitAtLeastMs?: number };

export class Transport {
  readonly options: Readonly<TransportOptions> & typeof DEFAULTS;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;

  constructor(o: TransportOptions) {
    if (!o.baseUrl) throw new TypeError('Tally: baseUrl is required');
    this.options = { ...DEFAULTS, ...stripUndefined(o) };
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    // Bound, so a global fetch is called with the right `this` in browsers.
    this.fetchImpl = o.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  async request<T = unknown>(o: RequestOptions): Promise<TallyResponse<T>> {
    const url = this.url(o);
    const headers = this.headers(o);
    const body = o.body === undefined ? undefined : stringifyJson(o.body);
    const retries = (o.retry ?? isSafeToRetry(o)) ? this.options.maxRetries : 0;
    let unanswered = false;
    for (let attempt = 0; ; attempt++) {
      if (o.signal?.aborted) throw aborted(o.signal);
      const result = await this.attempt<T>(o, url, headers, body, attempt + 1);
      if (result.ok) return result.response;
      // An earlier attempt got no answer and may still be running under the key: the service says
      // "still in progress" (409 idempotency_conflict) until it finishes, then replays its answer.
      const stillRunning = unanswered && o.idempotencyKey !== undefined && result.error.code === 'idempotency_conflict';
      if (!(result.retryable || stillRunning) || attempt >= retries) throw result.error;
      if (result.error.status === undefined) unanswered = true;
      const backoff = Math.random() * Math.min(this.options.retryMaxMs, this.options.retryBaseMs * 2 ** attempt);
      await sleep(Math.max(backoff, result.waitAtLeastMs ?? 0), o.signal);
    }
  }

  private url(o: RequestOptions): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) params.append(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${o.path}${qs ? `?${qs}` : ''}`;
  }

  private headers(o: RequestOptions): Record<string, string> {
    const h: Record<string, string> = { accept: o.responseType === 'bytes' ? '*/*' : 'application/json', ...this.options.headers, ...o.headers };
    if (this.options.apiKey) h['x-api-key'] = this.options.apiKey;
    if (this.options.bearerToken) h.authorization = `Bearer ${this.options.bearerToken}`;
    if (o.body !== undefined) h['content-type'] = 'application/json';
    if (o.idempotencyKey) h['idempotency-key'] = o.idempotencyKey;
    return h;
  }

  private async attempt<T>(o: RequestOptions, url: string, headers: Record<string, string>, body: string | undefined, attempts: number): Promise<Attempt<T>> {
    const timeoutMs = o.timeoutMs ?? this.options.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const where = `${o.method} ${o.path}`;
    try {
      let res: Response;
      let text: string;
      try {
        res = await this.fetchImpl(url, { method: o.method, headers, body, signal: controller.signal });
        if (o.responseType === 'bytes' && res.ok) {
          const data = new Uint8Array(await res.arrayBuffer());
          const requestId = res.headers.get('x-request-id') ?? undefined;
          return { ok: true, response: { status: res.status, data: data as T, headers: res.headers, requestId, attempts, replayed: false } };
        }
        text = await res.text();
      } catch (cause) {
        if (o.signal?.aborted) return { ok: false, error: aborted(o.signal), retryable: false };
        if (timedOut) return { ok: false, error: new TallyTimeoutError(`${where} timed out after ${timeoutMs} ms`, { cause }), retryable: true };
        return { ok: false, error: new TallyNetworkError(`${where} failed: ${describe(cause)}`, { cause }), retryable: true };
      }
      return toAttempt<T>(res, text, where, attempts, this.options.maxRetryAfterMs);
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
    }
  }
}

function toAttempt<T>(res: Response, text: string, where: string, attempts: number, maxRetryAfterMs: number): Attempt<T> {
  const headerRequestId = res.headers.get('x-request-id') ?? undefined;
  let parsed: unknown;
  let parseError: unknown;
  if (text.trim() !== '') {
    try {
      parsed = parseJson(text);
    } catch (e) {
      parseError = e;
    }
  }
  const envelope = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  if (res.ok) {
    if (parseError !== undefined) {
      return { ok: false, error: new TallyError('invalid_response', `${where}: the answer is not JSON`, { status: res.status, requestId: headerRequestId, cause: parseError }), retryable: false };
    }
    const data = envelope && envelope.success === true ? envelope.data : parsed;
    return {
      ok: true,
      response: { status: res.status, data: data as T, headers: res.headers, requestId: headerRequestId, attempts, replayed: res.headers.get('idempotent-replayed') === 'true' },
    };
  }
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
  const err = envelope && envelope.success === false && typeof envelope.error === 'object' && envelope.error ? (envelope.error as Record<string, unknown>) : undefined;
  const code = typeof err?.code === 'string' ? err.code : res.status === 429 ? 'rate_limited' : `http_${res.status}`;
  const message = typeof err?.message === 'string' ? err.message : `${where} answered ${res.status}`;
  const init = {
    status: res.status,
    requestId: typeof err?.requestId === 'string' ? err.requestId : headerRequestId,
    headers: res.headers,
    ...(typeof err?.detail === 'string' ? { detail: err.detail } : {}),
    ...(Array.isArray(err?.fields) ? { fields: err.fields as TallyFieldError[] } : {}),
    ...(envelope && 'data' in envelope ? { data: envelope.data } : {}),
    ...(gateOf(err) ? { gate: gateOf(err)! } : {}),
  };
  if (res.status === 429) {
    const error = new TallyRateLimitedError(code, message, { ...init, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
    const tooLong = retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs;
    return { ok: false, error, retryable: !tooLong, ...(retryAfterMs === undefined ? {} : { waitAtLeastMs: retryAfterMs }) };
  }
  const ErrorClass = apiErrorClass(res.status, code);
  const error: TallyApiError = new ErrorClass(code, message, init);
  const retryable = res.status >= 500 || res.status === 408;
  return { ok: false, error, retryable, ...(retryable && retryAfterMs !== undefined && retryAfterMs <= maxRetryAfterMs ? { waitAtLeastMs: retryAfterMs } : {}) };
}

function aborted(signal: AbortSignal): TallyAbortedError {
  return new TallyAbortedError('The call was aborted', { cause: signal.reason });
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message;
  }
  return String(cause);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
