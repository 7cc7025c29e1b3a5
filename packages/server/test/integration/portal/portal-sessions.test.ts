import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** Customer portal sessions (issue 18 item 6, ADR 0025): the link's token is a customer credential for one customer. */
describe('customer portal sessions', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let tenantKey: string;
  let adminToken: string;
  let bobSubscriptionId: string;
  let featureKey: string;

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    tenantKey = account.apiKey;
    adminToken = account.token;
    m = monetization(svc, account);
    const feature = await m.feature();
    featureKey = feature.key;
    const plan = await m.activePlan({ price: 10, features: [{ id: feature.id }] });
    await m.customer('alice');
    await m.customer('bob');
    await m.subscribe('alice', plan.id);
    bobSubscriptionId = (await m.subscribe('bob', plan.id)).subscription.id;
  });
  after(() => svc.close());

  const as = (credential: string, method: string, path: string, body?: unknown) =>
    svc.http.request(method, path.startsWith('/') && !path.startsWith('/api') && path !== '/mcp' ? `/api/v1/client${path}` : path, {
      auth: credential,
      ...(body === undefined ? {} : { body }),
    });
  const open = async (ref: string, body?: unknown) => m.expectOk(m.client('POST', `/customers/${ref}/portal-sessions`, body), 201);

  test('when a tenant key opens a portal session then 201 with a /portal link on this origin, a pt_ token, read scope and a one-hour expiry', async () => {
    const session = await open('alice');
    assert.match(session.token, /^pt_test_[0-9a-f]{32}$/);
    assert.equal(session.url, `${svc.baseUrl}/portal#token=${session.token}&customer=${session.customerReferenceId}`);
    assert.equal(session.customerReferenceId, 'alice');
    assert.deepEqual(session.scopes, ['read']);
    assert.equal(session.allowPurchase, false);
    assert.equal(session.returnUrl, null);
    assert.equal(session.active, true);
    assert.equal(session.expiresAt, new Date(svc.clock.now().getTime() + 3600_000).toISOString());
    assert.equal(session.tokenHint, `${session.token.slice(0, 8)}\u2026${session.token.slice(-4)}`);
  });

  test('when a session is opened with allowPurchase, a lifetime and a return URL then they are kept, and only the token hash is stored', async () => {
    const session = await open('alice', { allowPurchase: true, expiresInSeconds: 600, returnUrl: 'https://app.example/account' });
    assert.deepEqual(session.scopes, ['read', 'purchase']);
    assert.equal(session.allowPurchase, true);
    assert.equal(session.returnUrl, 'https://app.example/account');
    assert.equal(session.expiresAt, new Date(svc.clock.now().getTime() + 600_000).toISOString());
    const row = await svc.ctx.db.selectFrom('portal_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
    assert.notEqual(row.token_hash, session.token);
    assert.ok(!JSON.stringify(row).includes(session.token.slice(8)), 'no column holds the token');
  });

  test("when a portal token calls its own customer's portal routes then they answer", async () => {
    const { token } = await open('alice');
    for (const path of ['/customers/alice', '/customers/alice/usage', '/credits/alice/pools', `/entitlements/alice/${featureKey}`, '/billing/invoices/alice']) {
      const res = await as(token, 'GET', path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    const own = await as(token, 'GET', '/portal/session');
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.data.customerReferenceId, 'alice');
    assert.equal(own.body.data.active, true);
    assert.equal(own.body.data.token, undefined, 'the token is never answered again');
    assert.equal((await as(token, 'GET', '/billing/invoices/alice')).body.data.items.length, 1);
  });

  test("when a portal token reaches for another customer's data then 403", async () => {
    const { token } = await open('alice', { allowPurchase: true });
    for (const path of ['/customers/bob', '/customers/bob/usage', '/credits/bob/pools', `/entitlements/bob/${featureKey}`, '/billing/invoices/bob']) {
      const res = await as(token, 'GET', path);
      assert.equal(res.status, 403, `${path}: ${res.text}`);
      assert.equal(res.body.error.message, 'This API key is scoped to another customer');
    }
    const hosted = await as(token, 'POST', `/billing/subscriptions/${bobSubscriptionId}/stripe/checkout`);
    assert.equal(hosted.status, 403, hosted.text);
    assert.equal(hosted.body.error.message, 'This API key is scoped to another customer');
  });

  test('when a portal token calls tenant routes, admin routes or MCP then it is refused', async () => {
    const { token } = await open('alice', { allowPurchase: true });
    const tenantOnly: [string, string, unknown?][] = [
      ['GET', '/features'],
      ['GET', '/customers'],
      ['POST', '/customers', { customerReferenceId: 'mallory' }],
      ['PATCH', '/customers/alice', { email: 'x@example.com' }],
      ['POST', '/customers/alice/keys', {}],
      ['GET', '/customers/alice/keys'],
      ['POST', '/customers/alice/portal-sessions', {}],
      ['GET', '/customers/alice/portal-sessions'],
    ];
    for (const [method, path, body] of tenantOnly) {
      const res = await as(token, method, path, body);
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'forbidden');
      assert.equal(res.body.error.message, 'Access denied');
    }
    const invoiceId = (await m.invoices('alice')).items[0].id as string;
    assert.equal((await as(token, 'POST', `/billing/invoices/${invoiceId}/mark-paid`)).status, 403);
    assert.equal((await m.invoices('alice')).items[0].status, 'DUE', 'mark-paid did not run');
    for (const path of ['/api/v1/monetization/customers', '/api/v1/monetization/features', '/api/v1/account/api-key']) {
      const res = await as(token, 'GET', path);
      assert.equal(res.status, 401, `${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'unauthorized');
    }
    const mcp = await svc.http.post('/mcp', {
      auth: token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    assert.equal(mcp.status, 403, mcp.text);
  });

  test('when a read-only portal token tries a purchase route then 403 for the scope; with allowPurchase it is admitted', async () => {
    const readOnly = (await open('alice')).token;
    const denied = await as(readOnly, 'POST', '/credits/purchases', { denomination: 'x', credits: 10 });
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.body.error.message, "This portal link lacks the 'purchase' permission");
    const buyer = (await open('alice', { allowPurchase: true })).token;
    const admitted = await as(buyer, 'POST', '/credits/purchases', { denomination: 'x', credits: 10 });
    assert.notEqual(admitted.status, 403, admitted.text);
    assert.notEqual(admitted.status, 401, admitted.text);
  });

  test('when a portal session has expired then its token answers 401 portal_link_expired; an unknown token 401 unauthorized', async () => {
    const { token, expiresAt } = await open('alice', { expiresInSeconds: 60 });
    svc.clock.advanceMs(59_000);
    assert.equal((await as(token, 'GET', '/customers/alice')).status, 200);
    svc.clock.set(expiresAt);
    const expired = await as(token, 'GET', '/customers/alice');
    assert.equal(expired.status, 401, expired.text);
    assert.equal(expired.body.error.code, 'portal_link_expired');
    assert.ok(expired.body.error.requestId);
    svc.clock.set('2026-03-10T12:00:00Z');
    const unknown = await as(`pt_test_${'0'.repeat(32)}`, 'GET', '/customers/alice');
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error.code, 'unauthorized');
  });

  test('when a session is revoked then its token answers 401 portal_link_expired at once, revoking again is 200, and the list shows it ended', async () => {
    const { id, token } = await open('alice');
    assert.equal((await as(token, 'GET', '/customers/alice')).status, 200);
    const revoked = await m.expectOk(m.client('DELETE', `/customers/alice/portal-sessions/${id}`));
    assert.equal(revoked.active, false);
    assert.equal(revoked.revokedAt, svc.clock.now().toISOString());
    const refused = await as(token, 'GET', '/customers/alice');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'portal_link_expired');
    svc.clock.advanceMs(1000);
    const again = await m.expectOk(m.client('DELETE', `/customers/alice/portal-sessions/${id}`));
    assert.equal(again.revokedAt, revoked.revokedAt, 'the first revocation time is kept');
    const list = await m.expectOk(m.client('GET', '/customers/alice/portal-sessions'));
    const listed = list.items.find((s: { id: string }) => s.id === id);
    assert.equal(listed.active, false);
    assert.equal(listed.token, undefined);
    assert.equal((await m.client('DELETE', `/customers/bob/portal-sessions/${id}`)).status, 404, "another customer's session is 404");
  });

  test('when a customer key opens a portal session then 403, and it cannot read invoices or a portal session', async () => {
    const ck = await m.customerKey('alice');
    const res = await as(ck, 'POST', '/customers/alice/portal-sessions', {});
    assert.equal(res.status, 403);
    assert.equal(res.body.error.message, 'Access denied');
    assert.equal((await as(ck, 'GET', '/billing/invoices/alice')).status, 403, 'customer keys keep contract §2.6');
    assert.equal((await as(ck, 'GET', '/portal/session')).status, 404);
    assert.equal((await as(tenantKey, 'GET', '/portal/session')).status, 404);
    assert.equal((await svc.http.post('/api/v1/client/customers/alice/portal-sessions', { auth: adminToken, body: {} })).status, 401, 'an admin JWT is no Client API credential');
  });

  test('when the body or path is bad then 400 validation_failed, and an unknown customer 404', async () => {
    for (const body of [
      { expiresInSeconds: 59 },
      { expiresInSeconds: 86_401 },
      { expiresInSeconds: 90.5 },
      { expiresInSeconds: '3600' },
      { allowPurchase: 'yes' },
      { returnUrl: 'javascript:alert(1)' },
      { returnUrl: '/relative' },
      { returnUrl: `https://x.example/${'a'.repeat(2048)}` },
      { scopes: ['purchase'] },
      [],
    ]) {
      const res = await m.client('POST', '/customers/alice/portal-sessions', body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
    }
    const unknown = await m.client('POST', '/customers/nobody/portal-sessions', {});
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'not_found');
    const badId = await m.client('DELETE', '/customers/alice/portal-sessions/not-a-uuid');
    assert.equal(badId.status, 400);
    assert.equal((await m.client('DELETE', '/customers/alice/portal-sessions/0190c3d5-0000-7000-8000-000000000000')).status, 404);
  });
});
