import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

describe('billing story: define, subscribe, check, meter, pay', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  before(async () => {
    svc = await startTestService({ now: '2026-01-31T15:20:00Z' });
    m = monetization(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  test('when a plan is created then it is DRAFT whatever status was sent', async () => {
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'sneaky', status: 'ACTIVE', name: 'Sneaky' }), 201);
    assert.equal(plan.status, 'DRAFT');
  });

  test('when a bare plan is activated then one 400 lists every missing part in fields[], the contract message first', async () => {
    const bare = await m.expectOk(m.admin('POST', '/plans', { key: 'all-missing', name: 'All missing' }), 201);
    const res = await m.admin('PATCH', `/plans/${bare.id}`, { status: 'ACTIVE' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'validation_failed');
    assert.equal(res.body.error.message, 'Plan must have a description before activation');
    assert.deepEqual(
      res.body.error.fields.map((f: { field: string }) => f.field),
      ['description', 'intervalMonths', 'priceAmount', 'features'],
    );
    for (const f of res.body.error.fields) assert.match(f.message, /before activation: \S/, `${f.field} says how to meet it`);
    await m.expectOk(m.admin('PATCH', `/plans/${bare.id}`, { description: 'Now described', intervalMonths: 1, priceAmount: 0 }));
    const featureOnly = await m.admin('PATCH', `/plans/${bare.id}`, { status: 'ACTIVE' });
    assert.deepEqual(featureOnly.body.error.fields.map((f: { field: string }) => f.field), ['features']);
    assert.equal((await m.expectOk(m.admin('GET', `/plans/${bare.id}`))).status, 'DRAFT');
  });

  test('when activation lacks a description or a linked feature then 400 names what is missing', async () => {
    const bare = await m.expectOk(m.admin('POST', '/plans', { key: 'bare', name: 'Bare', priceAmount: 10, intervalMonths: 1 }), 201);
    const noDescription = await m.admin('PATCH', `/plans/${bare.id}`, { status: 'ACTIVE' });
    assert.equal(noDescription.status, 400);
    assert.equal(noDescription.body.error.message, 'Plan must have a description before activation');
    await m.expectOk(m.admin('PATCH', `/plans/${bare.id}`, { description: 'Has one now' }));
    const noFeature = await m.admin('PATCH', `/plans/${bare.id}`, { status: 'ACTIVE' });
    assert.equal(noFeature.status, 400);
    assert.equal(noFeature.body.error.message, 'Plan must have at least one linked feature before activation');
    const still = await m.expectOk(m.admin('GET', `/plans/${bare.id}`));
    assert.equal(still.status, 'DRAFT');
  });

  test('when a usage rule lacks price_per_unit or usage_unit_type then 400 names the field', async () => {
    const feature = await m.feature();
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'rules', name: 'Rules' }), 201);
    for (const [value, field] of [
      [{ pricing: { model: 'usage', usage_unit_type: 'calls' } }, 'price_per_unit'],
      [{ pricing: { model: 'usage', price_per_unit: 0.5 } }, 'usage_unit_type'],
    ] as const) {
      const res = await m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, value });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.message, `${field} is required`);
      assert.equal(res.body.error.fields[0].field, `value.pricing.${field}`);
    }
  });

  test('full story: subscribe, denied unpaid, pay, allowed, meter with revenue and cost, limit, duplicate', async () => {
    const feature = await m.feature({ key: 'ai.chat' });
    const plan = await m.activePlan({
      price: 30,
      features: [{ id: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.002, max_usage: 100 }, cost: { model: 'simple', cost_per_unit: 0.0005 } } }],
    });
    assert.equal(plan.status, 'ACTIVE');
    const draft = await m.expectOk(m.admin('POST', '/plans', { key: 'draft-only', name: 'Draft only' }), 201);
    await m.customer('user_1');
    const refused = await m.client('POST', '/subscriptions', { customerReferenceId: 'user_1', planId: draft.id });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.message, 'Cannot subscribe to plan: status is DRAFT, only ACTIVE plans accept subscriptions');

    const sub = await m.subscribe('user_1', plan.id);
    assert.equal(sub.subscription.isActive, false);
    assert.equal(sub.subscription.status, 'PENDING_PAYMENT');
    assert.equal(sub.subscription.currentPeriodStart, '2026-01-31T00:00:00.000Z');
    assert.equal(sub.subscription.currentPeriodEnd, '2026-02-28T00:00:00.000Z');
    assert.equal(sub.invoice.status, 'DUE');
    assert.equal(sub.invoice.type, 'IN_ADVANCE_INITIAL');
    assert.equal(sub.invoice.amount, 30);

    const unpaid = await m.check('user_1', 'ai.chat');
    assert.equal(unpaid.allowed, false);
    assert.deepEqual(unpaid.meta.reason, { code: 'NO_SUBSCRIPTION', description: 'No active subscription' });

    const paid = await m.markPaid(sub.invoice.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.subscription.id, sub.subscription.id, 'the invoice nests its subscription');
    assert.equal(paid.subscription.isActive, true);
    const allowed = await m.check('user_1', 'ai.chat');
    assert.equal(allowed.allowed, true);
    assert.equal(allowed.meta, null);
    assert.deepEqual(allowed.usage, { used: 0, limit: 100, remaining: 100, unlimited: false });

    const first = await m.event({ eventIdempotencyKey: 'msg_001', customerReferenceId: 'user_1', featureKey: 'ai.chat', usageUnits: 60 });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.eventIdempotencyKey, 'msg_001');
    const stored = await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=user_1&eventType=CLIENT_TRACKED'));
    assert.equal(stored.items.length, 1);
    assert.equal(stored.items[0].usageUnits, 60);
    assert.equal(stored.items[0].revenueAmount, 0.12, 'revenue = 60 x 0.002, computed at ingestion');
    assert.equal(stored.items[0].costAmount, 0.03, 'cost = 60 x 0.0005 from the rule cost model');
    const checks = await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=user_1&eventType=ENTITLEMENT_CHECKED'));
    assert.equal(checks.pagination.total, 2, 'each GET check is recorded as an ENTITLEMENT_CHECKED event');

    const dup = await m.event({ eventIdempotencyKey: 'msg_001', customerReferenceId: 'user_1', featureKey: 'ai.chat', usageUnits: 5 });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, 'conflict');

    const over = await m.event({ eventIdempotencyKey: 'msg_002', customerReferenceId: 'user_1', featureKey: 'ai.chat', usageUnits: 50 });
    assert.equal(over.status, 200);
    assert.equal(over.body.data.usageLimitExceeded, true);
    const firstKept = await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=user_1&eventType=CLIENT_TRACKED'));
    assert.equal(firstKept.items.find((e: any) => e.eventIdempotencyKey === 'msg_001').usageUnits, 60, 'the duplicate left the first event untouched');
    const fill = await m.event({ eventIdempotencyKey: 'msg_003', customerReferenceId: 'user_1', featureKey: 'ai.chat', usageUnits: 40 });
    assert.equal(fill.status, 201);
    const limited = await m.check('user_1', 'ai.chat');
    assert.equal(limited.allowed, false);
    assert.equal(limited.meta.reason.code, 'USAGE_LIMIT_EXCEEDED');
    assert.deepEqual(limited.usage, { used: 100, limit: 100, remaining: 0, unlimited: false });
  });
});
