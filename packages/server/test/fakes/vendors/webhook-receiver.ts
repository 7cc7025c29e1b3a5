import { createHmac, timingSafeEqual } from 'node:crypto';
import { startHttpFake, type FakeRequest, type HttpFake } from './http-fake.js';

/**
 * A generic-webhook receiver on loopback, for tests only: it verifies the service's signatures the
 * way a customer's endpoint would (contract §7.6), so a test proves a receiver *can* verify them.
 * `verifyServiceSignatures` is self-contained (node:crypto only) and may be copied as is.
 */

export type SignatureCheck = {
  /** `X-Service-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>` matched. */
  v1: boolean;
  /** `X-Service-Signature-V2: t=<ts>,v1=<hex HMAC-SHA256(secret, "<ts>.<raw body>")>` matched, ts = X-Service-Timestamp. */
  v2: boolean;
  /** The V2 timestamp is within `toleranceSeconds` of now (replay protection). */
  fresh: boolean;
};

/**
 * Verifies both signatures of one delivery. Use the raw body bytes as received (never a re-serialised
 * parse), compare in constant time, and refuse a V2 timestamp older than the tolerance.
 */
export function verifyServiceSignatures(
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  options: { nowSeconds?: number; toleranceSeconds?: number } = {},
): SignatureCheck {
  const header = (name: string) => {
    const v = headers[name.toLowerCase()];
    return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
  };
  const hmac = (data: string) => createHmac('sha256', secret).update(data, 'utf8').digest('hex');
  const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

  const v1Header = header('X-Service-Signature');
  const v1 = v1Header.startsWith('sha256=') && same(v1Header.slice('sha256='.length), hmac(rawBody));

  const parts = Object.fromEntries(
    header('X-Service-Signature-V2')
      .split(',')
      .map((p) => p.trim().split('=', 2) as [string, string]),
  );
  const ts = parts.t ?? '';
  const v2 = /^\d+$/.test(ts) && ts === header('X-Service-Timestamp') && typeof parts.v1 === 'string' && same(parts.v1, hmac(`${ts}.${rawBody}`));
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const fresh = v2 && Math.abs(now - Number(ts)) <= (options.toleranceSeconds ?? 300);
  return { v1, v2, fresh };
}

export type ReceivedDelivery = { request: FakeRequest; event: string; body: any; check: SignatureCheck | null };

export type WebhookReceiver = HttpFake & {
  /** The hook URL to save in the spend settings. */
  hookUrl: string;
  received: ReceivedDelivery[];
  /** Sets the secret it verifies with (null: it accepts unsigned deliveries and checks nothing). */
  setSecret(secret: string | null): void;
  /** Answer the next n deliveries with this status (and optionally late). */
  failNext(count: number, status: number, delayMs?: number): void;
  reset(): void;
};

/**
 * Accepts `POST /hooks/spend` with 204, recording each delivery with its signature check. With a
 * secret it answers 401 to a delivery whose signatures do not both verify, as a real receiver should.
 * `nowSeconds` is the receiver's clock for the freshness check (tests freeze the service's clock).
 */
export async function startWebhookReceiver(options: { secret?: string | null; nowSeconds?: () => number } = {}): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const failures: { status: number; delayMs?: number }[] = [];
  const state = { secret: options.secret ?? null };
  const fake = await startHttpFake((req) => {
    if (req.method !== 'POST' || req.path !== '/hooks/spend') return { status: 404, text: 'not found' };
    const check = state.secret ? verifyServiceSignatures(req.body, req.headers, state.secret, options.nowSeconds ? { nowSeconds: options.nowSeconds() } : {}) : null;
    received.push({ request: req, event: String(req.headers['x-service-event'] ?? ''), body: req.json, check });
    const failure = failures.shift();
    if (failure) return { status: failure.status, text: 'receiver failed', ...(failure.delayMs ? { delayMs: failure.delayMs } : {}) };
    if (check && !(check.v1 && check.v2 && check.fresh)) return { status: 401, text: 'bad signature' };
    return { status: 204 };
  });
  return Object.assign(fake, {
    hookUrl: `${fake.url}/hooks/spend`,
    received,
    setSecret(secret: string | null) {
      state.secret = secret;
    },
    failNext(count: number, status: number, delayMs?: number) {
      for (let i = 0; i < count; i += 1) failures.push({ status, ...(delayMs ? { delayMs } : {}) });
    },
    reset() {
      received.length = 0;
      failures.length = 0;
      fake.requests.length = 0;
    },
  });
}
