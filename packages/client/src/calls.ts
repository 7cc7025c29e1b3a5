import { newIdempotencyKey, type RequestOptions, type Transport } from './transport.js';
import type { PageQuery } from './types.js';

/**
 * The call plumbing every resource class of `Tally` shares: per-call options, one call's data through
 * the transport (mutations always carry an idempotency key), and the page and option splitting.
 */

/** Per-call options of every helper. */
export type CallOptions = {
  /** Per attempt; overrides the client's `timeoutMs`. */
  timeoutMs?: number;
  signal?: AbortSignal;
};

/** Per-call options of mutating helpers. */
export type MutationOptions = CallOptions & {
  /** Default: a fresh UUID per call. Pass your own to make a call idempotent across restarts. */
  idempotencyKey?: string;
};

export type Method = RequestOptions['method'];

export type Call = <T>(method: Method, path: string, o?: CallOptions & { query?: RequestOptions['query']; body?: unknown; idempotencyKey?: string; retry?: boolean; responseType?: RequestOptions['responseType'] }) => Promise<T>;

/** One call's data; mutations (not GET) always carry an idempotency key. */
export function caller(transport: Transport): Call {
  return async <T>(method: Method, path: string, o: Parameters<Call>[2] = {}) => {
    const { idempotencyKey, ...rest } = o;
    const key = method === 'GET' ? undefined : (idempotencyKey ?? newIdempotencyKey());
    const r = await transport.request<T>({ method, path, ...rest, ...(key ? { idempotencyKey: key } : {}) });
    return r.data;
  };
}

export const page = (q: PageQuery = {}) => ({ limit: q.limit, offset: q.offset });
export const split = <O extends CallOptions>(o: O = {} as O): [Omit<O, 'timeoutMs' | 'signal'>, CallOptions] => {
  const { timeoutMs, signal, ...rest } = o;
  return [rest, { ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(signal ? { signal } : {}) }];
};
