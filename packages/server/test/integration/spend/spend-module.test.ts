import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * The whole /api/v1/spend prefix (contract §7, §1.7): JWT only, switched off by
 * APP_MODULES_BUILD_ENABLED=false. Every registered spend route is taken from the route table, so
 * routes added later are covered without editing this file.
 */

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';
/** A concrete URL for a route pattern (`:id` → a UUID). */
const concrete = (url: string) => url.replace(/:\w+/g, SAMPLE_ID);
const spendRoutes = (svc: TestService) => svc.app.routeTable.filter((r) => r.url.startsWith('/api/v1/spend/'));

describe(`spend module: auth and switch on every route (${backend})`, () => {
  let on: TestService;
  let off: TestService;
  before(async () => {
    [on, off] = await Promise.all([startTestService(), startTestService({ env: { APP_MODULES_BUILD_ENABLED: 'false' } })]);
  });
  after(() => Promise.all([on?.close(), off?.close()]));

  test('the spend prefix has the invoice routes at least', () => {
    const routes = spendRoutes(on).map((r) => `${r.method} ${r.url}`);
    for (const route of ['POST /api/v1/spend/invoices', 'GET /api/v1/spend/invoices', 'DELETE /api/v1/spend/invoices/:id']) assert.ok(routes.includes(route), route);
  });

  test('when the build module is off then every spend route (and an unknown one) answers 404 module_disabled to a valid JWT', async () => {
    const account = await createTestAccount(off);
    const routes = [...spendRoutes(off), { method: 'GET', url: '/api/v1/spend/nowhere' }];
    for (const { method, url } of routes) {
      const res = await off.http.request(method, concrete(url), { auth: account.token, ...(['POST', 'PUT', 'PATCH'].includes(method) ? { body: {} } : {}) });
      assert.equal(res.status, 404, `${method} ${url}: ${res.text}`);
      assert.equal(res.body.error.code, 'module_disabled', `${method} ${url}`);
      assert.equal(res.body.error.message, 'The build side (internal AI spend) is switched off on this install: APP_MODULES_BUILD_ENABLED=false');
    }
    const anonymous = await off.http.get('/api/v1/spend/invoices');
    assert.equal(anonymous.status, 401, 'authentication runs before the module check');
  });

  test('when a spend route is called with a tenant key, no credential or a bad token then 401', async () => {
    const account = await createTestAccount(on);
    for (const { method, url } of spendRoutes(on)) {
      for (const [label, headers] of [
        ['tenant key', { authorization: `Bearer ${account.apiKey}` }],
        ['tenant key in X-API-Key', { 'x-api-key': account.apiKey }],
        ['no credential', {}],
        ['forged token', { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.bad' }],
      ] as const) {
        const res = await on.http.request(method, concrete(url), { headers });
        assert.equal(res.status, 401, `${method} ${url} with ${label}: ${res.text}`);
        assert.equal(res.body.error.code, 'unauthorized');
      }
    }
  });
});
