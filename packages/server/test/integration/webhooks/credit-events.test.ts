import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * The credits events (api-contract-events.md §E5.6) and the pool's lowBalanceThreshold (§E7.1):
 * credits.granted per grant, credits.expired per EXPIRATION row, credits.balance_low once per
 * crossing and credits.depleted once per crossing or refusal, the flags read and set under the pool
 * lock. Each test has an account of its own, so the event log holds only its events.
 */
describe(`credit events (${backend})`, () => {
  let svc: TestService;
  const unique = () => randomBytes(4).toString('hex');
  const DAY = 86_400_000;

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  type Event = { id: string; type: string; createdAt: string; data: Record<string, any> };
  async function account() {
    const m = monetization(svc, await createTestAccount(svc));
    const events = async (type?: string): Promise<Event[]> =>
      ((await m.expectOk(m.api('GET', `/api/v1/webhooks/events?limit=100${type ? `&type=${type}` : ''}`))).items as Event[]).reverse();
    const pool = (id: string) => m.expectOk(m.admin('GET', `/credits/pools/${id}`));
    const threshold = (id: string, value: number | null) => m.expectOk(m.admin('PATCH', `/credits/pools/${id}`, { lowBalanceThreshold: value }));
    const use = (w: { ref: string; featureKey: string }, usageUnits: number) => m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits, eventIdempotencyKey: `e-${unique()}` });
    const grant = (poolId: string, amount: number, extra: Record<string, unknown> = {}) =>
      m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: poolId, amount, grantType: 'MANUAL', ...extra }), 201);
    return { m, events, pool, threshold, use, grant };
  }

  test('when credits are granted (plan period, manual) then credits.granted carries the grant and the pool after it; an idempotent replay records nothing', async () => {
    const { m, events, pool, grant } = await account();
    const w = await m.wallet(100, false);
    const [period] = await events('credits.granted');
    assert.equal(period!.data.object.grantType, 'PLAN_INCLUDED');
    assert.equal(period!.data.object.amount, 100);
    assert.equal(period!.data.pool.id, w.poolId);
    assert.equal(period!.data.pool.balance, 100);
    const body = { creditPoolId: w.poolId, amount: 5, grantType: 'MANUAL', idempotencyKey: `g-${unique()}` };
    const first = await m.expectOk(m.admin('POST', '/credits/grants', body), 201);
    const replay = await m.admin('POST', '/credits/grants', body);
    assert.equal(replay.status, 200, replay.text);
    await grant(w.poolId, 7);
    const granted = await events('credits.granted');
    assert.equal(granted.length, 3, 'plan grant, manual grant, second manual grant; the replay recorded nothing');
    const grants = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/grants`));
    assert.deepEqual(granted[1]!.data.object, grants.find((g: any) => g.id === first.id));
    assert.equal(granted[2]!.data.pool.balance, 112);
    assert.deepEqual(granted[2]!.data.pool, await pool(w.poolId), 'the pool as the read route shows it');
  });

  test('when lowBalanceThreshold is set then create and PATCH validate it with the contract messages, a foreign pool is 404, and setting it fires nothing', async () => {
    const { m, events, threshold } = await account();
    const created = await m.expectOk(m.admin('POST', '/credits/pools', { name: `p-${unique()}`, denomination: (await m.creditModel()).denomination, lowBalanceThreshold: 25.5 }), 201);
    assert.equal(created.lowBalanceThreshold, 25.5);
    const cases: [unknown, string][] = [
      [0, 'Validation failed: lowBalanceThreshold: lowBalanceThreshold must be positive'],
      [-1, 'Validation failed: lowBalanceThreshold: lowBalanceThreshold must be positive'],
      [1.1234567, 'Validation failed: lowBalanceThreshold: lowBalanceThreshold allows at most 6 decimals'],
      [1000000000001, 'Validation failed: lowBalanceThreshold: lowBalanceThreshold exceeds maximum 1000000000000'],
    ];
    for (const [value, message] of cases) {
      const res = await m.admin('PATCH', `/credits/pools/${created.id}`, { lowBalanceThreshold: value });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.message, message);
      const onCreate = await m.admin('POST', '/credits/pools', { name: `p-${unique()}`, denomination: created.denomination, lowBalanceThreshold: value });
      assert.equal(onCreate.body.error.message, message);
    }
    const patched = await threshold(created.id, 1000000000000);
    assert.equal(patched.lowBalanceThreshold, 1000000000000);
    const ignored = await m.expectOk(m.admin('PATCH', `/credits/pools/${created.id}`, { lowBalanceThreshold: null, name: 'renamed', hardLimit: true }));
    assert.equal(ignored.lowBalanceThreshold, null);
    assert.equal(ignored.name, created.name, 'other fields are ignored');
    const other = await account();
    const foreign = await other.m.admin('PATCH', `/credits/pools/${created.id}`, { lowBalanceThreshold: 5 });
    assert.equal(foreign.status, 404, foreign.text);
    assert.deepEqual(await events(), [], 'setting or clearing a threshold records nothing');
  });

  test('when draws cross below the threshold then one credits.balance_low per crossing; a grant back to ≥ threshold re-arms it; a threshold set below the balance arms silently', async () => {
    const { m, events, threshold, use, grant } = await account();
    const w = await m.wallet(100, false);
    await threshold(w.poolId, 50);
    assert.equal((await use(w, 30)).status, 201);
    assert.deepEqual(await events('credits.balance_low'), [], '70 ≥ 50');
    assert.equal((await use(w, 30)).status, 201);
    let low = await events('credits.balance_low');
    assert.equal(low.length, 1);
    assert.equal(low[0]!.data.lowBalanceThreshold, 50);
    assert.equal(low[0]!.data.availableBalance, 40);
    assert.equal(low[0]!.data.object.balance, 40);
    assert.equal(low[0]!.data.object.lowBalanceThreshold, 50);
    await use(w, 10);
    await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: w.poolId, amount: 5 }));
    assert.equal((await events('credits.balance_low')).length, 1, 'disarmed: further draws record nothing');
    await grant(w.poolId, 10); // 35: still below, stays disarmed
    await use(w, 1);
    assert.equal((await events('credits.balance_low')).length, 1);
    await grant(w.poolId, 20); // 54: re-armed
    await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: w.poolId, amount: 10 }));
    low = await events('credits.balance_low');
    assert.equal(low.length, 2, 'a manual deduction crossing again records the second crossing');
    assert.equal(low[1]!.data.availableBalance, 44);
    await threshold(w.poolId, 40); // 44 ≥ 40: armed, nothing fired
    assert.equal((await events('credits.balance_low')).length, 2);
    await use(w, 5);
    assert.equal((await events('credits.balance_low')).length, 3);
    await threshold(w.poolId, null);
    await grant(w.poolId, 100);
    await use(w, 120);
    assert.equal((await events('credits.balance_low')).length, 3, 'a cleared threshold stops the event');
    await m.audit();
  });

  test('when 30 concurrent events drain a pool below its threshold then exactly one credits.balance_low is recorded and the audit is clean', async () => {
    const { m, events, threshold, use, pool } = await account();
    const w = await m.wallet(1000, false);
    await threshold(w.poolId, 500);
    const answers = await Promise.all(Array.from({ length: 30 }, () => use(w, 20)));
    for (const a of answers) assert.equal(a.status, 201, a.text);
    assert.equal((await pool(w.poolId)).balance, 400);
    const low = await events('credits.balance_low');
    assert.equal(low.length, 1);
    assert.ok(low[0]!.data.availableBalance < 500 && low[0]!.data.availableBalance >= 480, `crossed once: ${low[0]!.data.availableBalance}`);
    await m.audit();
  });

  test('when a batch crosses the threshold and a hard limit then balance_low and depleted are recorded once each, in order', async () => {
    const { m, events, threshold } = await account();
    const w = await m.wallet(100, true);
    await threshold(w.poolId, 50);
    const batch = await m.expectOk(
      m.client('POST', '/events/batch', { events: Array.from({ length: 8 }, () => ({ eventName: 'chat.message', customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: 20, eventIdempotencyKey: `b-${unique()}` })) }),
    );
    assert.deepEqual(batch.results.map((r: any) => r.status), ['stored', 'stored', 'stored', 'stored', 'stored', 'refused', 'refused', 'refused']);
    const all = await events();
    const credit = all.filter((e) => e.type.startsWith('credits.') && e.type !== 'credits.granted');
    assert.deepEqual(credit.map((e) => [e.type, e.data.reason ?? null]), [['credits.balance_low', null], ['credits.depleted', 'BALANCE_ZERO']]);
    assert.equal(credit[0]!.data.availableBalance, 40);
    assert.equal(credit[1]!.data.object.balance, 0);
    assert.equal(credit[1]!.data.object.status, 'DEPLETED');
    assert.equal(credit[1]!.data.requestedCredits, null);
    await m.audit();
  });

  test('when a hard-limit pool refuses an event then credits.depleted (EVENT_REFUSED) is the only thing recorded, once until a grant raises the balance', async () => {
    const { m, events, use, grant, pool } = await account();
    const w = await m.wallet(30, true);
    const before = await events();
    const eventsBefore = (await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))).length;
    const refused = await use(w, 50);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, 'insufficient_credits');
    const after = await events();
    assert.equal(after.length, before.length + 1, 'one event and nothing else');
    const depleted = after[after.length - 1]!;
    assert.equal(depleted.type, 'credits.depleted');
    assert.equal(depleted.data.reason, 'EVENT_REFUSED');
    assert.equal(depleted.data.requestedCredits, 50);
    assert.equal(depleted.data.object.id, w.poolId);
    assert.equal(depleted.data.object.balance, 30);
    assert.equal((await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`))).length, eventsBefore, 'no ledger row');
    assert.equal((await m.expectOk(m.client('GET', `/customers/${w.ref}/usage`))).features?.length ?? 0, 0, 'no usage stored');
    assert.equal((await use(w, 40)).status, 409);
    assert.equal((await events('credits.depleted')).length, 1, 'disarmed: a second refusal records nothing');
    assert.equal((await use(w, 10)).status, 201, 'a draw lowers the balance: still disarmed');
    await grant(w.poolId, 5); // raises the balance: re-armed
    assert.equal((await use(w, 100)).status, 409);
    const both = await events('credits.depleted');
    assert.equal(both.length, 2);
    assert.equal(both[1]!.data.object.balance, 25);
    assert.equal((await pool(w.poolId)).balance, 25);
    await m.audit();
  });

  test('when 25 concurrent events are refused by a hard-limit pool then exactly one credits.depleted is recorded', async () => {
    const { m, events, use } = await account();
    const w = await m.wallet(10, true);
    const answers = await Promise.all(Array.from({ length: 25 }, () => use(w, 20)));
    for (const a of answers) assert.equal(a.status, 409, a.text);
    const depleted = await events('credits.depleted');
    assert.equal(depleted.length, 1);
    assert.equal(depleted[0]!.data.reason, 'EVENT_REFUSED');
    assert.deepEqual((await events()).map((e) => e.type).filter((t) => t.startsWith('credits.')).sort(), ['credits.depleted', 'credits.granted']);
    await m.audit();
  });

  test('when 25 concurrent events drain a hard-limit pool to zero then one BALANCE_ZERO and no refusal event follows while disarmed', async () => {
    const { m, events, use } = await account();
    const w = await m.wallet(200, true);
    const answers = await Promise.all(Array.from({ length: 25 }, () => use(w, 10)));
    assert.equal(answers.filter((a) => a.status === 201).length, 20);
    assert.equal(answers.filter((a) => a.status === 409).length, 5);
    const depleted = await events('credits.depleted');
    assert.deepEqual(depleted.map((e) => e.data.reason), ['BALANCE_ZERO']);
    await m.audit();
  });

  test('when a reversal gives credits back then both flags re-arm, and the next crossing records balance_low and depleted again', async () => {
    const { m, events, threshold, use } = await account();
    const w = await m.wallet(30, true);
    await threshold(w.poolId, 20);
    assert.equal((await use(w, 30)).status, 201);
    const types = async () => (await events()).filter((e) => e.type === 'credits.balance_low' || e.type === 'credits.depleted').map((e) => e.type);
    assert.deepEqual(await types(), ['credits.balance_low', 'credits.depleted']);
    const rows = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`));
    const deduction = rows.find((r: any) => r.transactionType === 'DEDUCTION');
    await m.expectOk(m.admin('POST', `/credits/transactions/${deduction.id}/reverse`));
    assert.equal((await types()).length, 2, 'a reversal raising the balance records nothing itself');
    assert.equal((await use(w, 30)).status, 201);
    assert.deepEqual(await types(), ['credits.balance_low', 'credits.depleted', 'credits.balance_low', 'credits.depleted']);
    await m.audit();
  });

  test('when a soft pool runs dry then credits.depleted is never recorded', async () => {
    const { m, events, use } = await account();
    const w = await m.wallet(10, false);
    assert.equal((await use(w, 50)).status, 201);
    assert.equal((await use(w, 50)).status, 201);
    assert.deepEqual(await events('credits.depleted'), []);
  });

  test('when a hold is refused by a hard-limit pool then only credits.depleted (EVENT_REFUSED) is recorded; a hold to zero records BALANCE_ZERO after a release re-arms', async () => {
    const { m, events } = await account();
    const w = await m.wallet(30, true);
    const hold = (amount: number) => m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount, idempotencyKey: `h-${unique()}` });
    const refused = await hold(40);
    assert.equal(refused.status, 409, refused.text);
    let depleted = await events('credits.depleted');
    assert.deepEqual(depleted.map((e) => [e.data.reason, e.data.requestedCredits]), [['EVENT_REFUSED', 40]]);
    assert.equal((await hold(40)).status, 409);
    assert.equal((await events('credits.depleted')).length, 1);
    const held = await m.expectOk(hold(30), 201);
    assert.equal((await events('credits.depleted')).length, 1, 'still disarmed: the hold lowered the balance');
    await m.expectOk(m.client('POST', `/credits/reservations/${held.id}/release`));
    await m.expectOk(hold(30), 201);
    depleted = await events('credits.depleted');
    assert.deepEqual(depleted.map((e) => e.data.reason), ['EVENT_REFUSED', 'BALANCE_ZERO']);
    assert.equal(depleted[1]!.data.object.totalHeld, 30);
    await m.audit();
  });

  test('when credits expire (expiry job) or are clawed back (cancellation) then one credits.expired per EXPIRATION row with its reason', async () => {
    const { m, events, grant } = await account();
    const w = await m.wallet(50, false);
    const now = svc.clock.now().getTime();
    const promo = await grant(w.poolId, 10, { grantType: 'PROMOTIONAL', expiresAt: new Date(now + DAY).toISOString() });
    svc.clock.advanceMs(2 * DAY);
    await svc.scheduler.run('credit-expiration');
    await svc.scheduler.run('credit-expiration');
    let expired = await events('credits.expired');
    assert.equal(expired.length, 1);
    assert.equal(expired[0]!.data.reason, 'EXPIRED');
    assert.equal(expired[0]!.data.grantId, promo.id);
    assert.equal(expired[0]!.data.object.transactionType, 'EXPIRATION');
    assert.equal(expired[0]!.data.object.amount, -10);
    assert.equal(expired[0]!.data.pool.totalExpired, 10);
    const rows = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/transactions`));
    assert.deepEqual(expired[0]!.data.object, rows.find((r: any) => r.id === expired[0]!.data.object.id));
    const [{ subscriptionId }] = await m.expectOk(m.admin('GET', `/credits/pools/${w.poolId}/subscriptions`));
    const cancel = await m.client('POST', `/subscriptions/cancellation/${subscriptionId}?cancelMode=IMMEDIATE`);
    assert.equal(cancel.status, 200, cancel.text);
    expired = await events('credits.expired');
    assert.deepEqual(expired.map((e) => [e.data.reason, e.data.object.amount]), [['EXPIRED', -10], ['CLAWBACK', -50]]);
    await m.audit();
  });

  test('when a period rolls over with policy NONE then credits.expired (ROLLOVER) precedes the new period\'s credits.granted, once however often the job runs', async () => {
    const { m, events, use } = await account();
    const w = await m.wallet(100, false);
    assert.equal((await use(w, 40)).status, 201);
    svc.clock.advanceMs(32 * DAY);
    await svc.scheduler.run('subscription-cycle');
    svc.clock.advanceMs(3_600_000);
    await svc.scheduler.run('subscription-cycle');
    const credit = (await events()).filter((e) => e.type === 'credits.expired' || e.type === 'credits.granted');
    assert.deepEqual(
      credit.map((e) => [e.type, e.data.reason ?? null, e.data.object.amount]),
      [['credits.granted', null, 100], ['credits.expired', 'ROLLOVER', -60], ['credits.granted', null, 100]],
    );
    assert.equal(credit[1]!.data.pool.balance, 0);
    assert.equal(credit[2]!.data.pool.balance, 100);
    await m.audit();
  });
});
