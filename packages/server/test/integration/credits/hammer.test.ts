import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

const EVENTS = 1000;
const BALANCE = 700; // covers 350 of the 1000 two-credit events

describe(`hammer: ${EVENTS} concurrent ingestions against one hard-limit pool (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let poolId: string;

  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
    const model = await m.creditModel({ denomination: 'hammer', hardLimit: true });
    const feature = await m.feature({ key: 'hammer.f' });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'hammer', name: 'hammer', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=${BALANCE}`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    await m.customer('hot');
    await m.subscribe('hot', plan.id);
    poolId = (await m.expectOk(m.client('GET', '/credits/hot/pools'))).items[0].id;
  });
  after(() => svc.close());

  test('then the balance never goes negative, stored events equal deductions, the chain is unbroken and the audit is clean', async () => {
    const results = await Promise.all(
      Array.from({ length: EVENTS }, (_, i) => m.event({ customerReferenceId: 'hot', featureKey: 'hammer.f', usageUnits: 2, eventIdempotencyKey: `h-${i}` })),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 409 && r.body.error.code === 'insufficient_credits');
    assert.equal(created.length + refused.length, EVENTS, `unexpected answers: ${results.filter((r) => r.status !== 201 && r.status !== 409).map((r) => r.text).slice(0, 3).join(' | ')}`);
    assert.equal(created.length, BALANCE / 2);
    for (const r of created) assert.ok(r.body.data.remainingBalance >= 0);

    const db = svc.ctx.db;
    const stored = await db.selectFrom('usage_events').select((eb) => eb.fn.countAll<string>().as('n')).where('event_type', '=', 'CLIENT_TRACKED').where('event_idempotency_key', 'like', 'h-%').executeTakeFirstOrThrow();
    const deductions = await db.selectFrom('credit_transactions').select([(eb) => eb.fn.countAll<string>().as('n'), sql<string>`coalesce(sum(amount), 0)::text`.as('total')]).where('credit_pool_id', '=', poolId).where('transaction_type', '=', 'DEDUCTION').executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), created.length, 'every stored event has its deduction');
    assert.equal(Number(deductions.n), created.length);
    assert.equal(Number(deductions.total), -BALANCE);

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
