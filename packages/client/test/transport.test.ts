import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import {
  TallyAbortedError,
  TallyApiError,
  TallyConflictError,
  TallyGatedError,
  TallyNetworkError,
  TallyNotFoundError,
  TallyPaymentRequiredError,
  TallyRateLimitedError,
  TallyTimeoutError,
  TallyValidationError,
} from '../src/errors.js';
import { parseRetryAfter, Transport } from '../src/transport.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, n: number) => void;

/** A tiny local server answering by `handler`; counts requests. */
async function serve(handler: Handler) {
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res, body, seen.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    seen,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const json = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-h', ...headers });
  res.end(body);
};
const envelopeError = (code: string, status: number) => `{"success":false,"error":{"code":"${code}","message":"m-${code}","requestId":"req-${status}"}}`;
const fast = { retryBaseMs: 1, retryMaxMs: 5 };

test('when the service answers the envelope then data is unwrapped with exact decimals and credentials and keys are sent', async () => {
  const s = await serve((_q, res) => json(res, 200, '{"success":true,"data":{"balance":10.123456789012345678,"count":3}}', { 'idempotent-replayed': 'true' }));
  try {
    const t = new Transport({ baseUrl: `${s.baseUrl}/`, apiKey: 'sk_test_x' });
    const r = await t.request<{ balance: string; count: number }>({
      method: 'POST',
      path: '/api/v1/x',
      query: { a: 1, b: undefined, c: true },
      body: { amount: '1.50', name: 'n' },
      idempotencyKey: 'k1',
    });
    assert.deepEqual(r.data, { balance: '10.123456789012345678', count: 3 });
    assert.equal(r.requestId, 'req-h');
    assert.equal(r.replayed, true);
    assert.equal(s.seen[0]!.url, '/api/v1/x?a=1&c=true');
    assert.equal(s.seen[0]!.headers['x-api-key'], 'sk_test_x');
    assert.equal(s.seen[0]!.headers['idempotency-key'], 'k1');
    assert.equal(s.seen[0]!.body, '{"amount":1.50,"name":"n"}');
  } finally {
    await s.close();
  }
});

test('when the service answers an error envelope then the typed error carries code, message, requestId and is not retried', async () => {
  const cases: [number, string, unknown][] = [
    [400, 'validation_failed', TallyValidationError],
    [404, 'not_found', TallyNotFoundError],
    [409, 'conflict', TallyConflictError],
    [402, 'payment_required', TallyPaymentRequiredError],
  ];
  for (const [status, code, cls] of cases) {
    const s = await serve((_q, res) => json(res, status, envelopeError(code, status)));
    try {
      const t = new Transport({ baseUrl: s.baseUrl, ...fast });
      const err = await t.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
      assert.ok(err instanceof (cls as typeof TallyApiError), code);
      assert.ok(err instanceof TallyApiError);
      assert.equal(err.code, code);
      assert.equal(err.message, `m-${code}`);
      assert.equal(err.requestId, `req-${status}`);
      assert.equal(err.status, status);
      assert.equal(s.seen.length, 1, `${status} is not retried`);
    } finally {
      await s.close();
    }
  }
});

test('when a refusal carries a gate then the typed error exposes it (budget_exceeded → TallyGatedError with wait and retryAfterSeconds)', async () => {
  const body =
    '{"success":false,"error":{"code":"budget_exceeded","gate":"budget","action":"wait","url":null,"poll":null,"retry_after":60,"message":"m","detail":"errorId=r","requestId":"r"}}';
  const s = await serve((_q, res) => json(res, 403, body));
  try {
    const err = await new Transport({ baseUrl: s.baseUrl }).request({ method: 'POST', path: '/x', body: {} }).catch((e: unknown) => e);
    assert.ok(err instanceof TallyGatedError);
    assert.deepEqual(err.gate, { gate: 'budget', action: 'wait', url: null, poll: null, retryAfterSeconds: 60 });
    assert.equal(s.seen.length, 1, 'a gate is not retried by the client');
  } finally {
    await s.close();
  }
});

test('when a 402 carries data then checkoutUrl is on the error', async () => {
  const s = await serve((_q, res) => json(res, 402, '{"success":false,"error":{"code":"payment_required","message":"pay","requestId":"r"},"data":{"checkoutUrl":"https://pay"}}'));
  try {
    const err = await new Transport({ baseUrl: s.baseUrl }).request({ method: 'POST', path: '/x', body: {} }).catch((e: unknown) => e);
    assert.ok(err instanceof TallyPaymentRequiredError);
    assert.equal(err.checkoutUrl, 'https://pay');
  } finally {
    await s.close();
  }
});

test('when a GET meets 5xx then it is retried until it succeeds', async () => {
  const s = await serve((_q, res, _b, n) => (n < 3 ? json(res, 503, envelopeError('service_unavailable', 503)) : json(res, 200, '{"success":true,"data":1}')));
  try {
    const r = await new Transport({ baseUrl: s.baseUrl, ...fast }).request<number>({ method: 'GET', path: '/x' });
    assert.equal(r.data, 1);
    assert.equal(r.attempts, 3);
  } finally {
    await s.close();
  }
});

