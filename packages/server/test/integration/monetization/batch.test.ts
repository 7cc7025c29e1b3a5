import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * POST /api/v1/client/events/batch: each event applied as if sent alone, in order, answered per
 * event; the figures below are computed by hand from the pool balances and unit counts.
 */
describe(`batch ingestion (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let hardPlanId: string;
  let softPlanId: string;
  const FEATURE = 'batch.f';
  const SOFT_FEATURE = 'batch.soft';

  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
    const hard = await m.creditModel({ denomination: 'batch-hard', hardLimit: true });
    const soft = await m.creditModel({ denomination: 'batch-soft', hardLimit: false });
    const feature = await m.feature({ key: FEATURE });
    const softFeature = await m.feature({ key: SOFT_FEATURE });
    const plan = async (key: string, featureId: string, modelId: string, credits: number) => {
      const p = await m.expectOk(m.admin('POST', '/plans', { key, name: key, description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
      await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: p.id, featureId, creditModelId: modelId, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
      await m.expectOk(m.admin('POST', `/credits/models/${modelId}/plans/${p.id}?creditAmount=${credits}`), 201);
      await m.expectOk(m.admin('PATCH', `/plans/${p.id}`, { status: 'ACTIVE' }));
      return p.id as string;
    };
    hardPlanId = await plan('batch-hard', feature.id, hard.id, 10);
    softPlanId = await plan('batch-soft', softFeature.id, soft.id, 1000);
  });
  after(() => svc.close());

  const batch = (events: Record<string, unknown>[], auth?: string) =>
    auth
      ? svc.http.post('/api/v1/client/events/batch', { auth, body: { events: events.map((e) => ({ eventName: 'chat.message', ...e })) } })
      : m.client('POST', '/events/batch', { events: events.map((e) => ({ eventName: 'chat.message', ...e })) });
  const poolOf = async (ref: string) => (await m.expectOk(m.client('GET', `/credits/${ref}/pools`))).items[0];
  const deductions = async (poolId: string) =>
    svc.ctx.db
      .selectFrom('credit_transactions')
      .select([sql<string>`count(*)::text`.as('n'), sql<string>`coalesce(sum(amount), 0)::text`.as('total')])
      .where('credit_pool_id', '=', poolId)
      .where('transaction_type', '=', 'DEDUCTION')
      .executeTakeFirstOrThrow();
  const storedKeys = async (prefix: string) =>
    (await svc.ctx.db.selectFrom('usage_events').select(['event_idempotency_key', 'id', 'usage_units']).where('event_idempotency_key', 'like', `${prefix}%`).orderBy('event_idempotency_key').execute());

  test('when a batch mixes new, already stored, over-the-limit and repeated keys then each gets its own result in input order', async () => {
    await m.customer('mix');
    await m.subscribe('mix', hardPlanId);
    const first = await m.event({ customerReferenceId: 'mix', featureKey: FEATURE, usageUnits: 1, eventIdempotencyKey: 'mix-pre' });
    assert.equal(first.status, 201, first.text);
    // Pool 10 − 1 = 9: a (4) → 5; pre: duplicate; b (6) refused; a again: duplicate of the first a; c (5) → 0; e (1) refused.
    const res = await batch([
      { customerReferenceId: 'mix', featureKey: FEATURE, usageUnits: 4, eventIdempotencyKey: 'mix-a' },
      { customerReferenceId: 'mix', featureKey: FEATURE, usageUnits: 1, eventIdempotencyKey: 'mix-pre' },
      { customerReferenceId: 'mix', featureKey: FEATURE, usageUnits: 6, eventIdempotencyKey: 'mix-b' },
      { customerReferenceId: 'mix', featureKey: FEATURE, usageUnits: 2, eventIdempotencyKey: 'mix-a' },
      { customerReferenceId: 'mix', featureKey: FEATURE, usageUnits: 5, eventIdempotencyKey: 'mix-c' },
      { customerReferenceId: 'mix', featureKey: FEATURE, usageUnits: 1, eventIdempotencyKey: 'mix-e' },
    ]);
    assert.equal(res.status, 200, res.text);
    const results = res.body.data.results;
    assert.deepEqual(results.map((r: any) => [r.index, r.status, r.eventIdempotencyKey]), [
      [0, 'stored', 'mix-a'],
      [1, 'duplicate', 'mix-pre'],
      [2, 'refused', 'mix-b'],
      [3, 'duplicate', 'mix-a'],
      [4, 'stored', 'mix-c'],
      [5, 'refused', 'mix-e'],
    ]);
    assert.equal(results[0].creditsDeducted, 4);
    assert.equal(results[0].remainingBalance, 5);
    assert.equal(results[4].creditsDeducted, 5);
    assert.equal(results[4].remainingBalance, 0);
    assert.equal(results[1].eventId, first.body.data.eventId, 'a duplicate names the event stored first');
    assert.equal(results[3].eventId, results[0].eventId, 'an in-batch duplicate names the earlier event of the batch');
    assert.deepEqual(results[1].error.code, 'conflict');
    assert.match(results[1].error.message, /Event with eventIdempotencyKey 'mix-pre' was already ingested/);
    assert.equal(results[2].error.code, 'insufficient_credits');
    assert.match(results[2].error.message, /^Credit pool depleted/);
    assert.equal(results[2].eventId, undefined);
    const stored = await storedKeys('mix-');
    assert.deepEqual(stored.map((s) => [s.event_idempotency_key, Number(s.usage_units)]), [['mix-a', 4], ['mix-c', 5], ['mix-pre', 1]]);
    const pool = await poolOf('mix');
    assert.equal(pool.balance, 0);
    assert.deepEqual(await deductions(pool.id), { n: '3', total: '-10.000000' });
    await m.audit();
  });

  test('when a hard-limit pool of 10 gets events of 3, 4, 5, 2, 1, 3 then exactly 5 and the last 3 are refused and the ledger chain is unbroken', async () => {
    await m.customer('fit');
    await m.subscribe('fit', hardPlanId);
    const units = [3, 4, 5, 2, 1, 3];
    const res = await batch(units.map((u, i) => ({ customerReferenceId: 'fit', featureKey: FEATURE, usageUnits: u, eventIdempotencyKey: `fit-${i}` })));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.results.map((r: any) => r.status), ['stored', 'stored', 'refused', 'stored', 'stored', 'refused']);
    assert.deepEqual(res.body.data.results.map((r: any) => r.remainingBalance ?? null), [7, 3, null, 1, 0, null]);
    const pool = await poolOf('fit');
    const ledger = await svc.ctx.db.selectFrom('credit_transactions').select(['seq', 'amount', 'balance_before', 'balance_after', 'event_id']).where('credit_pool_id', '=', pool.id).orderBy('seq').execute();
    // Row 1 is the period grant of 10; then one deduction per stored event, in input order.
    assert.deepEqual(ledger.map((r) => [Number(r.seq), Number(r.amount), Number(r.balance_before), Number(r.balance_after)]), [
      [1, 10, 0, 10],
      [2, -3, 10, 7],
      [3, -4, 7, 3],
      [4, -2, 3, 1],
      [5, -1, 1, 0],
    ]);
    const ids = res.body.data.results.filter((r: any) => r.status === 'stored').map((r: any) => r.eventId);
    assert.deepEqual(ledger.slice(1).map((r) => r.event_id), ids, 'one ledger row per stored event, naming it');
    assert.deepEqual((await storedKeys('fit-')).map((s) => s.event_idempotency_key), ['fit-0', 'fit-1', 'fit-3', 'fit-4']);
    assert.equal(pool.status, 'DEPLETED');
    await m.audit();
  });

  test('when a whole batch is retried after a timeout then nothing is stored or drawn twice', async () => {
    await m.customer('retry');
    await m.subscribe('retry', softPlanId);
    const events = Array.from({ length: 20 }, (_, i) => ({ customerReferenceId: 'retry', featureKey: SOFT_FEATURE, usageUnits: i + 1, eventIdempotencyKey: `retry-${i}` }));
    const first = await batch(events);
    assert.equal(first.status, 200, first.text);
    assert.ok(first.body.data.results.every((r: any) => r.status === 'stored'));
    const pool = await poolOf('retry');
    // 1 + 2 + … + 20 = 210 credits drawn from 1,000.
    assert.equal(pool.balance, 790);
    const again = await batch(events);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.data.results.map((r: any) => r.status), events.map(() => 'duplicate'));
    assert.deepEqual(again.body.data.results.map((r: any) => r.eventId), first.body.data.results.map((r: any) => r.eventId));
    assert.equal((await poolOf('retry')).balance, 790);
    assert.deepEqual(await deductions(pool.id), { n: '20', total: '-210.000000' });
    assert.equal((await storedKeys('retry-')).length, 20);
    await m.audit();
  });

  test('when the same batch is sent twice at once then each event is stored once and the other copy is a duplicate', async () => {
    await m.customer('twice');
    await m.subscribe('twice', softPlanId);
    const events = Array.from({ length: 30 }, (_, i) => ({ customerReferenceId: 'twice', featureKey: SOFT_FEATURE, usageUnits: 1, eventIdempotencyKey: `twice-${i}` }));
    const [a, b] = await Promise.all([batch(events), batch([...events].reverse())]);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    const statuses = [...a.body.data.results, ...b.body.data.results].map((r: any) => r.status);
    assert.equal(statuses.filter((s) => s === 'stored').length, 30);
    assert.equal(statuses.filter((s) => s === 'duplicate').length, 30);
    assert.equal((await poolOf('twice')).balance, 970);
    await m.audit();
  });

  test('when events go over max_usage in a batch then those are stored zeroed and a later one that fits still counts', async () => {
    const feature = await m.feature({ key: 'batch.capped' });
    const plan = await m.activePlan({ price: 0, features: [{ id: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0.01, max_usage: 5 } } }] });
    await m.customer('cap');
    await m.subscribe('cap', plan.id);
    const res = await batch([2, 2, 2, 1].map((u, i) => ({ customerReferenceId: 'cap', featureKey: 'batch.capped', usageUnits: u, eventIdempotencyKey: `cap-${i}` })));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.results.map((r: any) => [r.status, r.usageLimitExceeded ?? false]), [['stored', false], ['stored', false], ['stored', true], ['stored', false]]);
    assert.deepEqual((await m.check('cap', 'batch.capped')).usage, { used: 5, limit: 5, remaining: 0, unlimited: false });
    assert.deepEqual((await storedKeys('cap-')).map((s) => Number(s.usage_units)), [2, 2, 0, 1]);
  });

  test('when a batch names an unknown customer and feature then they are created and the events stored', async () => {
    const res = await batch([{ customerReferenceId: 'new-cust', featureKey: 'batch.new', usageUnits: 1, eventIdempotencyKey: 'new-0' }, { customerReferenceId: 'new-cust', featureKey: 'batch.new', eventIdempotencyKey: 'new-1' }]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.results.map((r: any) => r.status), ['stored', 'stored']);
    const customer = await m.expectOk(m.client('GET', '/customers/new-cust'));
    assert.equal(customer.customerReferenceId, 'new-cust');
  });

  test('when a customer key sends a batch then every event is its own customer, whatever customerReferenceId says', async () => {
    await m.customer('ck-own');
    const key = await m.customerKey('ck-own', ['read']);
    const res = await batch([{ customerReferenceId: 'someone-else', featureKey: SOFT_FEATURE, eventIdempotencyKey: 'ck-0' }, { featureKey: SOFT_FEATURE, eventIdempotencyKey: 'ck-1' }], key);
    assert.equal(res.status, 200, res.text);
    const events = await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=ck-own&eventType=CLIENT_TRACKED'));
    assert.deepEqual(events.items.map((e: any) => e.eventIdempotencyKey).sort(), ['ck-0', 'ck-1']);
    assert.equal((await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=someone-else'))).pagination.total, 0);
  });

  test('when a batch is empty, too long, or an event is malformed then 400 naming the field and nothing is stored', async () => {
    const empty = await m.client('POST', '/events/batch', { events: [] });
    assert.equal(empty.status, 400, empty.text);
    assert.equal(empty.body.error.code, 'validation_failed');
    const tooMany = await batch(Array.from({ length: 1001 }, (_, i) => ({ customerReferenceId: 'v', featureKey: SOFT_FEATURE, eventIdempotencyKey: `v-${i}` })));
    assert.equal(tooMany.status, 400, tooMany.text);
    assert.equal(tooMany.body.error.code, 'validation_failed');
    const noRef = await batch([{ customerReferenceId: 'v', featureKey: SOFT_FEATURE, eventIdempotencyKey: 'v-ok' }, { featureKey: SOFT_FEATURE, eventIdempotencyKey: 'v-noref' }]);
    assert.equal(noRef.status, 400, noRef.text);
    assert.deepEqual(noRef.body.error.fields, [{ field: 'events[1].customerReferenceId', message: 'is required' }]);
    const badUnits = await batch([{ customerReferenceId: 'v', featureKey: SOFT_FEATURE, usageUnits: -1, eventIdempotencyKey: 'v-neg' }]);
    assert.equal(badUnits.status, 400, badUnits.text);
    assert.equal(badUnits.body.error.code, 'validation_failed');
    assert.match(JSON.stringify(badUnits.body.error.fields), /events\.0\.usageUnits|events\[0\]\.usageUnits/);
    const noBody = await m.client('POST', '/events/batch', {});
    assert.equal(noBody.status, 400, noBody.text);
    assert.equal((await storedKeys('v-')).length, 0);
  });
});
