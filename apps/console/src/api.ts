/**
 * The console's one way to the service: the generated core of `@tally/client` (types from
 * /v3/api-docs, so the pages and the API cannot drift), authenticated by the console session's
 * HttpOnly cookie (ADR 0034: a reload or a new tab stays signed in; scripts never see the cookie),
 * with the session's CSRF token on every change and a 401 turned into a clean return to the login
 * page.
 */
import { createCore, parseJson, type components } from '@tally/client';

export type Schemas = components['schemas'];

let csrfToken: string | null = null;
let onUnauthorized: () => void = () => {};

/**
 * fetch whose JSON keeps every amount exact: the client's codec reads decimal fields as decimal
 * strings (JSON.parse would put them through a double). At run time those fields are strings even
 * where the generated types say number; format.ts takes either.
 *
 * The answer is handed on as JSON whose decimals are already strings, because openapi-fetch does
 * not always call `response.json()`: an error body, or a body without Content-Length, goes through
 * `JSON.parse(await response.text())` (a 402's amountCharged would arrive as a double).
 */
export async function exactJsonFetch(input: Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (!/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  let body: string | null = text === '' ? null : text;
  try {
    if (body !== null) body = JSON.stringify(parseJson(body));
  } catch {
    // Not JSON after all: passed on as it came, for openapi-fetch to report.
  }
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

export const api = createCore({ baseUrl: window.location.origin, fetch: exactJsonFetch as typeof fetch });

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

api.use({
  onRequest({ request }) {
    // The session cookie goes by itself (same origin); a change carries the session's CSRF token (ADR 0034).
    if (csrfToken && !SAFE_METHODS.has(request.method)) request.headers.set('x-csrf-token', csrfToken);
    return request;
  },
  onResponse({ response }) {
    // A 401 while signed in means the session ended (signed out elsewhere, expired, password changed): back to the login page.
    if (response.status === 401 && csrfToken) onUnauthorized();
    return response;
  },
});

/** The signed-in session's CSRF token (null: signed out). */
export function setCsrfToken(next: string | null): void {
  csrfToken = next;
}

export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** An answer other than 2xx, with the envelope's code, message and requestId (shown to the user). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly fields: { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

type Answer<T> = { data?: { data?: T } | undefined; error?: unknown; response: Response };

/** The `data` of a success envelope, or throws ApiError with the error envelope's content. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (err) {
    throw new ApiError(0, 'network_error', `The service did not answer (${(err as Error).message})`, undefined);
  }
  if (answer.response.ok) return answer.data?.data as T;
  const envelope = (answer.error ?? {}) as Partial<Schemas['ErrorEnvelope']>;
  const error = envelope.error;
  throw new ApiError(
    answer.response.status,
    error?.code ?? 'http_error',
    error?.message ?? `${answer.response.status} ${answer.response.statusText}`,
    error?.requestId ?? answer.response.headers.get('x-request-id') ?? undefined,
    error?.fields ?? [],
  );
}
