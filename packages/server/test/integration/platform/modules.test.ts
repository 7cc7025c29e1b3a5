import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestAccount, startTestService } from '../../harness.js';

describe('module switches', () => {
  test('when monetization is off then its routes answer 404 module_disabled after authentication', async () => {
    const svc = await startTestService({ env: { APP_MODULES_MONETIZATION_ENABLED: 'false' } });
    try {
      const acct = await createTestAccount(svc);
      for (const [path, auth] of [
        ['/api/v1/client/customers', acct.apiKey],
        ['/api/v1/client/plans', acct.apiKey],
        ['/api/v1/monetization/plans', acct.token],
      ] as const) {
        const res = await svc.http.get(path, { auth });
        assert.equal(res.status, 404, path);
        assert.equal(res.body.error.code, 'module_disabled');
        assert.equal(res.body.error.message, 'Monetization is switched off on this install: APP_MODULES_MONETIZATION_ENABLED=false');
      }
      const pricing = await svc.http.get('/public/v1/catalog/acme/pricing.json');
      assert.equal(pricing.body.error.code, 'module_disabled');
      const anonymous = await svc.http.get('/api/v1/client/plans');
      assert.equal(anonymous.status, 401, 'authentication runs before the module check');
      const outcomes = await svc.http.post('/api/v1/client/outcomes', { auth: acct.apiKey, body: {} });
      assert.notEqual(outcomes.body?.error?.code, 'module_disabled', 'outcomes belong to the build module');
      const account = await svc.http.get('/api/v1/account/api-key', { auth: acct.token });
      assert.equal(account.status, 200, 'platform routes stay up');
    } finally {
      await svc.close();
    }
  });

  test('when the build module is off then spend routes and client outcomes answer module_disabled', async () => {
    const svc = await startTestService({ env: { APP_MODULES_BUILD_ENABLED: 'false' } });
    try {
      const acct = await createTestAccount(svc);
      for (const [method, path, auth] of [
        ['GET', '/api/v1/spend/connections', acct.token],
        ['POST', '/api/v1/client/outcomes', acct.apiKey],
      ] as const) {
        const res = await svc.http.request(method, path, { auth });
        assert.equal(res.status, 404, path);
        assert.equal(res.body.error.code, 'module_disabled');
        assert.match(res.body.error.message, /APP_MODULES_BUILD_ENABLED=false/);
      }
      const monetization = await svc.http.get('/api/v1/client/plans', { auth: acct.apiKey });
      assert.notEqual(monetization.body?.error?.code, 'module_disabled');
    } finally {
      await svc.close();
    }
  });
});
