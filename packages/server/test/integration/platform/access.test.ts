import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ok } from '../../../src/platform/http/envelope.js';
import { principalOf } from '../../../src/platform/http/principal.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const routes: FastifyPluginAsyncZod = async (app) => {
  const whoami = async (request: FastifyRequest) => ok(principalOf(request));
  app.get('/api/v1/client/test/read', { config: { customerKey: 'read' } }, whoami);
  app.post('/api/v1/client/test/buy', { config: { customerKey: 'purchase' } }, whoami);
  app.get('/api/v1/client/test/tenant-only', whoami);
};

describe('customer-scoped keys and the per-route allow-list', () => {
  let svc: TestService;
  let tenantKey: string;
  let accountId: string;

  /** A new customer and a key for it, issued through the key routes (contract §2.4). */
  async function customerKey(scopes: string[], options: { revoked?: boolean } = {}) {
    const ref = `c-${randomUUID()}`;
    const created = await svc.http.post('/api/v1/client/customers', { auth: tenantKey, body: { customerReferenceId: ref, email: `${ref}@example.com` } });
    assert.equal(created.status, 201, created.text);
    const issued = await svc.http.post(`/api/v1/client/customers/${ref}/keys`, { auth: tenantKey, body: { scopes } });
    assert.equal(issued.status, 201, issued.text);
    const { id, apiKey } = issued.body.data as { id: string; apiKey: string };
    if (options.revoked) assert.equal((await svc.http.delete(`/api/v1/client/customers/${ref}/keys/${id}`, { auth: tenantKey })).status, 200);
    return apiKey;
  }

  before(async () => {
    svc = await startTestService({ extraRoutes: (app) => app.register(routes) });
    ({ apiKey: tenantKey, accountId } = await createTestAccount(svc));
  });
  after(() => svc.close());

  test('when a customer key calls a route opened to it then it is admitted as a customer principal', async () => {
    const key = await customerKey(['read']);
    const res = await svc.http.get('/api/v1/client/test/read', { headers: { 'x-api-key': key } });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.kind, 'customer');
    assert.equal(res.body.data.accountId, accountId);
    assert.deepEqual(res.body.data.scopes, ['read']);
  });

  test('when a customer key calls a route not opened to customer keys then 403 Access denied', async () => {
    const key = await customerKey(['read', 'purchase']);
    const res = await svc.http.get('/api/v1/client/test/tenant-only', { auth: key });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'forbidden');
    assert.equal(res.body.error.message, 'Access denied');
  });

  test('when a read-only customer key calls a purchase route then 403 for the missing scope', async () => {
    const readOnly = await customerKey(['read']);
    const denied = await svc.http.post('/api/v1/client/test/buy', { auth: readOnly });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.code, 'scope_denied');
    assert.equal(denied.body.error.message, "This API key lacks the 'purchase' scope");
    const buyer = await customerKey(['read', 'purchase']);
    assert.equal((await svc.http.post('/api/v1/client/test/buy', { auth: buyer })).status, 200);
  });

  test('when a customer key is revoked or expired then 401', async () => {
    const revoked = await customerKey(['read'], { revoked: true });
    assert.equal((await svc.http.get('/api/v1/client/test/read', { auth: revoked })).status, 401);
    const key = await customerKey(['read']);
    const lifetimeMs = 1825 * 86_400_000;
    svc.clock.advanceMs(lifetimeMs);
    try {
      const expired = await svc.http.get('/api/v1/client/test/read', { auth: key });
      assert.equal(expired.status, 401);
      assert.equal(expired.body.error.message, 'Invalid API key');
    } finally {
      svc.clock.advanceMs(-lifetimeMs);
    }
    assert.equal((await svc.http.get('/api/v1/client/test/read', { auth: key })).status, 200);
  });

  test('when a customer key is sent to the Admin API then 401', async () => {
    const key = await customerKey(['read', 'purchase']);
    assert.equal((await svc.http.get('/api/v1/account/api-key', { auth: key })).status, 401);
  });

  test('when the tenant key calls any client route then it is admitted as the tenant', async () => {
    for (const path of ['/api/v1/client/test/read', '/api/v1/client/test/tenant-only']) {
      const res = await svc.http.get(path, { auth: tenantKey });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.kind, 'tenant');
    }
  });

  test('when both headers are sent then Authorization wins over X-API-Key', async () => {
    const res = await svc.http.get('/api/v1/client/test/tenant-only', {
      headers: { authorization: `Bearer ${tenantKey}`, 'x-api-key': 'sk_test_ffffffffffffffffffffffffffffffff' },
    });
    assert.equal(res.status, 200);
  });

  test('when tenant keys rotate then customer keys keep working', async () => {
    const key = await customerKey(['read']);
    const login = await svc.ctx.db.selectFrom('users').select('username').where('account_id', '=', accountId).executeTakeFirstOrThrow();
    assert.ok(login.username);
    const { rotateTenantKey } = await import('../../../src/modules/accounts/service.js');
    await rotateTenantKey(svc.ctx, accountId);
    assert.equal((await svc.http.get('/api/v1/client/test/read', { auth: key })).status, 200);
  });
});
