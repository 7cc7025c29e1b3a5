import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Tally } from '../src/tally.js';

type Seen = { method: string; url: string; key?: string; body: string };

/** A local stand-in for the service: `answer` decides each reply; every request is recorded. */
async function stub(answer: (req: IncomingMessage, res: ServerResponse, n: number) => void) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, key: req.headers['idempotency-key'] as string | undefined, body });
      answer(req, res, seen.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const tally = new Tally({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'sk_test_x', retryBaseMs: 1, retryMaxMs: 2 });
  return { tally, seen, close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}
const reply = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
};

test('when a mutating helper meets a 5xx then it retries with the same Idempotency-Key; reads carry none', async () => {
  const s = await stub((req, res, n) => (n === 1 ? reply(res, 503, '{"success":false,"error":{"code":"service_unavailable","message":"x","requestId":"r"}}') : reply(res, 200, '{"success":true,"data":{"status":"CAPTURED","amountCaptured":12.500000}}')));
  try {
    const captured = await s.tally.credits.reservations.capture('r/1', '12.500000');
    assert.equal(captured.amountCaptured, '12.500000');
    assert.equal(s.seen.length, 2);
    assert.equal(s.seen[0]!.url, '/api/v1/client/credits/reservations/r%2F1/capture', 'path parameters are encoded');
    assert.equal(s.seen[0]!.body, '{"amount":12.500000}', 'the decimal string goes out as a JSON number, digit for digit');
    assert.match(s.seen[0]!.key ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(s.seen[1]!.key, s.seen[0]!.key);
    await s.tally.customers.get('c1');
    assert.equal(s.seen[2]!.key, undefined);
    await s.tally.customers.update('c1', { firstName: 'A' }, { idempotencyKey: 'mine' });
    assert.equal(s.seen[3]!.key, 'mine');
  } finally {
    await s.close();
  }
});

test('when check is sent then it evaluates the units under a flowId made once, and is retried', async () => {
  const s = await stub((req, res, n) => (n === 1 ? req.socket.destroy() : reply(res, 200, '{"success":true,"data":{"allowed":true,"flowId":"f","featureKey":"k","referenceCustomerId":"c","meta":null,"creditQuote":{"estimatedCredits":10.25}}}')));
  try {
    const r = await s.tally.check('c1', 'ai.chat', { units: '4000', model: 'gpt-4o' });
    assert.equal(r.creditQuote?.estimatedCredits, '10.25');
    const [first, second] = s.seen.map((x) => JSON.parse(x.body));
    assert.deepEqual(first, second, 'the retry sends the same body, flowId included');
    assert.deepEqual(first.usage, { usageUnits: 4000, model: 'gpt-4o' });
    assert.equal(first.customerReferenceId, 'c1');
    assert.match(first.context.flowId, /^[0-9a-f-]{36}$/);
  } finally {
    await s.close();
  }
});

test('when track is sent then the event key is made once and is also the Idempotency-Key; a replay is a duplicate, a depleted pool a refusal', async () => {
  const s = await stub((req, res, n) => {
    if (n === 1) return req.socket.destroy();
    if (n === 2) return reply(res, 201, '{"success":true,"data":{"eventId":"e1","eventIdempotencyKey":"k","creditsDeducted":2.5}}', { 'idempotent-replayed': 'true' });
    reply(res, 409, '{"success":false,"error":{"code":"insufficient_credits","message":"Credit pool depleted","requestId":"r"}}');
  });
  try {
    const r = await s.tally.track({ eventName: 'chat', featureKey: 'ai.chat', customerReferenceId: 'c1', usageUnits: '2.5' });
    assert.ok(r.status === 'duplicate');
    assert.equal(r.creditsDeducted, '2.5');
    const sent = JSON.parse(s.seen[0]!.body);
    assert.equal(s.seen[0]!.key, sent.eventIdempotencyKey);
    assert.equal(s.seen[1]!.body, s.seen[0]!.body);
    const refused = await s.tally.track({ eventName: 'chat', featureKey: 'ai.chat', customerReferenceId: 'c1', usageUnits: 1, eventIdempotencyKey: 'mine' });
    assert.deepEqual(refused, { status: 'refused', eventIdempotencyKey: 'mine', error: { code: 'insufficient_credits', message: 'Credit pool depleted' } });
  } finally {
    await s.close();
  }
});

test('when an amount is a non-integer JS number then the call is refused before anything is sent', async () => {
  const s = await stub((_q, res) => reply(res, 200, '{"success":true}'));
  try {
    await assert.rejects(s.tally.credits.reservations.capture('r1', 0.1), TypeError);
    await assert.rejects(s.tally.check('c1', 'f', { units: 1.5 }), TypeError);
    assert.equal(s.seen.length, 0);
  } finally {
    await s.close();
  }
});
