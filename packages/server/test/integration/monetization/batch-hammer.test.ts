import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startSecondNode, startTestService, type HttpResponse, type TestService } from '../../harness.js';

const UNIQUE_KEYS = 1800;
const REPEATS = 200; // keys 0 … 199 sent a second time, through the other route and node
const BALANCE = 1234; // credits of the hard-limit pool; every event draws 1
const BATCH = 50;

/**
 * 2,000 concurrent events on one hard-limit pool, through POST /events (grouped per node) and
 * POST /events/batch mixed, on two server instances sharing one PostgreSQL schema (one instance on
 * PGlite): exactly BALANCE events are stored, each acknowledged once, the rest refused or
 * duplicates; stored events equal acknowledged ones and the ledger audit is clean.
 */
describe(`hammer: single and batch ingestion on one hard-limit pool, ${backend === 'postgres' ? 'two nodes' : 'one node'} (${backend})`, () => {
  let nodeA: TestService;
  let nodeB: TestService | undefined;
  let m: ReturnType<typeof monetization>;
  let apiKey: string;
  let poolId: string;

  before(async () => {
    nodeA = await startTestService();
    const account = await createTestAccount(nodeA);
    apiKey = account.apiKey;
    m = monetization(nodeA, account);
    const model = await m.creditModel({ denomination: 'bh', hardLimit: true });
    const feature = await m.feature({ key: 'bh.f' });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'bh', name: 'bh', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=${BALANCE}`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    await m.customer('bh-hot');
    await m.subscribe('bh-hot', plan.id);
    poolId = (await m.expectOk(m.client('GET', '/credits/bh-hot/pools'))).items[0].id;
    if (backend === 'postgres') nodeB = await startSecondNode(nodeA);
  });
  after(async () => {
    await nodeB?.close();
    await nodeA.close();
  });

  test('then exactly the balance is stored, every stored event was acknowledged once, the rest refused or duplicate, and the audit is clean', async () => {
    const nodes = nodeB ? [nodeA, nodeB] : [nodeA];
    const event = (i: number) => ({ eventName: 'bh', customerReferenceId: 'bh-hot', featureKey: 'bh.f', usageUnits: 1, eventIdempotencyKey: `bh-${i}` });
    // First sends: even keys alone, odd keys in batches; repeats go the other way, to the other node.
    const singles: { key: string; node: TestService }[] = [];
    const batched: { key: string; node: TestService }[] = [];
    for (let i = 0; i < UNIQUE_KEYS; i++) (i % 2 === 0 ? singles : batched).push({ key: `bh-${i}`, node: nodes[i % nodes.length]! });
    for (let i = 0; i < REPEATS; i++) (i % 2 === 0 ? batched : singles).push({ key: `bh-${i}`, node: nodes[(i + 1) % nodes.length]! });
    const indexOf = (key: string) => Number(key.slice(3));
    const batches: { node: TestService; keys: string[] }[] = [];
    for (const node of nodes) {
      const mine = batched.filter((b) => b.node === node).map((b) => b.key);
      for (let i = 0; i < mine.length; i += BATCH) batches.push({ node, keys: mine.slice(i, i + BATCH) });
    }
    assert.equal(singles.length + batched.length, UNIQUE_KEYS + REPEATS);

    const post = (node: TestService, path: string, body: unknown) => node.http.post(path, { auth: apiKey, body });
    const [singleAnswers, batchAnswers] = await Promise.all([
      Promise.all(singles.map((s) => post(s.node, '/api/v1/client/events', event(indexOf(s.key))))),
      Promise.all(batches.map((b) => post(b.node, '/api/v1/client/events/batch', { events: b.keys.map((k) => event(indexOf(k))) }))),
    ]);

    const acknowledged: string[] = [];
    const outcomes = { stored: 0, duplicate: 0, refused: 0 };
    singleAnswers.forEach((r: HttpResponse, i) => {
      if (r.status === 201) {
        outcomes.stored++;
        acknowledged.push(singles[i]!.key);
      } else if (r.status === 409 && r.body.error.code === 'conflict') outcomes.duplicate++;
      else if (r.status === 409 && r.body.error.code === 'insufficient_credits') outcomes.refused++;
      else assert.fail(`single event ${singles[i]!.key}: unexpected answer ${r.status} ${r.text}`);
    });
    batchAnswers.forEach((r: HttpResponse, b) => {
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.data.results.map((x: any) => x.index), batches[b]!.keys.map((_, i) => i), 'results in input order');
      r.body.data.results.forEach((x: any, i: number) => {
        assert.equal(x.eventIdempotencyKey, batches[b]!.keys[i]);
        outcomes[x.status as keyof typeof outcomes]++;
        if (x.status === 'stored') acknowledged.push(x.eventIdempotencyKey);
      });
    });

    assert.equal(outcomes.stored, BALANCE, `outcomes: ${JSON.stringify(outcomes)}`);
    assert.equal(outcomes.stored + outcomes.duplicate + outcomes.refused, UNIQUE_KEYS + REPEATS);
    assert.equal(new Set(acknowledged).size, acknowledged.length, 'no key acknowledged twice');

    const db = nodeA.ctx.db;
    const stored = await db.selectFrom('usage_events').select('event_idempotency_key').where('event_idempotency_key', 'like', 'bh-%').execute();
    assert.deepEqual(stored.map((s) => s.event_idempotency_key).sort(), [...acknowledged].sort(), 'stored events are exactly the acknowledged ones');
    const deductions = await db
      .selectFrom('credit_transactions')
      .select([sql<string>`count(*)::text`.as('n'), sql<string>`coalesce(sum(amount), 0)::text`.as('total'), sql<string>`count(distinct event_id)::text`.as('events')])
      .where('credit_pool_id', '=', poolId)
      .where('transaction_type', '=', 'DEDUCTION')
      .executeTakeFirstOrThrow();
    assert.deepEqual(deductions, { n: String(BALANCE), total: `-${BALANCE}.000000`, events: String(BALANCE) }, 'one ledger row per stored event');
    const ledger = await db.selectFrom('credit_transactions').select(['seq', 'balance_before', 'balance_after']).where('credit_pool_id', '=', poolId).orderBy('seq').execute();
    ledger.forEach((row, i) => {
      assert.equal(Number(row.seq), i + 1);
      if (i > 0) assert.equal(row.balance_before, ledger[i - 1]!.balance_after, `chain breaks at row ${i + 1}`);
      assert.ok(Number(row.balance_after) >= 0, 'never negative');
    });
    const pool = await m.expectOk(m.admin('GET', `/credits/pools/${poolId}`));
    assert.equal(pool.balance, 0);
    assert.equal(pool.status, 'DEPLETED');
    await m.audit();
  });
});
