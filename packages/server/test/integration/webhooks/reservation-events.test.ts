import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * `reservation.expired` (api-contract-events.md §E5.7): recorded in the transaction that expires a
 * HELD reservation (the expiry job, or a late capture/release that finds it past its expiry), once
 * per reservation; capture and release record nothing.
 */
describe(`reservation events (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  const unique = () => randomBytes(4).toString('hex');

  before(async () => {
    svc = await startTestService({ env: { APP_CREDIT_RESERVATION_MAX_HOLD_SECONDS: '600' } });
    m = monetization(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  const events = async () =>
    ((await m.expectOk(m.api('GET', '/api/v1/webhooks/events?type=reservation.expired&limit=100'))).items as { id: string; data: { object: any } }[]).map((e) => e.data.object);
  const hold = (w: { ref: string; denomination: string }, amount: number, holdSeconds?: number) =>
    m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount, idempotencyKey: `k-${unique()}`, ...(holdSeconds ? { holdSeconds } : {}) }), 201);

  test('when the expiry job expires a hold then one reservation.expired carries the EXPIRED reservation; capture and release record nothing; a second run records nothing', async () => {
    const w = await m.wallet(100, true);
    const before = (await events()).length;
    const expiring = await hold(w, 30, 60);
    const captured = await hold(w, 10, 60);
    const released = await hold(w, 10, 60);
    await m.expectOk(m.client('POST', `/credits/reservations/${captured.id}/capture`, { amount: 5 }));
    await m.expectOk(m.client('POST', `/credits/reservations/${released.id}/release`));
    svc.clock.advanceMs(61_000);
    assert.equal((await svc.scheduler.run('credit-reservation-expiry')).status, 'ran');
    svc.clock.advanceMs(61_000);
    assert.equal((await svc.scheduler.run('credit-reservation-expiry')).status, 'ran');
    const got = (await events()).slice(0, (await events()).length - before);
    assert.equal(got.length, 1);
    const read = await m.expectOk(m.client('GET', `/credits/reservations/${expiring.id}`));
    assert.deepEqual(got[0], read);
    assert.equal(got[0].status, 'EXPIRED');
    assert.equal(got[0].amountHeld, 30);
    const late = await m.client('POST', `/credits/reservations/${expiring.id}/release`);
    assert.equal(late.status, 200, late.text);
    assert.equal((await events()).length, before + 1, 'releasing an expired reservation records nothing more');
  });

  test('when 25 concurrent releases find one hold past its expiry then exactly one reservation.expired is recorded', async () => {
    const w = await m.wallet(100, true);
    const r = await hold(w, 40, 60);
    svc.clock.advanceMs(61_000);
    const before = (await events()).filter((o) => o.id === r.id).length;
    assert.equal(before, 0);
    const answers = await Promise.all([
      svc.scheduler.run('credit-reservation-expiry'),
      ...Array.from({ length: 25 }, (_, i) => m.client('POST', `/credits/reservations/${r.id}/${i % 2 ? 'release' : 'capture'}`, i % 2 ? undefined : { amount: 1 })),
    ]);
    for (const a of answers.slice(1) as { status: number; text: string }[]) assert.ok([200, 409].includes(a.status), a.text);
    const mine = (await events()).filter((o) => o.id === r.id);
    assert.equal(mine.length, 1);
    assert.equal(mine[0].status, 'EXPIRED');
  });

  test('when a refused event of a flow finds its hold expired then the event matches the committed state: one reservation.expired in all, with the job after it', async () => {
    const w = await m.wallet(100, true);
    const e = await m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: w.ref, featureKey: w.featureKey, usage: { usageUnits: 40 }, reserve: true }));
    svc.clock.advanceMs(301_000);
    const refused = await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 500, flowId: e.flowId });
    assert.equal(refused.status, 409, refused.text);
    const status = (await m.expectOk(m.client('GET', `/credits/reservations/${e.reservation.id}`))).status;
    assert.equal((await events()).filter((o) => o.id === e.reservation.id).length, status === 'EXPIRED' ? 1 : 0);
    assert.equal((await svc.scheduler.run('credit-reservation-expiry')).status, 'ran');
    assert.equal((await events()).filter((o) => o.id === e.reservation.id).length, 1);
  });
});