test('when a POST has no idempotency key then a 5xx is not retried; with a key (header or body) it is, with the same key', async () => {
  const s = await serve((_q, res) => json(res, 500, envelopeError('internal_error', 500)));
  try {
    const t = new Transport({ baseUrl: s.baseUrl, maxRetries: 2, ...fast });
    await assert.rejects(t.request({ method: 'POST', path: '/x', body: { a: 1 } }), { code: 'internal_error' });
    assert.equal(s.seen.length, 1);
    await assert.rejects(t.request({ method: 'POST', path: '/x', body: { a: 1 }, idempotencyKey: 'k' }), { code: 'internal_error' });
    assert.equal(s.seen.length, 4);
    assert.deepEqual(s.seen.slice(1).map((r) => r.headers['idempotency-key']), ['k', 'k', 'k']);
    await assert.rejects(t.request({ method: 'POST', path: '/x', body: { eventIdempotencyKey: 'e' } }));
    assert.equal(s.seen.length, 7);
    await assert.rejects(t.request({ method: 'POST', path: '/x', body: { events: [{ eventIdempotencyKey: 'e' }] } }));
    assert.equal(s.seen.length, 10);
    await assert.rejects(t.request({ method: 'GET', path: '/x', retry: false }));
    assert.equal(s.seen.length, 11);
  } finally {
    await s.close();
  }
});

test('when 429 carries Retry-After then the retry waits at least that long', async () => {
  const s = await serve((_q, res, _b, n) => (n === 1 ? json(res, 429, envelopeError('rate_limited', 429), { 'retry-after': '1' }) : json(res, 200, '{"success":true,"data":"ok"}')));
  try {
    const started = Date.now();
    const r = await new Transport({ baseUrl: s.baseUrl, ...fast }).request({ method: 'GET', path: '/x' });
    assert.equal(r.data, 'ok');
    assert.ok(Date.now() - started >= 990, `waited ${Date.now() - started} ms`);
  } finally {
    await s.close();
  }
});

test('when 429 keeps coming then TallyRateLimitedError carries retryAfterMs; a Retry-After past maxRetryAfterMs is not waited for', async () => {
  const s = await serve((_q, res) => json(res, 429, envelopeError('rate_limited', 429), { 'retry-after': '3600' }));
  try {
    const err = await new Transport({ baseUrl: s.baseUrl, ...fast }).request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    assert.ok(err instanceof TallyRateLimitedError);
    assert.equal(err.retryAfterMs, 3_600_000);
    assert.equal(s.seen.length, 1);
  } finally {
    await s.close();
  }
});

test('when Retry-After is an HTTP date then it is read as the time until it', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
  assert.equal(parseRetryAfter('7', now), 7000);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});

test('when an attempt outlasts timeoutMs then TallyTimeoutError, after the retries of a safe call', async () => {
  const s = await serve(() => {
    /* never answers */
  });
  try {
    const t = new Transport({ baseUrl: s.baseUrl, timeoutMs: 250, maxRetries: 1, ...fast });
    const err = await t.request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    assert.ok(err instanceof TallyTimeoutError);
    assert.equal(err.code, 'timeout');
    assert.equal(s.seen.length, 2);
    await assert.rejects(t.request({ method: 'POST', path: '/y', body: {}, timeoutMs: 250 }), TallyTimeoutError);
    assert.equal(s.seen.length, 3);
  } finally {
    await s.close();
  }
});

test('when the connection fails then TallyNetworkError after retries', async () => {
  const s = await serve((req) => req.socket.destroy());
  try {
    const err = await new Transport({ baseUrl: s.baseUrl, maxRetries: 2, ...fast }).request({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    assert.ok(err instanceof TallyNetworkError);
    assert.equal(err.code, 'network_error');
    assert.equal(s.seen.length, 3);
  } finally {
    await s.close();
  }
});

test('when the caller aborts then TallyAbortedError and no retry', async () => {
  const s = await serve(() => {});
  try {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 250);
    const err = await new Transport({ baseUrl: s.baseUrl, ...fast }).request({ method: 'GET', path: '/x', signal: ac.signal }).catch((e: unknown) => e);
    assert.ok(err instanceof TallyAbortedError);
    assert.equal(s.seen.length, 1);
  } finally {
    await s.close();
  }
});

test('when a proxy answers 502 without the envelope then the error is http_502 and retried', async () => {
  const s = await serve((_q, res, _b, n) => {
    if (n === 1) {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    } else json(res, 200, '{"success":true}');
  });
  try {
    const r = await new Transport({ baseUrl: s.baseUrl, ...fast }).request({ method: 'GET', path: '/x' });
    assert.equal(r.data, undefined);
    assert.equal(r.attempts, 2);
  } finally {
    await s.close();
  }
});

test('when an attempt got no answer and the retry finds its key still in progress then it waits and retries; otherwise a 409 is final', async () => {
  const s = await serve((req, res, _b, n) => {
    if (n === 1) return req.socket.destroy();
    if (n === 2) return json(res, 409, envelopeError('idempotency_conflict', 409));
    json(res, 201, '{"success":true,"data":{"id":"r1"}}', { 'idempotent-replayed': 'true' });
  });
  try {
    const t = new Transport({ baseUrl: s.baseUrl, ...fast });
    const r = await t.request<{ id: string }>({ method: 'POST', path: '/x', body: {}, idempotencyKey: 'k' });
    assert.deepEqual([r.data.id, r.attempts, r.replayed], ['r1', 3, true]);
  } finally {
    await s.close();
  }
  const plain = await serve((_q, res) => json(res, 409, envelopeError('idempotency_conflict', 409)));
  try {
    await assert.rejects(new Transport({ baseUrl: plain.baseUrl, ...fast }).request({ method: 'POST', path: '/x', body: {}, idempotencyKey: 'k' }), TallyConflictError);
    assert.equal(plain.seen.length, 1);
  } finally {
    await plain.close();
  }
});
