import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const DAY = 86_400_000;

/** GET /api/v1/client/entitlements/{ref} (contract §4.9, §2.6): one item per active subscription. */
describe('entitlement list', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let chat: string;
  let images: string;
  let paidPlanId: string;
  let freePlanId: string;

  before(async () => {
    svc = await startTestService({ now: '2027-01-10T09:00:00Z' });
    m = monetization(svc, await createTestAccount(svc));
    const a = await m.feature();
    const b = await m.feature();
    chat = a.key;
    images = b.key;
    paidPlanId = (await m.activePlan({ price: 30, features: [{ id: a.id }, { id: b.id }] })).id;
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: paidPlanId, featureId: b.id, isEnabled: false }));
    freePlanId = (await m.activePlan({ price: 0, features: [{ id: b.id }] })).id;
  });
  after(() => svc.close());

  const list = (ref: string, query = '') => m.expectOk(m.client('GET', `/entitlements/${ref}${query}`));

  test('when the first invoice is unpaid then nothing is listed, and once paid the plan features are, a disabled rule not allowed', async () => {
    await m.customer('ent_1');
    const sub = await m.subscribe('ent_1', paidPlanId);
    assert.deepEqual(await list('ent_1'), { items: [], pagination: { total: 0, limit: 50, offset: 0, hasMore: false } });
    await m.markPaid(sub.invoice.id);
    const page = await list('ent_1');
    assert.deepEqual(page.items, [
      { subscriptionId: sub.subscription.id, entitlements: [{ featureKey: chat, allowed: true }, { featureKey: images, allowed: false }] },
    ]);
    assert.equal((await m.check('ent_1', images)).allowed, false, 'the single check agrees on the disabled rule');
  });

  test('when an invoice goes past due then every entitlement of the subscription is listed not allowed', async () => {
    svc.clock.set('2027-02-10T01:00:00Z');
    await svc.scheduler.run('subscription-cycle');
    const due = (await m.invoices('ent_1')).items.find((i: any) => i.status === 'DUE');
    svc.clock.set(new Date(new Date(due.dueDate).getTime() + 4 * DAY).toISOString());
    await svc.scheduler.run('invoice-due');
    const page = await list('ent_1');
    assert.deepEqual(page.items[0].entitlements, [{ featureKey: chat, allowed: false }, { featureKey: images, allowed: false }]);
    await m.markPaid(due.id);
    assert.equal((await list('ent_1')).items[0].entitlements[0].allowed, true, 'paying restores them');
  });

  test('when a customer holds two active subscriptions then they page oldest first', async () => {
    await m.customer('ent_2');
    const free = await m.subscribe('ent_2', freePlanId);
    const paid = await m.subscribe('ent_2', paidPlanId);
    await m.markPaid(paid.invoice.id);
    const first = await list('ent_2', '?limit=1');
    assert.deepEqual(first.pagination, { total: 2, limit: 1, offset: 0, hasMore: true });
    assert.deepEqual(first.items, [{ subscriptionId: free.subscription.id, entitlements: [{ featureKey: images, allowed: true }] }]);
    const second = await list('ent_2', '?limit=1&offset=1');
    assert.equal(second.items[0].subscriptionId, paid.subscription.id);
    assert.equal(second.pagination.hasMore, false);
  });

  test('when a customer key lists then only its own customer, another is 403, an unknown customer 404 and a bad limit 400', async () => {
    const key = await m.customerKey('ent_2', ['read']);
    const own = await svc.http.get('/api/v1/client/entitlements/ent_2', { auth: key });
    assert.equal(own.status, 200, own.text);
    assert.deepEqual(own.body.data, await list('ent_2'));
    const other = await svc.http.get('/api/v1/client/entitlements/ent_1', { auth: key });
    assert.equal(other.status, 403);
    assert.equal(other.body.error.message, 'This API key is scoped to another customer');
    const unknown = await m.client('GET', '/entitlements/nobody');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
    const bad = await m.client('GET', '/entitlements/ent_2?limit=0');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'validation_failed');
  });
});
