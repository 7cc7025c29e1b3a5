import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** GET /api/v1/tanso/customers/{ref}/entitlements: the console's read of the entitlement list. */
describe('entitlement list on the Admin API (console, issue 18)', () => {
  let svc: TestService;
  let account: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  const path = (ref: string, query = '') => `/api/v1/tanso/customers/${ref}/entitlements${query}`;

  before(async () => {
    svc = await startTestService({ now: '2027-01-10T09:00:00Z' });
    account = await createTestAccount(svc);
    m = monetization(svc, account);
    const chat = await m.feature({ key: 'chat' });
    const images = await m.feature({ key: 'images' });
    const paid = await m.activePlan({ price: 30, features: [{ id: chat.id }, { id: images.id }] });
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: paid.id, featureId: images.id, isEnabled: false }));
    const free = await m.activePlan({ price: 0, features: [{ id: images.id }] });
    await m.customer('ent_admin');
    await m.subscribe('ent_admin', free.id);
    const sub = await m.subscribe('ent_admin', paid.id);
    await m.markPaid(sub.invoice.id);
  });
  after(() => svc.close());

  test('when no JWT (or a tenant key) is sent then 401', async () => {
    for (const auth of [undefined, account.apiKey]) {
      const res = await svc.http.request('GET', path('ent_admin'), auth ? { auth } : {});
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'unauthorized');
    }
  });

  test('when the operator lists them then they are the Client API’s list: per subscription, a disabled rule not allowed', async () => {
    const admin = await m.expectOk(m.api('GET', path('ent_admin')));
    const client = await m.expectOk(m.client('GET', '/entitlements/ent_admin'));
    assert.deepEqual(admin, client);
    assert.equal(admin.pagination.total, 2);
    assert.deepEqual(admin.items.map((s: any) => s.entitlements), [[{ featureKey: 'images', allowed: true }], [{ featureKey: 'chat', allowed: true }, { featureKey: 'images', allowed: false }]]);
  });

  test('when paged then one subscription per page with hasMore', async () => {
    const first = await m.expectOk(m.api('GET', path('ent_admin', '?limit=1')));
    assert.equal(first.items.length, 1);
    assert.deepEqual(first.pagination, { total: 2, limit: 1, offset: 0, hasMore: true });
    const second = await m.expectOk(m.api('GET', path('ent_admin', '?limit=1&offset=1')));
    assert.notEqual(second.items[0].subscriptionId, first.items[0].subscriptionId);
    assert.equal(second.pagination.hasMore, false);
  });

  test('when the page values are bad then 400; an unknown customer is 404', async () => {
    for (const query of ['?limit=0', '?offset=-1', '?limit=x']) {
      const res = await m.api('GET', path('ent_admin', query));
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'validation_failed');
    }
    const unknown = await m.api('GET', path('nobody'));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.message, 'Customer not found: nobody');
  });
});
