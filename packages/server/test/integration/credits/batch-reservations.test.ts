import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * Batch events that carry a reserved flow's id (ADR 0012, 0018): each captures its flow's hold in
 * its turn exactly as a lone POST /events would, the events before and after it drawing from what
 * the capture left. Weights are the identity, so credits = units and every figure is hand-computed.
 */
describe(`batch events capturing credit reservations (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  const unique = () => randomBytes(4).toString('hex');

  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  const wallet = (credits: number, hardLimit: boolean) => m.wallet(credits, hardLimit);

  test('when a batch carries the events of two reserved flows then each captures its hold in order and the hard limit refuses exactly what no longer fits', async () => {
    const w = await wallet(100, true);
    const reserve = (units: number) => m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: w.ref, featureKey: w.featureKey, usage: { usageUnits: units }, reserve: true, context: { flowId: `flow-${unique()}` } }));
    const a = await reserve(20);
    const b = await reserve(10);
    assert.deepEqual([a.reservation.status, b.reservation.status], ['HELD', 'HELD']);
    const p = `bf-${unique()}-`;
    const events = [
      { usageUnits: 5 },
      { usageUnits: 12, flowId: a.flowId },
      { usageUnits: 3, flowId: a.flowId },
      { usageUnits: 15, context: { flowId: b.flowId } },
      { usageUnits: 66 },
      { usageUnits: 65 },
    ].map((e, i) => ({ eventName: 'chat.message', customerReferenceId: w.ref, featureKey: w.featureKey, eventIdempotencyKey: `${p}${i}`, ...e }));
    const first = await m.expectOk(m.client('POST', '/events/batch', { events }));
    assert.deepEqual(first.results.map((r: any) => r.status), ['stored', 'stored', 'stored', 'stored', 'refused', 'stored']);
    assert.deepEqual(first.results.map((r: any) => r.creditsDeducted ?? null), [5, 12, 3, 15, null, 65]);
    // 100 − 30 held; −5; capture 12 of A's 20 and release 8; −3 drawn as usual (A is settled); B's 10 plus 5 fresh; 66 > 65 refused; −65.
    const ledger = ((await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))) as any[]).map((t) => [t.transactionType, t.amount, t.heldChange]);
    assert.deepEqual(ledger, [
      ['GRANT', 100, 0], ['HOLD', -20, 20], ['HOLD', -10, 10], ['DEDUCTION', -5, 0], ['CAPTURE', 0, -12], ['RELEASE', 8, -8],
      ['DEDUCTION', -3, 0], ['CAPTURE', -5, -10], ['DEDUCTION', -65, 0],
    ]);
    const ra = await m.expectOk(m.client('GET', `/credits/reservations/${a.reservation.id}`));
    const rb = await m.expectOk(m.client('GET', `/credits/reservations/${b.reservation.id}`));
    assert.deepEqual([ra.status, ra.amountCaptured, ra.eventId], ['CAPTURED', 12, first.results[1].eventId]);
    assert.deepEqual([rb.status, rb.amountCaptured, rb.eventId], ['CAPTURED', 15, first.results[3].eventId]);
    const pool = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}`));
    assert.deepEqual([pool.balance, pool.totalHeld, pool.totalConsumed], [0, 0, 100]);

    // The whole batch again: nothing is stored, captured or drawn twice.
    const retry = await m.expectOk(m.client('POST', '/events/batch', { events }));
    assert.deepEqual(retry.results.map((r: any) => r.status), ['duplicate', 'duplicate', 'duplicate', 'duplicate', 'refused', 'duplicate']);
    assert.equal(((await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))) as any[]).length, ledger.length);
    await m.audit();
  });

  test('when a batch event arrives after its flow\'s hold expired then the hold is released and the event draws as usual', async () => {
    const w = await wallet(100, false);
    const flowId = `flow-${unique()}`;
    const e = await m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: w.ref, featureKey: w.featureKey, usage: { usageUnits: 40 }, reserve: true, context: { flowId } }));
    assert.equal(e.reservation.status, 'HELD');
    svc.clock.set(new Date(svc.clock.now().getTime() + 3600_000));
    const res = await m.expectOk(m.client('POST', '/events/batch', { events: [{ eventName: 'chat.message', customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 7, flowId }] }));
    assert.deepEqual([res.results[0].status, res.results[0].creditsDeducted], ['stored', 7]);
    const ledger = ((await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))) as any[]).map((t) => [t.transactionType, t.amount, t.heldChange]);
    assert.deepEqual(ledger, [['GRANT', 100, 0], ['HOLD', -40, 40], ['RELEASE', 40, -40], ['DEDUCTION', -7, 0]]);
    assert.equal((await m.expectOk(m.client('GET', `/credits/reservations/${e.reservation.id}`))).status, 'EXPIRED');
    await m.audit();
  });
});
