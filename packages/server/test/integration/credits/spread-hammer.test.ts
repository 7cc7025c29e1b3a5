import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

const CUSTOMERS = 10;
const EVENTS_EACH = 30;
const BALANCE = 20; // covers 10 of each customer's 30 two-credit events

type Wallet = Awaited<ReturnType<ReturnType<typeof monetization>['wallet']>>;

/** A service with `count` customers, each on a hard-limit pool of `balance` credits, for the enclosing describe block. */
function hardLimitWallets(count: number, balance: number) {
  let service: TestService;
  let factory: ReturnType<typeof monetization>;
  const wallets: Wallet[] = [];
  before(async () => {
    service = await startTestService();
    factory = monetization(service, await createTestAccount(service));
    for (let i = 0; i < count; i++) wallets.push(await factory.wallet(balance, true));
  });
  after(() => service.close());
  return { svc: () => service, m: () => factory, wallets };
}

/**
 * A node groups an account's concurrent credit-backed events into shared transactions whatever
 * their customer (hot-queue.ts, ADR 0028): events of different customers, plans and pools decided
 * together must each end exactly as if sent alone.
 */
describe(`spread hammer: ${CUSTOMERS} customers racing on their own hard-limit pools (${backend})`, () => {
  const fixture = hardLimitWallets(CUSTOMERS, BALANCE);
  const { wallets } = fixture;

  test('when their events arrive interleaved then each pool stores exactly what it covers, refuses the rest, and the audit is clean', async () => {
    const m = fixture.m();
    const sent = Array.from({ length: EVENTS_EACH }, (_, i) => wallets.map((w, c) => ({ w, key: `s-${c}-${i}` }))).flat();
    const results = await Promise.all(sent.map(({ w, key }) => m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 2, eventIdempotencyKey: key })));
    const unexpected = results.filter((r) => r.status !== 201 && !(r.status === 409 && r.body.error.code === 'insufficient_credits'));
    assert.deepEqual(unexpected.map((r) => r.text), [], 'every event is stored or refused');

    for (const [c, w] of wallets.entries()) {
      const own = results.filter((_, i) => sent[i]!.w === w);
      const created = own.filter((r) => r.status === 201);
      assert.equal(created.length, BALANCE / 2, `customer ${c}: stored exactly what its pool covers`);
      assert.deepEqual(created.map((r) => r.body.data.creditsDeducted), Array(BALANCE / 2).fill(2));
      const pool = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}`));
      assert.equal(pool.balance, 0, `customer ${c}: its pool is drawn to zero and no further`);
      const ledger = (await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))) as { transactionType: string }[];
      const deductions = ledger.filter((t: { transactionType: string }) => t.transactionType === 'DEDUCTION');
      assert.equal(deductions.length, BALANCE / 2, `customer ${c}: one ledger entry per stored event`);
      const events = await m.expectOk(m.api('GET', `/api/v1/tanso/events?customerReferenceId=${w.ref}&eventType=CLIENT_TRACKED&limit=200`));
      assert.equal(events.items.length, BALANCE / 2, `customer ${c}: stored events equal acknowledged ones`);
    }
    await m.audit();
  });
});

/**
 * Concurrent batches of one account (a collector sending every customer's events) go through the
 * account's lane too (lane.ts, issue 31 item 3): several batches share a transaction, each batch
 * whole, and every event still ends exactly as if sent alone.
 */
describe(`concurrent mixed batches of one account share transactions (${backend})`, () => {
  const BATCHES = 12;
  const MIXED_BALANCE = 60; // 30 of each customer's 36 two-credit events
  const fixture = hardLimitWallets(6, MIXED_BALANCE);
  const { wallets } = fixture;

  test('when they arrive together then fewer transactions than batches store them, each pool stores exactly what it covers, and the audit is clean', async () => {
    const [m, svc] = [fixture.m(), fixture.svc()];
    // Each batch: 3 two-credit events for each of the 6 customers; 12 batches = 36 events a pool of 60 credits (30 events).
    const body = (b: number) => ({
      events: wallets.flatMap((w, c) => [0, 1, 2].map((i) => ({ eventName: 'chat', customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 2, eventIdempotencyKey: `mb-${b}-${c}-${i}` }))),
    });
    const answers = await Promise.all(Array.from({ length: BATCHES }, (_, b) => m.client('POST', '/events/batch', body(b))));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    const results = answers.flatMap((a) => a.body.data.results as { status: string; eventIdempotencyKey: string }[]);
    for (const [c, w] of wallets.entries()) {
      const own = results.filter((r) => r.eventIdempotencyKey.split('-')[2] === String(c));
      assert.equal(own.filter((r) => r.status === 'stored').length, MIXED_BALANCE / 2, `customer ${c}: stored exactly what its pool covers`);
      assert.equal(own.filter((r) => r.status === 'refused').length, BATCHES * 3 - MIXED_BALANCE / 2);
      const pool = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}`));
      assert.equal(pool.balance, 0);
    }
    // Rows a transaction writes carry its id (xmin): the batches that stored events were stored by
    // fewer transactions than there are such batches (apart, each would be a transaction of its own).
    // On PGlite a request runs to its answer before the next is read (one connection), so each batch
    // has the lane to itself; there only the exactness above is asked.
    const storing = answers.filter((a) => (a.body.data.results as { status: string }[]).some((r) => r.status === 'stored')).length;
    assert.ok(storing >= 10, `${storing} batches stored events`);
    const { rows } = await sql<{ n: number }>`select count(distinct xmin::text)::int as n from usage_events where event_idempotency_key like 'mb-%'`.execute(svc.ctx.db);
    if (backend === 'postgres') assert.ok(rows[0]!.n < storing, `${rows[0]!.n} transactions for ${storing} batches`);
    await m.audit();
  });
});
