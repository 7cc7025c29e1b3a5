import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../../src/platform/ids.js';
import { generateKey, hashKey, keyHint } from '../../../src/platform/security/api-keys.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

describe('customer-scoped keys on monetization routes', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let readKey: string;
  let buyKey: string;
  let featureKey: string;
  let planId: string;

  /** Customer keys are issued by the agent surface (a later issue); here the row is written directly. */
  async function issueKey(accountId: string, customerRef: string, scopes: string[]) {
    const customer = await svc.ctx.db.selectFrom('customers').select('id').where('account_id', '=', accountId).where('customer_reference_id', '=', customerRef).executeTakeFirstOrThrow();
    const key = generateKey('customer', 'test');
    await svc.ctx.db
      .insertInto('api_keys')
      .values({ id: newId(), account_id: accountId, kind: 'CUSTOMER', customer_id: customer.id, scopes, key_hash: hashKey(key), key_hint: keyHint(key), created_at: svc.clock.now(), expires_at: null, revoked_at: null })
      .execute();
    return key;
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
    readKey = await issueKey(acct.accountId, 'alice', ['read']);
    buyKey = await issueKey(acct.accountId, 'alice', ['read', 'purchase']);
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
