import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Batcher, TallyBufferFullError } from '../src/batcher.js';
import { TallyAuthError } from '../src/errors.js';
import { Transport } from '../src/transport.js';

type Sent = { events: { eventIdempotencyKey: string }[] };

/** A batch route answered by `answer` (per call), through a fake fetch: no server. */
function fakeService(answer: (body: Sent, n: number) => { status: number; body: unknown; headers?: Record<string, string> } | 'drop') {
  const calls: Sent[] = [];
  const fetch = (async (_url: unknown, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Sent;
    calls.push(body);
    const a = answer(body, calls.length);
    if (a === 'drop') throw new TypeError('fetch failed');
    return new Response(JSON.stringify(a.body), { status: a.status, headers: { 'content-type': 'application/json', ...a.headers } });
  }) as typeof globalThis.fetch;
  const transport = new Transport({ baseUrl: 'http://tally.test', apiKey: 'sk_test', fetch, maxRetries: 0, retryBaseMs: 1 });
  return { calls, transport };
}

const stored = (body: Sent) => ({
  status: 200,
  body: { success: true, data: { results: body.events.map((e, index) => ({ index, status: 'stored', eventId: '0193', eventIdempotencyKey: e.eventIdempotencyKey, creditsDeducted: 1.5 })) } },
});
const event = (i: number) => ({ eventName: 'e', featureKey: 'f', customerReferenceId: 'c', eventIdempotencyKey: `k${i}` });

test('when sends fail for a transient reason then the batch is kept and sent again, whole, with the same keys, until it is answered', async () => {
  const { calls, transport } = fakeService((body, n) => (n === 1 ? 'drop' : n === 2 ? { status: 503, body: {} } : n === 3 ? { status: 429, body: {}, headers: { 'retry-after': '0' } } : stored(body)));
  const batcher = new Batcher(transport, { maxEvents: 3, flushIntervalMs: 60_000, retryBaseMs: 1, retryMaxMs: 5 });
  const results = await Promise.all([0, 1, 2].map((i) => batcher.track(event(i))));
  assert.deepEqual(results.map((r) => [r.status, r.eventIdempotencyKey]), [['stored', 'k0'], ['stored', 'k1'], ['stored', 'k2']]);
  assert.equal(calls.length, 4);
  assert.ok(calls.every((c) => c.events.map((e) => e.eventIdempotencyKey).join() === 'k0,k1,k2'));
  // Decimals come back as strings.
  assert.equal((results[0] as { creditsDeducted?: string }).creditsDeducted, '1.5');
  await batcher.close();
});

test('when an event has no key then it gets one when enqueued and keeps it on every send', async () => {
  const { calls, transport } = fakeService((body, n) => (n === 1 ? 'drop' : stored(body)));
  const batcher = new Batcher(transport, { maxEvents: 1, retryBaseMs: 1, retryMaxMs: 2 });
  const { eventIdempotencyKey, result } = await batcher.enqueue({ eventName: 'e', featureKey: 'f', customerReferenceId: 'c' });
  assert.equal((await result).eventIdempotencyKey, eventIdempotencyKey);
  assert.deepEqual(calls.map((c) => c.events[0]!.eventIdempotencyKey), [eventIdempotencyKey, eventIdempotencyKey]);
  await batcher.close();
});

test('when the service refuses a batch without naming an event (401) then every event rejects with the typed error and its index', async () => {
  const { transport } = fakeService(() => ({ status: 401, body: { success: false, error: { code: 'unauthorized', message: 'Invalid API key', requestId: 'r1' } } }));
  const batcher = new Batcher(transport, { maxEvents: 2 });
  const outcomes = await Promise.allSettled([batcher.track(event(0)), batcher.track(event(1))]);
  assert.deepEqual(
    outcomes.map((o) => (o.status === 'rejected' && o.reason instanceof TallyAuthError ? [o.reason.code, o.reason.requestId, (o.reason as unknown as { index: number }).index] : o.status)),
    [['unauthorized', 'r1', 0], ['unauthorized', 'r1', 1]],
  );
  await batcher.close();
});

test("when the buffer is full with 'refuse' then the event rejects at once; the batch is never larger than maxEvents", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const calls: number[] = [];
  const fetch = (async (_url: unknown, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Sent;
    calls.push(body.events.length);
    await gate;
    return new Response(JSON.stringify(stored(body).body), { status: 200 });
  }) as typeof globalThis.fetch;
  const batcher = new Batcher(new Transport({ baseUrl: 'http://tally.test', fetch }), { maxEvents: 2, maxBuffered: 3, whenFull: 'refuse', flushIntervalMs: 60_000 });
  const held = [0, 1, 2].map((i) => batcher.track(event(i)));
  await assert.rejects(batcher.track(event(3)), TallyBufferFullError);
  release();
  await batcher.flush();
  assert.equal((await Promise.all(held)).length, 3);
  assert.deepEqual(calls, [2, 1]);
  await batcher.close();
});

test("when the buffer is full with 'wait' then waiting events get space in arrival order and the buffer never holds more than maxBuffered", async () => {
  const sizes: number[] = [];
  const keys: string[] = [];
  const fetch = (async (_url: unknown, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Sent;
    sizes.push(batcher.size);
    keys.push(...body.events.map((e) => e.eventIdempotencyKey));
    await new Promise((r) => setTimeout(r, 5));
    return new Response(JSON.stringify(stored(body).body), { status: 200 });
  }) as typeof globalThis.fetch;
  // Read by the fetch above only once requests flow, after this line.
  const batcher = new Batcher(new Transport({ baseUrl: 'http://tally.test', fetch }), { maxEvents: 2, maxBuffered: 3, whenFull: 'wait', flushIntervalMs: 1 });
  const results = await Promise.all(Array.from({ length: 9 }, (_, i) => batcher.track(event(i))));
  assert.deepEqual(results.map((r) => r.eventIdempotencyKey), Array.from({ length: 9 }, (_, i) => `k${i}`));
  assert.deepEqual(keys, Array.from({ length: 9 }, (_, i) => `k${i}`));
  assert.ok(sizes.every((n) => n <= 3), `buffer sizes seen: ${sizes.join()}`);
  await batcher.close();
});
