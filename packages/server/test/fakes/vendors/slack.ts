import { FailureQueue } from './fake-kit.js';
import { startHttpFake, type FakeResponse, type HttpFake } from './http-fake.js';

/**
 * Loopback fake of Slack incoming webhooks (vendor-apis.md §7.1), for tests only. Point
 * APP_SPEND_SLACK_WEBHOOK_BASE at `fake.url + '/'` and save `fake.hookUrl()` (or any
 * `/services/T…/B…/<token>` path under it) as the account's chat webhook.
 *
 * - `POST /services/{team}/{bot}/{token}` with a JSON `{"text": "…"}` → 200 `ok` (text/html, as
 *   Slack answers). Non-JSON → 400 `invalid_payload`; JSON without a non-empty `text` (and no
 *   `blocks`) → 400 `no_text`; a token revoked with `revoke(token)` → 403 `invalid_token`; a path
 *   that is not a hook → 404 `no_service`.
 * - `failNext(n, { status, text })` scripts the next n posts: default texts per status are
 *   403 `action_prohibited`, 404 `channel_not_found`, 410 `channel_is_archived`, 429 `rate_limited`
 *   (with `Retry-After`), 500 `rollup_error`. `delayMs` answers late (timeouts).
 * - `messages` holds the text of every accepted post, in order.
 */
export type SlackFake = HttpFake & {
  /** Accepted message texts, in order. */
  messages: string[];
  /** A valid hook URL under this fake (default token 'XXXXsecretTOKEN'). */
  hookUrl(token?: string): string;
  revoke(token: string): void;
  failNext(count: number, failure: { status?: number; text?: string; delayMs?: number; retryAfter?: string }): void;
  reset(): void;
};

const DEFAULT_TEXT: Record<number, string> = {
  400: 'invalid_payload',
  403: 'action_prohibited',
  404: 'channel_not_found',
  410: 'channel_is_archived',
  429: 'rate_limited',
  500: 'rollup_error',
};

export const SLACK_FAKE_TOKEN = 'XXXXsecretTOKEN';

export async function startSlackFake(): Promise<SlackFake> {
  const failures = new FailureQueue();
  const messages: string[] = [];
  const revoked = new Set<string>();
  const plain = (status: number, text: string, headers: Record<string, string> = {}): FakeResponse => ({ status, text, headers: { 'content-type': 'text/html', ...headers } });

  const fake = await startHttpFake((req) => {
    const match = /^\/services\/(T[A-Z0-9]+)\/(B[A-Z0-9]+)\/([A-Za-z0-9_-]+)$/.exec(req.path);
    if (req.method !== 'POST' || !match) return plain(404, 'no_service');
    const failure = failures.take(req);
    if (failure) {
      const answer = plain(failure.status, failure.text ?? DEFAULT_TEXT[failure.status] ?? 'rollup_error', failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
      if (failure.delayMs) answer.delayMs = failure.delayMs;
      return answer;
    }
    if (revoked.has(match[3]!)) return plain(403, 'invalid_token');
    const body = req.json as { text?: unknown; blocks?: unknown } | undefined;
    if (body === undefined || typeof body !== 'object' || body === null || Array.isArray(body)) return plain(400, 'invalid_payload');
    if ((typeof body.text !== 'string' || body.text.trim() === '') && !Array.isArray(body.blocks)) return plain(400, 'no_text');
    messages.push(String(body.text));
    return plain(200, 'ok');
  });

  return Object.assign(fake, {
    messages,
    hookUrl: (token = SLACK_FAKE_TOKEN) => `${fake.url}/services/T000FAKE/B000FAKE/${token}`,
    revoke: (token: string) => void revoked.add(token),
    failNext: (count: number, failure: { status?: number; text?: string; delayMs?: number; retryAfter?: string }) => failures.push(count, failure),
    reset() {
      failures.clear();
      messages.length = 0;
      revoked.clear();
      fake.requests.length = 0;
    },
  });
}
