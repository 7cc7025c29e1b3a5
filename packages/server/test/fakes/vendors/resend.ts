import { randomUUID } from 'node:crypto';
import { bearerOf, FailureQueue } from './fake-kit.js';
import { startHttpFake, type FakeResponse, type HttpFake } from './http-fake.js';

/**
 * Loopback fake of Resend's `POST /emails` (vendor-apis.md §7.2), for tests only. Point
 * APP_RESEND_BASE_URL at `fake.url` and APP_RESEND_API_KEY at `fake.key`.
 *
 * - No bearer → 401 `missing_api_key`; another key → 403 `invalid_api_key`; no User-Agent → 403
 *   (Cloudflare's error 1010 page, as the real API answers).
 * - Missing `from` / `to` / `subject`, or neither `html` nor `text` → 422 `missing_required_field`;
 *   more than 50 recipients → 422 `invalid_parameter`.
 * - Accepted → 200 `{"id": "<uuid>"}` and the e-mail lands in `outbox`. A repeated
 *   `Idempotency-Key` with the same body answers the first id and sends nothing.
 * - `failNext(n, { status })` scripts the next n posts with Resend's error body for the status
 *   (429 `rate_limit_exceeded`, 500 `application_error`, …); `delayMs` answers late.
 */
export const RESEND_FAKE_KEY = 're_fake_0123456789abcdef';

export type ResendEmail = { id: string; from: string; to: string[]; subject: string; text?: string; html?: string; idempotencyKey?: string };

export type ResendFake = HttpFake & {
  key: string;
  outbox: ResendEmail[];
  failNext(count: number, failure: { status?: number; message?: string; delayMs?: number }): void;
  reset(): void;
};

const ERROR_NAMES: Record<number, string> = {
  400: 'validation_error',
  401: 'missing_api_key',
  403: 'invalid_api_key',
  404: 'not_found',
  409: 'invalid_idempotent_request',
  422: 'validation_error',
  429: 'rate_limit_exceeded',
  500: 'application_error',
};

/** Resend's error body: `{ statusCode, name, message }`. */
export function resendError(status: number, name = ERROR_NAMES[status] ?? 'application_error', message = 'The request failed'): FakeResponse {
  return { status, json: { statusCode: status, name, message } };
}

export async function startResendFake(options: { key?: string } = {}): Promise<ResendFake> {
  const failures = new FailureQueue();
  const outbox: ResendEmail[] = [];
  const byIdempotencyKey = new Map<string, { body: string; id: string }>();
  const key = options.key ?? RESEND_FAKE_KEY;

  const fake = await startHttpFake((req) => {
    if (req.method !== 'POST' || req.path !== '/emails') return resendError(404, 'not_found', 'The requested endpoint does not exist.');
    if (!req.headers['user-agent']) return { status: 403, text: 'error code: 1010', headers: { 'content-type': 'text/plain' } };
    const token = bearerOf(req);
    if (token === '') return resendError(401, 'missing_api_key', 'Missing API key in the authorization header. Include the following header in the request: Authorization: Bearer YOUR_API_KEY');
    if (token !== key) return resendError(403, 'invalid_api_key', 'API key is invalid');
    const failure = failures.take(req);
    if (failure) {
      const answer = resendError(failure.status, undefined, failure.message ?? (failure.status === 429 ? 'Too many requests. You can only make 2 requests per second.' : 'Internal server error'));
      if (failure.delayMs) answer.delayMs = failure.delayMs;
      return answer;
    }
    const body = req.json as Partial<{ from: string; to: string | string[]; subject: string; text: string; html: string }> | undefined;
    if (!body || typeof body !== 'object') return resendError(422, 'validation_error', 'Invalid JSON body');
    for (const field of ['from', 'to', 'subject'] as const) if (!body[field]) return resendError(422, 'missing_required_field', `Missing \`${field}\` field.`);
    if (!body.text && !body.html) return resendError(422, 'missing_required_field', 'Missing `html` or `text` field.');
    const to = Array.isArray(body.to) ? body.to : [body.to!];
    if (to.length > 50) return resendError(422, 'invalid_parameter', 'The `to` field must contain at most 50 addresses.');
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    if (idempotencyKey) {
      const earlier = byIdempotencyKey.get(idempotencyKey);
      if (earlier && earlier.body !== req.body) return resendError(409, 'invalid_idempotent_request', 'Same idempotency key used with a different request payload.');
      if (earlier) return { status: 200, json: { id: earlier.id } };
    }
    const id = randomUUID();
    if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, { body: req.body, id });
    outbox.push({ id, from: body.from!, to, subject: body.subject!, ...(body.text ? { text: body.text } : {}), ...(body.html ? { html: body.html } : {}), ...(idempotencyKey ? { idempotencyKey } : {}) });
    return { status: 200, json: { id } };
  });

  return Object.assign(fake, {
    key,
    outbox,
    failNext: (count: number, failure: { status?: number; message?: string; delayMs?: number }) => failures.push(count, failure),
    reset() {
      failures.clear();
      outbox.length = 0;
      byIdempotencyKey.clear();
      fake.requests.length = 0;
    },
  });
}
