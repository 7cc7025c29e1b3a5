import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * Credit reservations (issue 16 item 4, ADR 0012): hold → capture or release → expiry, the held
 * credits counting against every other draw and check, and the audit clean after each step.
 * Weights are the identity (no tariff), so credits = units and every figure is hand-computed.
 */
describe(`credit reservations (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  const unique = () => randomBytes(4).toString('hex');

  before(async () => {
    svc = await startTestService({ env: { APP_CREDIT_RESERVATION_MAX_HOLD_SECONDS: '600' } });
    m = monetization(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  const wallet = (credits: number, hardLimit: boolean) => m.wallet(credits, hardLimit);
  type Wallet = Awaited<ReturnType<typeof wallet>>;

  const pool = (w: Wallet) => m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}`));
  const ledger = async (w: Wallet) =>
    ((await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))) as any[]).map((t) => [t.transactionType, t.amount, t.heldChange]);

  test('when credits are held then the pool balance drops, checks and hard-limit draws see only the rest', async () => {
    const w = await wallet(100, true);
    const r = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 70, idempotencyKey: `k-${unique()}` }), 201);
    assert.equal(r.status, 'HELD');
    assert.equal(r.amountHeld, 70);
    const p = await pool(w);
    assert.deepEqual([p.balance, p.totalHeld, p.totalConsumed], [30, 70, 0]);

    const evalDenied = await m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: w.ref, featureKey: w.featureKey, usage: { usageUnits: 31 } }));
    assert.equal(evalDenied.allowed, false);
    assert.equal(evalDenied.meta.reason.code, 'CREDIT_LIMIT_REACHED');
    const evalAllowed = await m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: w.ref, featureKey: w.featureKey, usage: { usageUnits: 30 } }));
    assert.equal(evalAllowed.allowed, true);

    const refused = await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 31 });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, 'insufficient_credits');
    const fits = await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 30 });
    assert.equal(fits.status, 201, fits.text);
    assert.equal(fits.body.data.remainingBalance, 0);

    const second = await m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 1, idempotencyKey: `k-${unique()}` });
    assert.equal(second.status, 409);
    assert.equal(second.body.error.code, 'insufficient_credits');
    const check = await m.check(w.ref, w.featureKey);
    assert.equal(check.allowed, false);
    assert.equal(check.meta.reason.code, 'CREDIT_LIMIT_REACHED');
    await m.audit();
  });

  test('when a capture is lower than the hold then it consumes that much and releases the rest to the grant', async () => {
    const w = await wallet(100, true);
    const r = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 50, idempotencyKey: `k-${unique()}` }), 201);
    const c = await m.expectOk(m.client('POST', `/credits/reservations/${r.id}/capture`, { amount: '20.125' }));
    assert.deepEqual([c.status, c.captureRequested, c.amountCaptured, c.uncoveredCredits], ['CAPTURED', 20.125, 20.125, 0]);
    const p = await pool(w);
    assert.deepEqual([p.balance, p.totalHeld, p.totalConsumed], [79.875, 0, 20.125]);
    assert.deepEqual(await ledger(w), [
      ['GRANT', 100, 0],
      ['HOLD', -50, 50],
      ['CAPTURE', 0, -20.125],
      ['RELEASE', 29.875, -29.875],
    ]);
    const grants = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/grants`));
    assert.equal(grants[0].remaining, 79.875);
    // Idempotent: the same amount again answers the same capture; another amount is refused.
    assert.deepEqual(await m.expectOk(m.client('POST', `/credits/reservations/${r.id}/capture`, { amount: 20.125 })), c);
    const other = await m.client('POST', `/credits/reservations/${r.id}/capture`, { amount: 21 });
    assert.equal(other.status, 409);
    assert.equal(other.body.error.code, 'reservation_closed');
    const release = await m.client('POST', `/credits/reservations/${r.id}/release`);
    assert.equal(release.status, 409);
    assert.equal(release.body.error.code, 'reservation_closed');
    assert.equal((await pool(w)).balance, 79.875);
    await m.audit();
  });

  test('when a capture is higher than the hold on a soft pool then the excess is drawn from the balance', async () => {
    const w = await wallet(100, false);
    const r = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 30, idempotencyKey: `k-${unique()}` }), 201);
    const c = await m.expectOk(m.client('POST', `/credits/reservations/${r.id}/capture`, { amount: 45 }));
    assert.deepEqual([c.amountCaptured, c.uncoveredCredits], [45, 0]);
    assert.deepEqual(await ledger(w), [['GRANT', 100, 0], ['HOLD', -30, 30], ['CAPTURE', -15, -30]]);
    const p = await pool(w);
    assert.deepEqual([p.balance, p.totalHeld, p.totalConsumed], [55, 0, 45]);
    await m.audit();
  });

  test('when a capture is higher than the hold and the pools run dry then it takes what is there, never below zero, and reports the shortfall', async () => {
    for (const hard of [false, true]) {
      const w = await wallet(100, hard);
      const r = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 60, idempotencyKey: `k-${unique()}` }), 201);
      assert.equal((await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 35 })).status, 201);
      const c = await m.expectOk(m.client('POST', `/credits/reservations/${r.id}/capture`, { amount: 80 }));
      // 60 held + the 5 left after the event; 15 could not be covered.
      assert.deepEqual([c.captureRequested, c.amountCaptured, c.uncoveredCredits], [80, 65, 15], `hard=${hard}`);
      const p = await pool(w);
      assert.deepEqual([p.balance, p.totalHeld, p.totalConsumed], [0, 0, 100]);
      await m.audit();
    }
  });

  test('when a hold on a soft pool exceeds the balance then it holds what there is', async () => {
    const w = await wallet(10, false);
    const r = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 25, idempotencyKey: `k-${unique()}` }), 201);
    assert.deepEqual([r.amountRequested, r.amountHeld], [25, 10]);
    assert.equal((await pool(w)).balance, 0);
    await m.audit();
  });

  test('when a reservation is released then every held credit returns; release is idempotent and capture after it is 409', async () => {
    const w = await wallet(100, true);
    const r = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 40, idempotencyKey: `k-${unique()}` }), 201);
    const released = await m.expectOk(m.client('POST', `/credits/reservations/${r.id}/release`));
    assert.equal(released.status, 'RELEASED');
    assert.deepEqual(await m.expectOk(m.client('POST', `/credits/reservations/${r.id}/release`)), released);
    const capture = await m.client('POST', `/credits/reservations/${r.id}/capture`, { amount: 1 });
    assert.equal(capture.status, 409);
    assert.equal(capture.body.error.code, 'reservation_closed');
    const p = await pool(w);
    assert.deepEqual([p.balance, p.totalHeld, p.totalConsumed, p.status], [100, 0, 0, 'ACTIVE']);
    assert.deepEqual(await ledger(w), [['GRANT', 100, 0], ['HOLD', -40, 40], ['RELEASE', 40, -40]]);
    await m.audit();
  });

  test('when a hold outlives holdSeconds then the expiry job releases it and a late capture is 409', async () => {
    const w = await wallet(100, true);
    const a = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 30, idempotencyKey: `k-${unique()}`, holdSeconds: 60 }), 201);
    const b = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 20, idempotencyKey: `k-${unique()}` }), 201);
    assert.equal(new Date(a.expiresAt).getTime() - new Date(a.createdAt).getTime(), 60_000);
    assert.equal(new Date(b.expiresAt).getTime() - new Date(b.createdAt).getTime(), 300_000, 'default hold: 5 minutes');
    svc.clock.advanceMs(61_000);
    assert.equal((await svc.scheduler.run('credit-reservation-expiry')).status, 'ran');
    assert.equal((await m.expectOk(m.client('GET', `/credits/reservations/${a.id}`))).status, 'EXPIRED');
    assert.equal((await m.expectOk(m.client('GET', `/credits/reservations/${b.id}`))).status, 'HELD');
    assert.deepEqual([(await pool(w)).balance, (await pool(w)).totalHeld], [80, 20]);
    const late = await m.client('POST', `/credits/reservations/${a.id}/capture`, { amount: 5 });
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'reservation_closed');
    // Past its expiry but before the job: the capture expires it and is refused all the same.
    svc.clock.advanceMs(240_000);
    const lateB = await m.client('POST', `/credits/reservations/${b.id}/capture`, { amount: 5 });
    assert.equal(lateB.status, 409, lateB.text);
    assert.equal((await m.expectOk(m.client('GET', `/credits/reservations/${b.id}`))).status, 'EXPIRED');
    assert.deepEqual([(await pool(w)).balance, (await pool(w)).totalHeld], [100, 0]);
    await m.audit();
  });

  test('when the same idempotencyKey is sent again then the first reservation answers; another body is 409; concurrent firsts hold once', async () => {
    const w = await wallet(100, true);
    const body = { customerReferenceId: w.ref, denomination: w.denomination, amount: 10, idempotencyKey: `k-${unique()}` };
    const first = await m.expectOk(m.client('POST', '/credits/reservations', body), 201);
    const again = await m.expectOk(m.client('POST', '/credits/reservations', body), 200);
    assert.equal(again.id, first.id);
    const changed = await m.client('POST', '/credits/reservations', { ...body, amount: 11 });
    assert.equal(changed.status, 409);
    assert.equal(changed.body.error.code, 'idempotency_conflict');

    const raceBody = { ...body, idempotencyKey: `k-${unique()}` };
    const answers = await Promise.all(Array.from({ length: 12 }, () => m.client('POST', '/credits/reservations', raceBody)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    assert.equal(new Set(answers.map((a) => a.body.data.id)).size, 1);
    const p = await pool(w);
    assert.deepEqual([p.balance, p.totalHeld], [80, 20]);
    await m.audit();
  });

  test('when a customer key reserves then it is pinned to its own customer', async () => {
    const w = await wallet(100, true);
    const other = await wallet(100, true);
    const key = await m.customerKey(w.ref, ['read']);
    const asCustomer = (method: string, path: string, body?: unknown) => svc.http.request(method, `/api/v1/client${path}`, { auth: key, ...(body === undefined ? {} : { body }) });
    const own = await asCustomer('POST', '/credits/reservations', { denomination: w.denomination, amount: 5, idempotencyKey: `k-${unique()}` });
    assert.equal(own.status, 201, own.text);
    const foreign = await asCustomer('POST', '/credits/reservations', { customerReferenceId: other.ref, denomination: other.denomination, amount: 5, idempotencyKey: `k-${unique()}` });
    assert.equal(foreign.status, 403);
    const othersReservation = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: other.ref, denomination: other.denomination, amount: 5, idempotencyKey: `k-${unique()}` }), 201);
    for (const [method, path, body] of [['GET', '', undefined], ['POST', '/capture', { amount: 1 }], ['POST', '/release', undefined]] as const) {
      const res = await asCustomer(method, `/credits/reservations/${othersReservation.id}${path}`, body);
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    assert.equal((await asCustomer('GET', `/credits/reservations/${own.body.data.id}`)).status, 200);
    assert.equal((await asCustomer('POST', `/credits/reservations/${own.body.data.id}/capture`, { amount: 2 })).status, 200);
    assert.equal((await m.expectOk(m.client('GET', `/credits/reservations/${othersReservation.id}`))).status, 'HELD');
    await m.audit();
  });

  const evaluate = (w: Wallet, units: number, extra: Record<string, unknown> = {}) =>
    m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: w.ref, featureKey: w.featureKey, usage: { usageUnits: units }, ...extra }));
  const transactionsOf = async (w: Wallet) => (await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))) as any[];

  test('when an evaluate reserves and the event of its flow arrives then the event captures the hold and the rest is released', async () => {
    const w = await wallet(100, true);
    const e = await evaluate(w, 20, { reserve: true });
    assert.equal(e.allowed, true);
    assert.equal(e.creditQuote.estimatedCredits, 20);
    assert.deepEqual([e.reservation.status, e.reservation.amountHeld, e.reservation.flowId], ['HELD', 20, e.flowId]);
    assert.equal((await pool(w)).balance, 80);
    // Meanwhile another caller sees only the unheld 80.
    assert.equal((await evaluate(w, 81)).meta.reason.code, 'CREDIT_LIMIT_REACHED');

    const event = await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 12, flowId: e.flowId, eventIdempotencyKey: `ev-${unique()}` });
    assert.equal(event.status, 201, event.text);
    assert.deepEqual([event.body.data.creditsDeducted, event.body.data.remainingBalance], [12, 88]);
    const r = await m.expectOk(m.client('GET', `/credits/reservations/${e.reservation.id}`));
    assert.deepEqual([r.status, r.captureRequested, r.amountCaptured, r.eventId], ['CAPTURED', 12, 12, event.body.data.eventId]);
    assert.deepEqual(await ledger(w), [['GRANT', 100, 0], ['HOLD', -20, 20], ['CAPTURE', 0, -12], ['RELEASE', 8, -8]]);
    assert.equal((await transactionsOf(w)).find((t) => t.transactionType === 'CAPTURE').reservationId, r.id);
    const p = await pool(w);
    assert.deepEqual([p.balance, p.totalHeld, p.totalConsumed], [88, 0, 12]);
    // A second event of the same flow finds no open hold and draws as usual.
    const second = await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 3, flowId: e.flowId });
    assert.equal(second.status, 201);
    assert.deepEqual((await ledger(w)).at(-1), ['DEDUCTION', -3, 0]);
    await m.audit();
  });

  test('when the event of a reserved flow costs more than the hold then the excess is drawn too (context.flowId works as well)', async () => {
    const w = await wallet(100, false);
    const e = await evaluate(w, 10, { reserve: true, context: { flowId: `flow-${unique()}` } });
    const event = await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 15, context: { flowId: e.flowId } });
    assert.equal(event.status, 201, event.text);
    assert.equal(event.body.data.creditsDeducted, 15);
    assert.deepEqual(await ledger(w), [['GRANT', 100, 0], ['HOLD', -10, 10], ['CAPTURE', -5, -10]]);
    await m.audit();
  });

  test('when an evaluate does not reserve then nothing is held and its flow\'s event draws exactly as before', async () => {
    const w = await wallet(100, true);
    const e = await evaluate(w, 20);
    assert.equal('reservation' in e, false);
    assert.equal((await pool(w)).balance, 100);
    const event = await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 12, flowId: e.flowId });
    assert.equal(event.status, 201);
    assert.deepEqual(await ledger(w), [['GRANT', 100, 0], ['DEDUCTION', -12, 0]]);
    const reservations = await svc.ctx.db.selectFrom('credit_reservations').select('id').where('flow_id', '=', e.flowId).execute();
    assert.equal(reservations.length, 0);
    await m.audit();
  });

  test('when a reserving evaluate is retried with its flowId then the open hold is returned, not held twice', async () => {
    const w = await wallet(100, true);
    const flowId = `flow-${unique()}`;
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => evaluate(w, 30, { reserve: true, context: { flowId } })));
    assert.equal(new Set([a.reservation.id, b.reservation.id, c.reservation.id]).size, 1);
    assert.deepEqual([(await pool(w)).balance, (await pool(w)).totalHeld], [70, 30]);
    await m.audit();
  });

  test('when a reserving evaluate does not fit a hard-limit pool then it is denied and holds nothing; a feature without credits holds nothing', async () => {
    const w = await wallet(10, true);
    const e = await evaluate(w, 11, { reserve: true });
    assert.deepEqual([e.allowed, e.meta.reason.code, e.reservation], [false, 'CREDIT_LIMIT_REACHED', null]);
    const plain = await m.feature();
    const plan = await m.activePlan({ price: 0, features: [{ id: plain.id }] });
    const ref = `c-${unique()}`;
    await m.customer(ref);
    await m.subscribe(ref, plan.id);
    const free = await m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: ref, featureKey: plain.key, reserve: true }));
    assert.deepEqual([free.allowed, free.reservation], [true, null]);
    assert.equal((await pool(w)).balance, 10);
  });

  test('when the hold of a flow has expired then its event expires it and draws as usual', async () => {
    const w = await wallet(100, true);
    const e = await evaluate(w, 40, { reserve: true });
    svc.clock.advanceMs(301_000);
    const event = await m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 5, flowId: e.flowId });
    assert.equal(event.status, 201, event.text);
    assert.equal((await m.expectOk(m.client('GET', `/credits/reservations/${e.reservation.id}`))).status, 'EXPIRED');
    assert.deepEqual(await ledger(w), [['GRANT', 100, 0], ['HOLD', -40, 40], ['RELEASE', 40, -40], ['DEDUCTION', -5, 0]]);
    await m.audit();
  });

  test('when a customer key evaluates with reserve then the hold is its own customer\'s and its event captures it', async () => {
    const w = await wallet(100, true);
    const key = await m.customerKey(w.ref, ['read']);
    const e = await svc.http.post('/api/v1/client/entitlements', { auth: key, body: { featureKey: w.featureKey, usage: { usageUnits: 9 }, reserve: true } });
    assert.equal(e.status, 200, e.text);
    const event = await svc.http.post('/api/v1/client/events', { auth: key, body: { eventName: 'x', featureKey: w.featureKey, usageUnits: 9, flowId: e.body.data.flowId } });
    assert.equal(event.status, 201, event.text);
    const r = await svc.http.get(`/api/v1/client/credits/reservations/${e.body.data.reservation.id}`, { auth: key });
    assert.deepEqual([r.body.data.status, r.body.data.amountCaptured], ['CAPTURED', 9]);
    await m.audit();
  });

  test('when reserving evaluates, flow events and plain events race on one hard-limit pool then each flow captures once and the audit is clean', async () => {
    const w = await wallet(200, true);
    const flows = Array.from({ length: 20 }, (_, i) => `race-flow-${w.ref}-${i}`);
    const round1 = await Promise.all([
      ...flows.map((flowId) => evaluate(w, 10, { reserve: true, context: { flowId } })),
      ...Array.from({ length: 10 }, () => m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 5 }).then((r) => r.status)),
    ]);
    const evaluations = round1.slice(0, 20) as any[];
    const plain1 = (round1.slice(20) as number[]).filter((st) => st === 201).length;
    const reserved = evaluations.filter((e) => e.reservation);
    assert.equal(reserved.length * 10 + plain1 * 5, 200, 'every credit is held or drawn');
    for (const e of evaluations) assert.equal(e.allowed, e.reservation !== null);
    await m.audit();
    const round2 = await Promise.all(flows.map((flowId) => m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 8, flowId })));
    const captured = round2.filter((r, i) => evaluations[i].reservation && r.status === 201).length;
    assert.equal(captured, reserved.length, 'every reserved flow captures its own hold');
    // A flow without a hold draws as usual: from what the captures released (2 each), or refused.
    const unreserved = round2.filter((_, i) => !evaluations[i].reservation);
    for (const r of unreserved) assert.ok(r.status === 201 || r.body.error?.code === 'insufficient_credits', r.text);
    const drawn = unreserved.filter((r) => r.status === 201).length;
    assert.ok(drawn * 8 <= reserved.length * 2);
    const p = await pool(w);
    const consumed = plain1 * 5 + captured * 8 + drawn * 8;
    assert.deepEqual([p.totalHeld, p.totalConsumed, p.balance], [0, consumed, 200 - consumed]);
    await m.audit();
  });

  test('when holds, events, captures, releases and the expiry job race on one hard-limit pool then nothing is lost and the audit is clean after each round', async () => {
    const w = await wallet(300, true);
    const conserved = async () => {
      const p = await pool(w);
      assert.equal(p.balance + p.totalHeld + p.totalConsumed + p.totalExpired, 300, JSON.stringify(p));
      assert.ok(p.balance >= 0);
      await m.audit();
      return p;
    };
    // Round 1: 30 holds of 10 (half for 60 s, half for 600 s) against 30 events of 5: 450 asked of 300.
    const round1 = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 10, idempotencyKey: `race-${w.ref}-${i}`, holdSeconds: i % 2 === 0 ? 60 : 600 })),
      ...Array.from({ length: 30 }, (_, i) => m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 5, eventIdempotencyKey: `race-ev-${w.ref}-${i}` })),
    ]);
    const holds = round1.slice(0, 30).filter((r) => r.status === 201).map((r) => r.body.data);
    const events = round1.slice(30).filter((r) => r.status === 201);
    for (const r of round1) assert.ok(r.status === 201 || (r.status === 409 && r.body.error.code === 'insufficient_credits'), r.text);
    assert.equal(holds.length * 10 + events.length * 5, 300, 'every credit is held or drawn, none twice');
    const p1 = await conserved();
    assert.deepEqual([p1.balance, p1.totalHeld, p1.totalConsumed], [0, holds.length * 10, events.length * 5]);

    // Round 2: past the short holds' expiry, the job races captures (7 of each long hold), releases and new events.
    svc.clock.advanceMs(61_000);
    const long = holds.filter((h) => new Date(h.expiresAt).getTime() - new Date(h.createdAt).getTime() === 600_000);
    const short = holds.filter((h) => !long.includes(h));
    const [job, ...answers] = await Promise.all([
      svc.scheduler.run('credit-reservation-expiry'),
      ...long.map((h, i) => (i % 3 === 0 ? m.client('POST', `/credits/reservations/${h.id}/release`) : m.client('POST', `/credits/reservations/${h.id}/capture`, { amount: 7 }))),
      ...short.map((h) => m.client('POST', `/credits/reservations/${h.id}/capture`, { amount: 7 })),
      ...Array.from({ length: 20 }, (_, i) => m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 4, eventIdempotencyKey: `race2-ev-${w.ref}-${i}` })),
    ]);
    assert.equal((job as { status: string }).status, 'ran');
    const replies = answers as Awaited<ReturnType<typeof m.client>>[];
    replies.slice(0, long.length).forEach((r) => assert.equal(r.status, 200, r.text));
    replies.slice(long.length, holds.length).forEach((r) => assert.equal(r.body.error?.code, 'reservation_closed', r.text));
    const events2 = replies.slice(holds.length).filter((r) => r.status === 201).length;
    const captured = long.filter((_, i) => i % 3 !== 0).length * 7;
    const p2 = await conserved();
    assert.deepEqual([p2.totalHeld, p2.totalConsumed], [0, events.length * 5 + captured + events2 * 4]);
    for (const h of holds) {
      const status = (await m.expectOk(m.client('GET', `/credits/reservations/${h.id}`))).status;
      assert.equal(status, short.includes(h) ? 'EXPIRED' : long.indexOf(h) % 3 === 0 ? 'RELEASED' : 'CAPTURED');
    }
  });

  test('when inputs are bad then the answers are 4xx with stable codes', async () => {
    const w = await wallet(100, true);
    const cases: [string, string, unknown, number, string][] = [
      ['GET', `/credits/reservations/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, undefined, 404, 'not_found'],
      ['GET', '/credits/reservations/not-a-uuid', undefined, 400, 'validation_failed'],
      ['POST', `/credits/reservations/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/capture`, { amount: 1 }, 404, 'not_found'],
      ['POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: -1, idempotencyKey: 'x' }, 400, 'validation_failed'],
      ['POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 0, idempotencyKey: 'x' }, 400, 'validation_failed'],
      ['POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: '1.0000001', idempotencyKey: 'x' }, 400, 'validation_failed'],
      ['POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 1 }, 400, 'validation_failed'],
      ['POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 1, idempotencyKey: 'x', holdSeconds: 601 }, 400, 'validation_failed'],
      ['POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: 'no-such', amount: 1, idempotencyKey: `k-${unique()}` }, 404, 'not_found'],
      ['POST', '/credits/reservations', { customerReferenceId: 'nobody', denomination: w.denomination, amount: 1, idempotencyKey: `k-${unique()}` }, 404, 'not_found'],
      ['POST', '/credits/reservations', { denomination: w.denomination, amount: 1, idempotencyKey: `k-${unique()}` }, 400, 'validation_failed'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await m.client(method, path, body);
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.error.code, code);
    }
    const r = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 1, idempotencyKey: `k-${unique()}` }), 201);
    const negative = await m.client('POST', `/credits/reservations/${r.id}/capture`, { amount: -1 });
    assert.equal(negative.status, 400);
    const cust = await m.customer(`c-${unique()}`);
    const noSub = await m.client('POST', '/credits/reservations', { customerReferenceId: cust.customerReferenceId, denomination: w.denomination, amount: 1, idempotencyKey: `k-${unique()}` });
    assert.equal(noSub.status, 409);
    assert.equal(noSub.body.error.code, 'conflict');
    const holdRow = ((await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))) as any[]).find((t) => t.transactionType === 'HOLD');
    const reverse = await m.admin('POST', `/credits/transactions/${holdRow.id}/reverse`);
    assert.equal(reverse.status, 409);
    assert.equal(reverse.body.error.code, 'conflict');
  });

  test('when a capture is reversed then everything it consumed, held part and excess, returns to its grants', async () => {
    const w = await wallet(100, false);
    const r = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 10, idempotencyKey: `k-${unique()}` }), 201);
    await m.expectOk(m.client('POST', `/credits/reservations/${r.id}/capture`, { amount: 14 }));
    const capture = (await transactionsOf(w)).find((t) => t.transactionType === 'CAPTURE');
    const reversal = await m.expectOk(m.admin('POST', `/credits/transactions/${capture.id}/reverse`));
    assert.deepEqual([reversal.amount, reversal.heldChange], [14, 0]);
    const p = await pool(w);
    assert.deepEqual([p.balance, p.totalConsumed, p.totalReversed, p.totalHeld], [100, 14, 14, 0]);
    assert.equal((await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/grants`)))[0].remaining, 100);
    await m.audit();
  });
});
