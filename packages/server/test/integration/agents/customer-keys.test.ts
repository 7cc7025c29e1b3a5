import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const KEY_SHAPE = /^ck_test_[0-9a-f]{32}$/;
const HINT_SHAPE = /^ck_test_\u2026[0-9a-f]{4}$/;

describe('customer-scoped key routes (contract §2.4)', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let tenantKey: string;

  const keys = (ref: string) => `/api/v1/client/customers/${encodeURIComponent(ref)}/keys`;
  const as = (key: string, method: string, path: string, body?: unknown) =>
    svc.http.request(method, path, { auth: key, ...(body === undefined ? {} : { body }) });
  const create = (ref: string, body?: unknown) => as(tenantKey, 'POST', keys(ref), body);

  async function issue(ref: string, scopes?: string[]) {
    const res = await create(ref, scopes === undefined ? undefined : { scopes });
    assert.equal(res.status, 201, res.text);
    return res.body.data as { id: string; apiKey: string; scopes: string[]; keyHint: string };
  }

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    tenantKey = account.apiKey;
    m = monetization(svc, account);
  });
  after(() => svc.close());

  test('when a key is created without a body then 201 with the plaintext, read scope and a 1825-day expiry', async () => {
    const { customerReferenceId } = await m.customer();
    const res = await create(customerReferenceId);
    assert.equal(res.status, 201, res.text);
    const key = res.body.data;
    assert.deepEqual(Object.keys(key).sort(), ['active', 'apiKey', 'createdAt', 'customerReferenceId', 'expiresAt', 'id', 'keyHint', 'scopes']);
    assert.match(key.apiKey, KEY_SHAPE);
    assert.equal(key.keyHint, `ck_test_\u2026${key.apiKey.slice(-4)}`);
    assert.equal(key.customerReferenceId, customerReferenceId);
    assert.deepEqual(key.scopes, ['read']);
    assert.equal(key.active, true);
    assert.equal(Date.parse(key.createdAt), svc.clock.now().getTime());
    assert.equal(Date.parse(key.expiresAt) - Date.parse(key.createdAt), 1825 * 86_400_000);
  });

  test('when both scopes are asked for, repeated and out of order, then the key has read and purchase', async () => {
    const { customerReferenceId } = await m.customer();
    assert.deepEqual((await issue(customerReferenceId, ['purchase', 'read', 'purchase'])).scopes, ['read', 'purchase']);
    assert.deepEqual((await issue(customerReferenceId, [])).scopes, ['read']);
  });

  test('when a scope is unknown then 400 with the contract message and no key is issued', async () => {
    const { customerReferenceId } = await m.customer();
    const res = await create(customerReferenceId, { scopes: ['read', 'admin'] });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'validation_failed');
    assert.equal(res.body.error.message, "Unknown scope 'admin' — allowed: [read, purchase]");
    const list = await as(tenantKey, 'GET', keys(customerReferenceId));
    assert.equal(list.body.data.pagination.total, 0);
  });

  test('when the customer reference is unknown then 404 Customer not found', async () => {
    for (const [method, path] of [
      ['POST', keys('nobody')],
      ['GET', keys('nobody')],
      ['POST', `${keys('nobody')}/018f0000-0000-7000-8000-000000000000/rotate`],
      ['DELETE', `${keys('nobody')}/018f0000-0000-7000-8000-000000000000`],
    ] as const) {
      const res = await as(tenantKey, method, path);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.message, 'Customer not found: nobody');
    }
  });

  test('when a key is created then it works at once on a customer-key route and is pinned to its customer', async () => {
    const alice = await m.customer();
    const bob = await m.customer();
    const { apiKey } = await issue(alice.customerReferenceId);
    const own = await as(apiKey, 'GET', `/api/v1/client/customers/${alice.customerReferenceId}`);
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.data.customerReferenceId, alice.customerReferenceId);
    const other = await as(apiKey, 'GET', `/api/v1/client/customers/${bob.customerReferenceId}`);
    assert.equal(other.status, 403);
    assert.equal(other.body.error.message, 'This API key is scoped to another customer');
  });

  test('when keys are listed then hints only, revoked ones inactive, oldest first, paginated', async () => {
    const { customerReferenceId } = await m.customer();
    const issued = [];
    for (let i = 0; i < 3; i++) {
      issued.push(await issue(customerReferenceId, i === 1 ? ['read', 'purchase'] : undefined));
      svc.clock.advanceMs(1000);
    }
    assert.equal((await as(tenantKey, 'DELETE', `${keys(customerReferenceId)}/${issued[0]!.id}`)).status, 200);

    const all = await as(tenantKey, 'GET', keys(customerReferenceId));
    assert.equal(all.status, 200, all.text);
    const { items, pagination } = all.body.data;
    assert.deepEqual(pagination, { total: 3, limit: 50, offset: 0, hasMore: false });
    assert.deepEqual(items.map((k: { id: string }) => k.id), issued.map((k) => k.id));
    for (const item of items) {
      assert.equal('apiKey' in item, false);
      assert.match(item.keyHint, HINT_SHAPE);
      assert.ok(!all.text.includes(issued[0]!.apiKey.slice(8, 28)));
    }
    assert.deepEqual(items.map((k: { active: boolean }) => k.active), [false, true, true]);
    assert.deepEqual(items[1].scopes, ['read', 'purchase']);

    const page = await as(tenantKey, 'GET', `${keys(customerReferenceId)}?limit=2&offset=1`);
    assert.deepEqual(page.body.data.items.map((k: { id: string }) => k.id), [issued[1]!.id, issued[2]!.id]);
    assert.deepEqual(page.body.data.pagination, { total: 3, limit: 2, offset: 1, hasMore: false });
    const first = await as(tenantKey, 'GET', `${keys(customerReferenceId)}?limit=1`);
    assert.equal(first.body.data.pagination.hasMore, true);
  });

  test('when a key has expired then it is listed inactive and can be rotated into a working key', async () => {
    const { customerReferenceId } = await m.customer();
    const old = await issue(customerReferenceId, ['read', 'purchase']);
    svc.clock.advanceMs(1826 * 86_400_000);
    try {
      assert.equal((await as(old.apiKey, 'GET', `/api/v1/client/customers/${customerReferenceId}`)).status, 401);
      const listed = await as(tenantKey, 'GET', keys(customerReferenceId));
      assert.equal(listed.body.data.items[0].active, false);
      const rotated = await as(tenantKey, 'POST', `${keys(customerReferenceId)}/${old.id}/rotate`);
      assert.equal(rotated.status, 200, rotated.text);
      assert.deepEqual(rotated.body.data.scopes, ['read', 'purchase']);
      assert.equal((await as(rotated.body.data.apiKey, 'GET', `/api/v1/client/customers/${customerReferenceId}`)).status, 200);
    } finally {
      svc.clock.advanceMs(-1826 * 86_400_000);
    }
  });

  test('when a key is rotated then the old key is 401 at once, the new one works with the same scopes, and siblings are untouched', async () => {
    const { customerReferenceId } = await m.customer();
    const old = await issue(customerReferenceId, ['read', 'purchase']);
    const sibling = await issue(customerReferenceId);
    const read = (key: string) => as(key, 'GET', `/api/v1/client/customers/${customerReferenceId}`);
    assert.equal((await read(old.apiKey)).status, 200);

    const res = await as(tenantKey, 'POST', `${keys(customerReferenceId)}/${old.id}/rotate`);
    assert.equal(res.status, 200, res.text);
    const replacement = res.body.data;
    assert.notEqual(replacement.id, old.id);
    assert.match(replacement.apiKey, KEY_SHAPE);
    assert.notEqual(replacement.apiKey, old.apiKey);
    assert.deepEqual(replacement.scopes, ['read', 'purchase']);
    assert.equal(replacement.active, true);
    assert.equal(replacement.customerReferenceId, customerReferenceId);

    const oldAnswer = await read(old.apiKey);
    assert.equal(oldAnswer.status, 401);
    assert.equal(oldAnswer.body.error.message, 'Invalid API key');
    assert.equal((await read(replacement.apiKey)).status, 200);
    assert.equal((await read(sibling.apiKey)).status, 200);

    const listed = await as(tenantKey, 'GET', keys(customerReferenceId));
    const byId = new Map(listed.body.data.items.map((k: { id: string; active: boolean }) => [k.id, k.active]));
    assert.deepEqual([byId.get(old.id), byId.get(sibling.id), byId.get(replacement.id)], [false, true, true]);
  });

  test('when a revoked key is rotated then 409 and no key is issued', async () => {
    const { customerReferenceId } = await m.customer();
    const key = await issue(customerReferenceId);
    await as(tenantKey, 'DELETE', `${keys(customerReferenceId)}/${key.id}`);
    const res = await as(tenantKey, 'POST', `${keys(customerReferenceId)}/${key.id}/rotate`);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.message, `API key is revoked and cannot be rotated: ${key.id}`);
    assert.equal((await as(tenantKey, 'GET', keys(customerReferenceId))).body.data.pagination.total, 1);
  });

  test('when the same key is rotated twice at once then one rotation wins and the other is 409', async () => {
    const { customerReferenceId } = await m.customer();
    const key = await issue(customerReferenceId, ['read', 'purchase']);
    const answers = await Promise.all([0, 1].map(() => as(tenantKey, 'POST', `${keys(customerReferenceId)}/${key.id}/rotate`)));
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409], answers.map((r) => r.text).join('\n'));
    const listed = (await as(tenantKey, 'GET', keys(customerReferenceId))).body.data;
    assert.equal(listed.pagination.total, 2);
    assert.deepEqual(listed.items.map((k: { active: boolean }) => k.active), [false, true]);
  });

  test('when a create is retried with the same Idempotency-Key then the same key is answered and only one is issued', async () => {
    const { customerReferenceId } = await m.customer();
    const send = () => svc.http.post(keys(customerReferenceId), { auth: tenantKey, body: { scopes: ['read'] }, headers: { 'idempotency-key': `create-${customerReferenceId}` } });
    const first = await send();
    const second = await send();
    assert.equal(first.status, 201, first.text);
    assert.equal(second.status, 201, second.text);
    assert.equal(second.body.data.apiKey, first.body.data.apiKey);
    assert.equal(second.body.data.id, first.body.data.id);
    assert.equal((await as(tenantKey, 'GET', keys(customerReferenceId))).body.data.pagination.total, 1);
  });

  test('when a key is revoked then it is 401 at once, and revoking it again is 200 with no data', async () => {
    const { customerReferenceId } = await m.customer();
    const key = await issue(customerReferenceId);
    const sibling = await issue(customerReferenceId);
    for (let i = 0; i < 2; i++) {
      const res = await as(tenantKey, 'DELETE', `${keys(customerReferenceId)}/${key.id}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { success: true });
    }
    const denied = await as(key.apiKey, 'GET', `/api/v1/client/customers/${customerReferenceId}`);
    assert.equal(denied.status, 401);
    assert.equal((await as(sibling.apiKey, 'GET', `/api/v1/client/customers/${customerReferenceId}`)).status, 200);
  });

  test("when a key id of another customer or another account is named then 404 API key not found and the key keeps working", async () => {
    const alice = await m.customer();
    const bob = await m.customer();
    const bobs = await issue(bob.customerReferenceId);
    const other = await createTestAccount(svc);
    const om = monetization(svc, other);
    const carol = await om.customer();
    const carols = (await as(other.apiKey, 'POST', keys(carol.customerReferenceId))).body.data;

    for (const [ref, keyId, auth] of [
      [alice.customerReferenceId, bobs.id, tenantKey],
      [alice.customerReferenceId, carols.id, tenantKey],
      [carol.customerReferenceId, bobs.id, other.apiKey],
    ] as const) {
      for (const [method, path] of [['POST', `${keys(ref)}/${keyId}/rotate`], ['DELETE', `${keys(ref)}/${keyId}`]] as const) {
        const res = await as(auth, method, path);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(res.body.error.message, `API key not found: ${keyId}`);
      }
    }
    assert.equal((await as(bobs.apiKey, 'GET', `/api/v1/client/customers/${bob.customerReferenceId}`)).status, 200);
    assert.equal((await as(carols.apiKey, 'GET', `/api/v1/client/customers/${carol.customerReferenceId}`)).status, 200);
    assert.equal((await as(tenantKey, 'GET', keys(carol.customerReferenceId))).status, 404);
  });

  test('when a customer key calls the key routes, even for its own customer, then 403 Access denied', async () => {
    const { customerReferenceId } = await m.customer();
    const key = await issue(customerReferenceId, ['read', 'purchase']);
    for (const [method, path] of [
      ['POST', keys(customerReferenceId)],
      ['GET', keys(customerReferenceId)],
      ['POST', `${keys(customerReferenceId)}/${key.id}/rotate`],
      ['DELETE', `${keys(customerReferenceId)}/${key.id}`],
    ] as const) {
      const res = await as(key.apiKey, method, path);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal(res.body.error.message, 'Access denied');
    }
    assert.equal((await as(key.apiKey, 'GET', `/api/v1/client/customers/${customerReferenceId}`)).status, 200);
  });

  test('when the tenant key is a live key then customer keys are issued as ck_live_', async () => {
    const live = await createTestAccount(svc);
    const { rotateTenantKey } = await import('../../../src/modules/accounts/service.js');
    const previous = svc.ctx.config.apiKeyEnvironment;
    // The account's tenant key decides, not the configuration: rotate it under a live configuration.
    const liveCtx = { ...svc.ctx, config: { ...svc.ctx.config, apiKeyEnvironment: 'live' as const } };
    const { apiKey: liveTenantKey } = await rotateTenantKey(liveCtx, live.accountId);
    assert.equal(previous, 'test');
    assert.match(liveTenantKey, /^sk_live_/);
    await as(liveTenantKey, 'POST', '/api/v1/client/customers', { customerReferenceId: 'live-cust', email: 'l@example.com' });
    const res = await as(liveTenantKey, 'POST', keys('live-cust'));
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.data.apiKey, /^ck_live_[0-9a-f]{32}$/);
    assert.match(res.body.data.keyHint, /^ck_live_\u2026/);
    assert.equal((await as(res.body.data.apiKey, 'GET', '/api/v1/client/customers/live-cust')).status, 200);
  });
});
