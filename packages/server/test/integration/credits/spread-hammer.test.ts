import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

const CUSTOMERS = 10;
const EVENTS_EACH = 30;
const BALANCE = 20; // covers 10 of each customer's 30 two-credit events

/**
 * A node groups an account's concurrent credit-backed events into shared transactions whatever
 * their customer (hot-queue.ts, ADR 0028): events of different customers, plans and pools decided
 * together must each end exactly as if sent alone.
 */
describe(`spread hammer: ${CUSTOMERS} customers racing on their own hard-limit pools (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let wallets: Awaited<ReturnType<ReturnType<typeof monetization>['wallet']>>[];

  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
    wallets = [];
    for (let i = 0; i < CUSTOMERS; i++) wallets.push(await m.wallet(BALANCE, true));
  });
  after(() => svc.close());

  test('when their events arrive interleaved then each pool stores exactly what it covers, refuses the rest, and the audit is clean', async () => {
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
