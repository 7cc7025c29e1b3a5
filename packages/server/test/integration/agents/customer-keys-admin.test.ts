import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

type OperatorKey = { id: string; keyHint: string; scopes: string[]; active: boolean; createdAt: string; revokedAt: string | null; lastUsedAt: string | null };

/**
 * The console's customer keys (issue 18; api-contract-agent-v2.md §2.1): the Admin API twin of the
 * Client API's key routes, naming the customer by our internal id.
 */
describe('customer keys on the Admin API (console, issue 18, agent v2 §2.1)', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let account: Awaited<ReturnType<typeof createTestAccount>>;

  const keys = (customerId: string) => `/api/v1/tanso/customers/${customerId}/keys`;
  const admin = (method: string, path: string, body?: unknown) => m.api(method, path, body);
  async function list(customerId: string): Promise<OperatorKey[]> {
    return m.expectOk(admin('GET', keys(customerId)));
  }
  const useKey = (apiKey: string, ref: string) => svc.http.request('GET', `/api/v1/client/customers/${ref}/usage`, { auth: apiKey });
  /** A customer made through the Admin API: its internal id (the path's) and its reference. */
  async function customer(): Promise<{ id: string; ref: string }> {
    const ref = `cust-${randomUUID()}`;
    const c = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: ref, email: `${ref}@example.com` }), 201);
    return { id: c.id, ref };
  }

  before(async () => {
    svc = await startTestService();
    account = await createTestAccount(svc);
    m = monetization(svc, account);
  });
  after(() => svc.close());

  test('when no JWT (or a tenant key) is sent then every key route answers 401', async () => {
    const { id } = await customer();
    const keyId = '018f0000-0000-7000-8000-000000000000';
    const budget = `${keys(id)}/${keyId}/budget`;
    for (const [method, path] of [['GET', keys(id)], ['POST', keys(id)], ['POST', `${keys(id)}/${keyId}/rotate`], ['DELETE', `${keys(id)}/${keyId}`], ['GET', budget], ['PUT', budget], ['DELETE', budget]] as const) {
      for (const auth of [undefined, account.apiKey]) {
        const res = await svc.http.request(method, path, auth ? { auth } : {});
        assert.equal(res.status, 401, `${method} ${path} ${auth ? 'tenant key' : 'no credential'}`);
        assert.equal(res.body.error.code, 'unauthorized');
      }
    }
  });

  test('when a key is created by customer id then it is answered once with the reference, and listed as a bare array without apiKey', async () => {
    const { id, ref } = await customer();
    const issued = await m.expectOk(admin('POST', keys(id), { scopes: ['read', 'purchase'] }), 201);
    assert.match(issued.apiKey, /^ck_test_[0-9a-f]{32}$/);
    assert.equal(issued.customerReferenceId, ref);
    const res = await admin('GET', keys(id));
    assert.equal(res.status, 200, res.text);
    assert.ok(Array.isArray(res.body.data), 'a bare array (base §1.2), no pagination');
    assert.equal(res.body.data.length, 1);
    const [key] = res.body.data as OperatorKey[];
    assert.deepEqual(
      { id: key!.id, keyHint: key!.keyHint, scopes: key!.scopes, active: key!.active, revokedAt: key!.revokedAt, lastUsedAt: key!.lastUsedAt },
      { id: issued.id, keyHint: `ck_test_\u2026${issued.apiKey.slice(-4)}`, scopes: ['read', 'purchase'], active: true, revokedAt: null, lastUsedAt: null },
    );
    assert.equal(Date.parse(key!.createdAt), svc.clock.now().getTime());
    assert.ok(!('apiKey' in key!));
  });

  test('when the key authenticates requests then lastUsedAt follows, at most a minute stale', async () => {
    const { id, ref } = await customer();
    const issued = await m.expectOk(admin('POST', keys(id)), 201);
    const firstUse = svc.clock.now().toISOString();
    assert.equal((await useKey(issued.apiKey, ref)).status, 200);
    assert.equal(Date.parse((await list(id))[0]!.lastUsedAt!), Date.parse(firstUse));
    svc.clock.advanceMs(30_000);
    assert.equal((await useKey(issued.apiKey, ref)).status, 200);
    assert.equal(Date.parse((await list(id))[0]!.lastUsedAt!), Date.parse(firstUse), 'within the minute: not written again');
    svc.clock.advanceMs(31_000);
    assert.equal((await useKey(issued.apiKey, ref)).status, 200);
    assert.equal(Date.parse((await list(id))[0]!.lastUsedAt!), svc.clock.now().getTime());
  });

  test('when a key is rotated then the old one is listed revoked and 401s, the new one works; revoke ends it', async () => {
    const { id, ref } = await customer();
    const first = await m.expectOk(admin('POST', keys(id)), 201);
    const second = await m.expectOk(admin('POST', `${keys(id)}/${first.id}/rotate`));
    assert.notEqual(second.apiKey, first.apiKey);
    assert.equal((await useKey(first.apiKey, ref)).status, 401);
    assert.equal((await useKey(second.apiKey, ref)).status, 200);
    let items = await list(id);
    assert.deepEqual(items.map((k) => [k.id, k.active, k.revokedAt !== null]), [[first.id, false, true], [second.id, true, false]]);

    svc.clock.advanceMs(1_000);
    const revoked = await admin('DELETE', `${keys(id)}/${second.id}`);
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await useKey(second.apiKey, ref)).status, 401);
    items = await list(id);
    assert.equal(items[1]!.active, false);
    assert.equal(Date.parse(items[1]!.revokedAt!), svc.clock.now().getTime());
    const again = await admin('POST', `${keys(id)}/${second.id}/rotate`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'conflict');
  });

  test('when the input is bad then 400 validation_failed; an unknown, malformed or foreign customer id is 404 not_found; an unknown key is 404', async () => {
    const { id } = await customer();
    const bad = [
      await admin('POST', keys(id), { scopes: ['admin'] }),
      await admin('POST', keys(id), { scopes: 'read' }),
      await admin('POST', `${keys(id)}/not-a-uuid/rotate`),
      await admin('DELETE', `${keys(id)}/not-a-uuid`),
    ];
    for (const res of bad) {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'validation_failed');
    }
    assert.deepEqual(await list(id), [], 'a refused create issues nothing');
    const unknown = randomUUID();
    for (const customerId of [unknown, 'not-a-uuid']) {
      for (const [method, path] of [['GET', keys(customerId)], ['POST', keys(customerId)], ['GET', `${keys(customerId)}/${randomUUID()}/budget`]] as const) {
        const res = await admin(method, path);
        assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
        assert.equal(res.body.error.code, 'not_found');
        assert.equal(res.body.error.message, `Customer not found: ${customerId}`);
      }
    }
    const unknownKey = await admin('DELETE', `${keys(id)}/018f0000-0000-7000-8000-000000000000`);
    assert.equal(unknownKey.status, 404);
    assert.equal(unknownKey.body.error.message, 'API key not found: 018f0000-0000-7000-8000-000000000000');
  });

  test('when the customer has no reference then 400 with the original message (a row the API cannot make: set directly)', async () => {
    const { id } = await customer();
    await svc.ctx.db.updateTable('customers').set({ customer_reference_id: '' }).where('id', '=', id).execute();
    for (const [method, path] of [['GET', keys(id)], ['POST', keys(id)], ['PUT', `${keys(id)}/${randomUUID()}/budget`]] as const) {
      const res = await admin(method, path, method === 'PUT' ? { period: 'DAY' } : undefined);
      assert.equal(res.status, 400, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.error.message, 'This customer has no Reference ID. Add one before issuing customer-scoped keys.');
    }
  });

  test('when the customer has many keys then the list holds them all, oldest first', async () => {
    const { id } = await customer();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await m.expectOk(admin('POST', keys(id)), 201)).id);
      svc.clock.advanceMs(1_000);
    }
    assert.deepEqual((await list(id)).map((k) => k.id), ids);
  });

  test("when another account's operator names the customer's id then 404 not_found on every key route, and nothing changes", async () => {
    const { id } = await customer();
    const key = await m.expectOk(admin('POST', keys(id)), 201);
    const other = await createTestAccount(svc);
    const budget = `${keys(id)}/${key.id}/budget`;
    for (const [method, path, body] of [
      ['GET', keys(id)], ['POST', keys(id)], ['POST', `${keys(id)}/${key.id}/rotate`], ['DELETE', `${keys(id)}/${key.id}`],
      ['GET', budget], ['PUT', budget, { period: 'DAY', amountLimit: 1 }], ['DELETE', budget],
    ] as const) {
      const res = await svc.http.request(method, path, { auth: other.token, ...(body ? { body } : {}) });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'not_found');
    }
    const [still] = await list(id);
    assert.deepEqual([still!.id, still!.active], [key.id, true]);
    assert.equal((await m.expectOk(admin('GET', budget))).period, null);
  });
});
