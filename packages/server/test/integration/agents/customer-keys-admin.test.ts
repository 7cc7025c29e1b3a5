import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

type OperatorKey = { id: string; keyHint: string; scopes: string[]; active: boolean; createdAt: string; revokedAt: string | null; lastUsedAt: string | null };

describe('customer keys on the Admin API (console, issue 18)', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let account: Awaited<ReturnType<typeof createTestAccount>>;

  const keys = (ref: string) => `/api/v1/tanso/customers/${encodeURIComponent(ref)}/keys`;
  const admin = (method: string, path: string, body?: unknown) => m.api(method, path, body);
  async function list(ref: string, query = ''): Promise<{ items: OperatorKey[]; pagination: { total: number; hasMore: boolean } }> {
    return m.expectOk(admin('GET', `${keys(ref)}${query}`));
  }
  const useKey = (apiKey: string, ref: string) => svc.http.request('GET', `/api/v1/client/customers/${ref}/usage`, { auth: apiKey });

  before(async () => {
    svc = await startTestService();
    account = await createTestAccount(svc);
    m = monetization(svc, account);
  });
  after(() => svc.close());

  test('when no JWT (or a tenant key) is sent then every key route answers 401', async () => {
    const { customerReferenceId: ref } = await m.customer();
    const keyId = '018f0000-0000-7000-8000-000000000000';
    for (const [method, path] of [['GET', keys(ref)], ['POST', keys(ref)], ['POST', `${keys(ref)}/${keyId}/rotate`], ['DELETE', `${keys(ref)}/${keyId}`]] as const) {
      for (const auth of [undefined, account.apiKey]) {
        const res = await svc.http.request(method, path, auth ? { auth } : {});
        assert.equal(res.status, 401, `${method} ${path} ${auth ? 'tenant key' : 'no credential'}`);
        assert.equal(res.body.error.code, 'unauthorized');
      }
    }
  });

  test('when a key is created then it is answered once and listed with hint, scopes, created, never used, not revoked', async () => {
    const { customerReferenceId: ref } = await m.customer();
    const issued = await m.expectOk(admin('POST', keys(ref), { scopes: ['read', 'purchase'] }), 201);
    assert.match(issued.apiKey, /^ck_test_[0-9a-f]{32}$/);
    const page = await list(ref);
    assert.equal(page.pagination.total, 1);
    const [key] = page.items;
    assert.deepEqual(
      { id: key!.id, keyHint: key!.keyHint, scopes: key!.scopes, active: key!.active, revokedAt: key!.revokedAt, lastUsedAt: key!.lastUsedAt },
      { id: issued.id, keyHint: `ck_test_\u2026${issued.apiKey.slice(-4)}`, scopes: ['read', 'purchase'], active: true, revokedAt: null, lastUsedAt: null },
    );
    assert.equal(Date.parse(key!.createdAt), svc.clock.now().getTime());
    assert.ok(!('apiKey' in key!));
  });

  test('when the key authenticates requests then lastUsedAt follows, at most a minute stale', async () => {
    const { customerReferenceId: ref } = await m.customer();
    const issued = await m.expectOk(admin('POST', keys(ref)), 201);
    const firstUse = svc.clock.now().toISOString();
    assert.equal((await useKey(issued.apiKey, ref)).status, 200);
    assert.equal(Date.parse((await list(ref)).items[0]!.lastUsedAt!), Date.parse(firstUse));
    svc.clock.advanceMs(30_000);
    assert.equal((await useKey(issued.apiKey, ref)).status, 200);
    assert.equal(Date.parse((await list(ref)).items[0]!.lastUsedAt!), Date.parse(firstUse), 'within the minute: not written again');
    svc.clock.advanceMs(31_000);
    assert.equal((await useKey(issued.apiKey, ref)).status, 200);
    assert.equal(Date.parse((await list(ref)).items[0]!.lastUsedAt!), svc.clock.now().getTime());
  });

  test('when a key is rotated then the old one is listed revoked and 401s, the new one works; revoke ends it', async () => {
    const { customerReferenceId: ref } = await m.customer();
    const first = await m.expectOk(admin('POST', keys(ref)), 201);
    const second = await m.expectOk(admin('POST', `${keys(ref)}/${first.id}/rotate`));
    assert.notEqual(second.apiKey, first.apiKey);
    assert.equal((await useKey(first.apiKey, ref)).status, 401);
    assert.equal((await useKey(second.apiKey, ref)).status, 200);
    let items = (await list(ref)).items;
    assert.deepEqual(items.map((k) => [k.id, k.active, k.revokedAt !== null]), [[first.id, false, true], [second.id, true, false]]);

    svc.clock.advanceMs(1_000);
    const revoked = await admin('DELETE', `${keys(ref)}/${second.id}`);
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await useKey(second.apiKey, ref)).status, 401);
    items = (await list(ref)).items;
    assert.equal(items[1]!.active, false);
    assert.equal(Date.parse(items[1]!.revokedAt!), svc.clock.now().getTime());
    const again = await admin('POST', `${keys(ref)}/${second.id}/rotate`);
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'conflict');
  });

  test('when the input is bad then 400 validation_failed; an unknown customer or key is 404', async () => {
    const { customerReferenceId: ref } = await m.customer();
    const bad = [
      await admin('POST', keys(ref), { scopes: ['admin'] }),
      await admin('POST', keys(ref), { scopes: 'read' }),
      await admin('POST', `${keys(ref)}/not-a-uuid/rotate`),
      await admin('DELETE', `${keys(ref)}/not-a-uuid`),
      await admin('GET', `${keys(ref)}?limit=0`),
      await admin('GET', `${keys(ref)}?offset=-1`),
    ];
    for (const res of bad) {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'validation_failed');
    }
    assert.equal((await list(ref)).pagination.total, 0, 'a refused create issues nothing');
    const unknownCustomer = await admin('GET', keys('nobody'));
    assert.equal(unknownCustomer.status, 404);
    assert.equal(unknownCustomer.body.error.message, 'Customer not found: nobody');
    const unknownKey = await admin('DELETE', `${keys(ref)}/018f0000-0000-7000-8000-000000000000`);
    assert.equal(unknownKey.status, 404);
  });

  test('when keys are paged then oldest first with total and hasMore', async () => {
    const { customerReferenceId: ref } = await m.customer();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await m.expectOk(admin('POST', keys(ref)), 201)).id);
      svc.clock.advanceMs(1_000);
    }
    const first = await list(ref, '?limit=2');
    assert.deepEqual(first.items.map((k) => k.id), ids.slice(0, 2));
    assert.deepEqual(first.pagination, { total: 3, limit: 2, offset: 0, hasMore: true });
    const rest = await list(ref, '?limit=2&offset=2');
    assert.deepEqual(rest.items.map((k) => k.id), ids.slice(2));
    assert.equal(rest.pagination.hasMore, false);
  });

  test("when another account's operator asks for the customer's keys then 404", async () => {
    const { customerReferenceId: ref } = await m.customer();
    await m.expectOk(admin('POST', keys(ref)), 201);
    const other = await createTestAccount(svc);
    const res = await svc.http.request('GET', keys(ref), { auth: other.token });
    assert.equal(res.status, 404);
  });
});
