import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

describe(`concurrent ingestion (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let featureKey: string;

  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature();
    featureKey = feature.key;
    const plan = await m.activePlan({
      price: 0,
      features: [{ id: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 0.01, max_usage: 20 } } }],
    });
    await m.customer('conc_1');
    await m.subscribe('conc_1', plan.id);
  });
  after(() => svc.close());

  test('when 50 events race against a cap of 20 then exactly 20 units are counted and the rest are stored zeroed', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => m.event({ customerReferenceId: 'conc_1', featureKey, usageUnits: 1, eventIdempotencyKey: `race-${i}` })),
    );
    const accepted = results.filter((r) => r.status === 201).length;
    const zeroed = results.filter((r) => r.status === 200 && r.body.data.usageLimitExceeded).length;
    assert.equal(accepted, 20);
    assert.equal(zeroed, 30);
    const check = await m.check('conc_1', featureKey);
    assert.deepEqual(check.usage, { used: 20, limit: 20, remaining: 0, unlimited: false });
    const events = await m.expectOk(m.api('GET', `/api/v1/tanso/events?customerReferenceId=conc_1&eventType=CLIENT_TRACKED&limit=200`));
    assert.equal(events.pagination.total, 50, 'every event is stored');
    const units = events.items.reduce((sum: number, e: any) => sum + e.usageUnits, 0);
    assert.equal(units, 20, 'stored usage never exceeds max_usage');
  });

  test('when 20 duplicates of one key race then one event is stored and the others get 409', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => m.event({ customerReferenceId: 'conc_1', featureKey: 'other.feature', usageUnits: 3, eventIdempotencyKey: 'dup-key' })),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 1);
    assert.equal(results.filter((r) => r.status === 409 && r.body.error.code === 'conflict').length, 19);
    const events = await m.expectOk(m.api('GET', `/api/v1/tanso/events?customerReferenceId=conc_1&featureKey=other.feature`));
    assert.equal(events.pagination.total, 1);
  });
});
