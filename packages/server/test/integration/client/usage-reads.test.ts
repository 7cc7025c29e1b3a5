import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Tally, TallyError } from '@tally/client';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** @tally/client's usage reads (issue 35 §6) against a real server: the tenant's and a customer key's own. */
describe('@tally/client usage reads', () => {
  let svc: TestService;
  let tally: Tally;
  let customerKey: string;

  before(async () => {
    svc = await startTestService({ now: '2026-09-15T12:00:00Z' });
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const feature = await m.feature({ key: 'ai.chat' });
    const plan = await m.activePlan({ key: 'free', price: 0, features: [{ id: feature.id }] });
    await m.customer('ada');
    await m.subscribe('ada', plan.id);
    for (const [key, at] of [['e-1', '2026-09-10T08:00:00Z'], ['e-2', '2026-09-11T08:00:00Z']]) {
      const res = await m.event({ customerReferenceId: 'ada', featureKey: 'ai.chat', eventName: 'chat.completion', usageUnits: '1.5', occurredAt: at, eventIdempotencyKey: key });
      assert.ok(res.status < 300, res.text);
    }
    customerKey = await m.customerKey('ada', ['read']);
    tally = new Tally({ apiKey: acct.apiKey, baseUrl: svc.baseUrl });
  });
  after(() => svc.close());

  test('when the tenant reads events and history then pages and sums come back typed', async () => {
    const page = await tally.customers.usageEvents('ada', { limit: 1 });
    assert.deepEqual(page.items.map((e) => e.eventIdempotencyKey), ['e-2']);
    assert.deepEqual(page.pagination, { total: 2, limit: 1, offset: 0, hasMore: true });
    const history = await tally.customers.usageHistory('ada', { from: '2026-09-01T00:00:00Z', to: '2026-09-15T00:00:00Z', featureKey: 'ai.chat' });
    assert.deepEqual(history.usage.map((r) => [r.planKey, r.featureKey, r.eventName, String(r.usageUnits), r.events]), [['free', 'ai.chat', 'chat.completion', '3', 2]]);
  });

  test('when a customer key reads its own usage then it needs no reference; a bad window is a TallyError 400', async () => {
    const own = Tally.forCustomer(customerKey, { baseUrl: svc.baseUrl, customerReferenceId: 'ada' });
    assert.equal((await own.usageEvents({ from: '2026-09-11T00:00:00Z' })).pagination.total, 1);
    assert.equal((await own.usageHistory({ from: '2026-09-01T00:00:00Z', to: '2026-09-15T00:00:00Z' })).customerReferenceId, 'ada');
    await assert.rejects(own.usageHistory({ from: '2025-01-01T00:00:00Z', to: '2026-09-15T00:00:00Z' }), (err: unknown) => {
      assert.ok(err instanceof TallyError);
      assert.equal(err.status, 400);
      assert.equal(err.message, 'The window may span at most 366 days');
      return true;
    });
  });
});
