import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Tally } from '@tally/client';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * `tally.meter` (issue 17 item 5) against a real server: evaluate with a reservation, run the
 * callback, report under the same flow. Weights are the identity (no tariff), so credits = units
 * and every ledger figure is hand-computed.
 */
describe(`client metering loop (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let tally: Tally;

  before(async () => {
    svc = await startTestService();
    const acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    tally = new Tally({ apiKey: acct.apiKey, baseUrl: svc.baseUrl });
  });
  after(() => svc.close());

  const wallet = (credits: number, hardLimit: boolean) => m.wallet(credits, hardLimit, 0);
  type Wallet = Awaited<ReturnType<typeof wallet>>;

  const pool = async (w: Wallet) => {
    const p = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}`));
    return [p.balance, p.totalHeld, p.totalConsumed];
  };
  const ledger = async (w: Wallet) =>
    ((await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))) as any[]).map((t) => [t.transactionType, t.amount, t.heldChange]);
  const eventsOfFlow = async (flowId: string) =>
    svc.ctx.db.selectFrom('usage_events').select(['usage_units', 'event_type']).where('flow_id', '=', flowId).where('event_type', '=', 'CLIENT_TRACKED').execute();

  test('when the call succeeds then the hold is captured at the actual units and the rest released (HOLD, CAPTURE, RELEASE)', async () => {
    const w = await wallet(100, true);
    const result = await tally.meter(w.ref, w.featureKey, { estimate: '20', model: 'gpt-4o' }, async (ctx) => {
      assert.deepEqual([ctx.reservation?.status, ctx.reservation?.amountHeld, ctx.reservation?.flowId], ['HELD', '20', ctx.flowId]);
      // While the call streams, the estimate is held: others see only 80.
      assert.deepEqual(await pool(w), [80, 20, 0]);
      return { units: '12', inputTokens: 7, outputTokens: 5, value: 'the answer' };
    });
    assert.equal(result.allowed, true);
    if (!result.allowed) return;
    assert.ok(result.event.status === 'stored');
    assert.deepEqual([result.units, result.value, result.event.creditsDeducted, result.event.remainingBalance], ['12', 'the answer', '12', '88']);
    const reservation = await m.expectOk(m.client('GET', `/credits/reservations/${result.reservation!.id}`));
    assert.deepEqual([reservation.status, reservation.amountCaptured, reservation.eventId], ['CAPTURED', 12, result.event.eventId]);
    assert.deepEqual(await ledger(w), [['GRANT', 100, 0], ['HOLD', -20, 20], ['CAPTURE', 0, -12], ['RELEASE', 8, -8]]);
    assert.deepEqual(await pool(w), [88, 0, 12]);
    const events = await eventsOfFlow(result.flowId);
    assert.deepEqual(events.map((e) => Number(e.usage_units)), [12]);
    await m.audit();
  });

  test('when the callback returns a plain number of units then that is reported', async () => {
    const w = await wallet(100, false);
    const result = await tally.meter(w.ref, w.featureKey, { estimate: 10 }, async () => 15);
    assert.ok(result.allowed && result.event.status === 'stored');
    assert.equal(result.event.creditsDeducted, '15');
    assert.deepEqual(await ledger(w), [['GRANT', 100, 0], ['HOLD', -10, 10], ['CAPTURE', -5, -10]]);
    await m.audit();
  });

  test('when the callback throws then the hold is released, nothing is charged, and the same error is rethrown', async () => {
    const w = await wallet(100, true);
    const boom = new Error('the stream broke');
    let flowId = '';
    await assert.rejects(
      tally.meter(w.ref, w.featureKey, { estimate: '30' }, async (ctx) => {
        flowId = ctx.flowId;
        assert.deepEqual(await pool(w), [70, 30, 0]);
        throw boom;
      }),
      (err) => err === boom,
    );
    assert.deepEqual(await ledger(w), [['GRANT', 100, 0], ['HOLD', -30, 30], ['RELEASE', 30, -30]]);
    assert.deepEqual(await pool(w), [100, 0, 0]);
    assert.deepEqual(await eventsOfFlow(flowId), []);
    const [reservation] = await svc.ctx.db.selectFrom('credit_reservations').select('status').where('flow_id', '=', flowId).execute();
    assert.equal(reservation?.status, 'RELEASED');
    await m.audit();
  });

  test('when the evaluate denies the call then allowed is false with the reason and the callback never runs', async () => {
    const w = await wallet(10, true);
    let ran = false;
    const result = await tally.meter(w.ref, w.featureKey, { estimate: '11' }, async () => {
      ran = true;
      return 1;
    });
    assert.equal(ran, false);
    assert.equal(result.allowed, false);
    if (result.allowed) return;
    assert.equal(result.reason.code, 'CREDIT_LIMIT_REACHED');
    assert.deepEqual(await ledger(w), [['GRANT', 10, 0]]);
    const held = await svc.ctx.db.selectFrom('credit_reservations').select('id').where('flow_id', '=', result.flowId).execute();
    assert.equal(held.length, 0);

    // A feature the customer's plan does not have: denied the same way.
    const other = await m.feature();
    const notEntitled = await tally.meter(w.ref, other.key, { estimate: 1 }, async () => {
      ran = true;
      return 1;
    });
    assert.equal(ran, false);
    assert.equal(notEntitled.allowed, false);
    await m.audit();
  });
});
