import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

describe('customer-scoped keys on monetization routes', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let readKey: string;
  let buyKey: string;
  let featureKey: string;
  let planId: string;

  async function issueKey(customerRef: string, scopes: string[]) {
    return (await m.expectOk(m.client('POST', `/customers/${customerRef}/keys`, { scopes }), 201)).apiKey as string;
  }

  before(async () => {
    svc = await startTestService();
    const acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const feature = await m.feature();
    featureKey = feature.key;
    planId = (await m.activePlan({ price: 0, features: [{ id: feature.id }] })).id;
    await m.customer('alice');
    await m.customer('bob');
    readKey = await issueKey('alice', ['read']);
    buyKey = await issueKey('alice', ['read', 'purchase']);
  });
  after(() => svc.close());

  const as = (key: string, method: string, path: string, body?: unknown) =>
    svc.http.request(method, `/api/v1/client${path}`, { auth: key, ...(body === undefined ? {} : { body }) });

  test('when a customer key reads its own customer then 200, and another customer then 403', async () => {
    assert.equal((await as(readKey, 'GET', '/customers/alice')).status, 200);
    const other = await as(readKey, 'GET', '/customers/bob');
    assert.equal(other.status, 403);
    assert.equal(other.body.error.message, 'This API key is scoped to another customer');
    assert.equal((await as(readKey, 'GET', `/entitlements/bob/${featureKey}`)).status, 403);
  });

  test('when a customer key subscribes then it needs the purchase scope and may omit its reference', async () => {
    const denied = await as(readKey, 'POST', '/subscriptions', { planId });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, 'scope_denied');
    assert.equal(denied.body.error.message, "This API key lacks the 'purchase' scope");
    const res = await as(buyKey, 'POST', '/subscriptions', { planId });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.subscription.customerReferenceId, 'alice');
    const check = await as(readKey, 'GET', `/entitlements/alice/${featureKey}`);
    assert.equal(check.body.data.allowed, true);
  });

  test('when a customer key sends an event naming another customer then the event is recorded for its own', async () => {
    const res = await as(readKey, 'POST', '/events', { eventName: 'x', customerReferenceId: 'bob', featureKey, usageUnits: 2, eventIdempotencyKey: 'ck-ev-1' });
    assert.equal(res.status, 201, res.text);
    const events = await m.expectOk(m.api('GET', '/api/v1/tanso/events?eventType=CLIENT_TRACKED&customerReferenceId=alice'));
    assert.equal(events.items[0].eventIdempotencyKey, 'ck-ev-1');
  });

  test('when a customer key calls tenant-only routes then 403 Access denied', async () => {
    for (const [method, path] of [
      ['GET', '/plans'],
      ['POST', '/customers'],
      ['GET', '/billing/invoices/alice'],
      ['GET', '/features'],
    ] as const) {
      const res = await as(buyKey, method, path, method === 'POST' ? { customerReferenceId: 'z', email: 'z@example.com' } : undefined);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.error.message, 'Access denied');
    }
  });

  test("when a customer key cancels another customer's subscription then 403", async () => {
    const bobs = await m.subscribe('bob', planId);
    const res = await as(buyKey, 'POST', `/subscriptions/cancellation/${bobs.subscription.id}`);
    assert.equal(res.status, 403);
  });
});
