import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Tally, TallyConflictError, TallyNetworkError, TallyNotFoundError, TallyValidationError, Transport } from '@tally/client';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * `@tally/client` retries (issue 17 item 3) against a real server behind a proxy on 127.0.0.1 that
 * forwards a request, lets the service answer (and commit), then breaks the connection instead of
 * relaying the answer — or relays it too late. The client's retry carries the same key, the service
 * answers it as a duplicate, and the events list, the ledger and the audit show everything once.
 * Refusals (400, 404, 409) reach the service exactly once.
 */

type Fault = 'drop' | { delayMs: number };

/** Forwards everything to `target`; `faults` (by "METHOD path") spoil the answer of the next such request(s). */
async function faultyProxy(target: string) {
  const faults = new Map<string, Fault[]>();
  const hits = new Map<string, number>();
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const route = `${req.method} ${req.url!.split('?', 1)[0]}`;
    hits.set(route, (hits.get(route) ?? 0) + 1);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const answer = await fetch(target + req.url, { method: req.method, headers, ...(body ? { body } : {}) });
    const text = await answer.text();
    const fault = faults.get(route)?.shift();
    if (fault === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (res.destroyed) return;
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) out[k] = v;
    });
    res.writeHead(answer.status, out).end(text);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fail: (route: string, ...next: Fault[]) => faults.set(route, next),
    hits: (route: string) => hits.get(route) ?? 0,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe(`@tally/client retries (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let proxy: Awaited<ReturnType<typeof faultyProxy>>;
  let tally: Tally;
  let apiKey: string;
  const unique = () => randomBytes(4).toString('hex');

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    apiKey = account.apiKey;
    m = monetization(svc, account);
    proxy = await faultyProxy(svc.baseUrl);
    tally = new Tally({ baseUrl: proxy.baseUrl, apiKey, retryBaseMs: 5, retryMaxMs: 20 });
  });
  after(async () => {
    await proxy.close();
    await svc.close();
  });

  /** A subscribed customer whose feature draws on a hard-limit pool of `credits` (credits = units). */
  async function wallet(credits: number) {
    const model = await m.creditModel({ hardLimit: true });
    const feature = await m.feature();
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: `p-${unique()}`, name: `p-${unique()}`, description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0.5 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=${credits}`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    const ref = `c-${unique()}`;
    await m.customer(ref);
    await m.subscribe(ref, plan.id);
    const poolId = (await m.expectOk(m.client('GET', `/credits/${ref}/pools`))).items[0].id as string;
    return { ref, poolId, denomination: model.denomination as string, featureKey: feature.key as string };
  }
  type Wallet = Awaited<ReturnType<typeof wallet>>;

  const ledger = async (w: Wallet) => ((await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))) as any[]).map((t) => [t.transactionType, t.amount]);
  const events = async (w: Wallet) => (await m.expectOk(m.api('GET', `/api/v1/tanso/events?customerReferenceId=${w.ref}&eventType=CLIENT_TRACKED&limit=100`))).items as any[];

  test('when the connection drops after the event committed then the retry answers as a duplicate and the event and its draw are stored once', async () => {
    const w = await wallet(100);
    proxy.fail('POST /api/v1/client/events', 'drop');
    const result = await tally.track({ eventName: 'chat.completion', customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: '7.25' });
    assert.equal(proxy.hits('POST /api/v1/client/events'), 2, 'the first attempt reached the service, its answer was lost, the retry followed');
    assert.ok(result.status === 'duplicate', `a retry of a committed event answers as a duplicate (${result.status})`);
    assert.equal(result.creditsDeducted, '7.25');
    const stored = await events(w);
    assert.equal(stored.length, 1);
    assert.equal(stored[0].id ?? stored[0].eventId, result.eventId);
    assert.deepEqual(await ledger(w), [['GRANT', 100], ['DEDUCTION', -7.25]]);
    await m.audit();
  });

  test('when an answer comes later than the attempt timeout then the retry is answered from the first attempt and nothing is stored twice', async () => {
    const w = await wallet(100);
    proxy.fail('POST /api/v1/client/events', { delayMs: 600 });
    const slow = new Tally({ baseUrl: proxy.baseUrl, apiKey, timeoutMs: 300, maxRetries: 6, retryBaseMs: 100, retryMaxMs: 1000 });
    const result = await slow.track({ eventName: 'chat.completion', customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 3 });
    assert.ok(result.status === 'duplicate');
    assert.equal((await events(w)).length, 1);
    assert.equal((await ledger(w)).length, 2);
    await m.audit();
  });

  test('when a batch answer is lost then the retried batch answers every event duplicate and stores nothing twice', async () => {
    const w = await wallet(100);
    const transport = new Transport({ baseUrl: proxy.baseUrl, apiKey, retryBaseMs: 5, retryMaxMs: 20 });
    const batch = ['1', '2.5', '3'].map((units, i) => ({ eventName: 'chat.completion', customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: units, eventIdempotencyKey: `b-${w.ref}-${i}` }));
    proxy.fail('POST /api/v1/client/events/batch', 'drop');
    const r = await transport.request<{ results: { status: string }[] }>({ method: 'POST', path: '/api/v1/client/events/batch', body: { events: batch } });
    assert.equal(r.attempts, 2);
    assert.deepEqual(r.data.results.map((x) => x.status), ['duplicate', 'duplicate', 'duplicate']);
    assert.equal((await events(w)).length, 3);
    assert.deepEqual((await ledger(w)).map(([, a]) => a), [100, -1, -2.5, -3]);
    await m.audit();
  });

  test('when reservation, capture and customer calls lose their answers then each retry replays the first answer', async () => {
    const w = await wallet(50);
    proxy.fail('POST /api/v1/client/credits/reservations', 'drop');
    const hold = await tally.credits.reservations.hold({ customerReferenceId: w.ref, denomination: w.denomination, amount: '20' });
    assert.equal(proxy.hits('POST /api/v1/client/credits/reservations'), 2);
    assert.deepEqual([hold.status, hold.amountHeld], ['HELD', '20']);
    const capturePath = `POST /api/v1/client/credits/reservations/${hold.id}/capture`;
    proxy.fail(capturePath, 'drop', 'drop');
    const captured = await tally.credits.reservations.capture(hold.id, '12.5');
    assert.equal(proxy.hits(capturePath), 3);
    assert.deepEqual([captured.status, captured.amountCaptured], ['CAPTURED', '12.5']);
    const p = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}`));
    assert.deepEqual([p.balance, p.totalHeld, p.totalConsumed], [37.5, 0, 12.5]);
    await m.audit();

    const ref = `c-${unique()}`;
    proxy.fail('POST /api/v1/client/customers', 'drop');
    const created = await tally.customers.create({ customerReferenceId: ref, email: `${ref}@example.com` });
    assert.equal(created.customerReferenceId, ref);
    assert.equal((await tally.customers.list({ customerReferenceId: ref })).items.length, 1);
  });

  test('when the service refuses a call (400, 404, 409) then the client does not retry it', async () => {
    const ref = `c-${unique()}`;
    const missing = await tally.customers.get(ref).catch((e: unknown) => e);
    assert.ok(missing instanceof TallyNotFoundError);
    assert.equal(proxy.hits(`GET /api/v1/client/customers/${ref}`), 1);
    const before400 = proxy.hits('POST /api/v1/client/customers');
    await assert.rejects(tally.customers.create({ customerReferenceId: ref, email: 'nope' }), TallyValidationError);
    assert.equal(proxy.hits('POST /api/v1/client/customers'), before400 + 1);
    await tally.customers.create({ customerReferenceId: ref, email: `${ref}@example.com` });
    const duplicate = await tally.customers.create({ customerReferenceId: ref, email: `${ref}@example.com` }).catch((e: unknown) => e);
    assert.ok(duplicate instanceof TallyConflictError);
    assert.equal(duplicate.code, 'conflict');
    assert.equal(proxy.hits('POST /api/v1/client/customers'), before400 + 3);
  });

  test('when a call without an idempotency key loses its answer then it is not retried', async () => {
    const transport = new Transport({ baseUrl: proxy.baseUrl, apiKey, retryBaseMs: 5 });
    const ref = `c-${unique()}`;
    proxy.fail('POST /api/v1/client/customers', 'drop');
    const before = proxy.hits('POST /api/v1/client/customers');
    const err = await transport.request({ method: 'POST', path: '/api/v1/client/customers', body: { customerReferenceId: ref, email: `${ref}@example.com` } }).catch((e: unknown) => e);
    assert.ok(err instanceof TallyNetworkError);
    assert.equal(proxy.hits('POST /api/v1/client/customers'), before + 1);
  });
});
