import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

describe('authentication and tenant keys', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  test('when the login is right then a 2-hour Bearer JWT is returned', async () => {
    const acct = await createTestAccount(svc);
    const res = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: acct.password } });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.data.type, 'Bearer');
    assert.equal(new Date(res.body.data.expiresAt).getTime() - svc.clock.now().getTime(), 2 * 3600 * 1000);
    const payload = JSON.parse(Buffer.from(res.body.data.token.split('.')[1], 'base64url').toString());
    assert.equal(payload.account_id, acct.accountId);
    assert.equal(payload.iss, 'tanso-core');
  });

  test('when the password is wrong then 401 unauthorized "Invalid credentials"', async () => {
    const acct = await createTestAccount(svc);
    const res = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: 'nope' } });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
    assert.equal(res.body.error.message, 'Invalid credentials');
    const unknown = await svc.http.post('/public/v1/login', { body: { username: 'nobody-here', password: 'x' } });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error.message, 'Invalid credentials');
  });

  test('when a username fails five times then it is refused with 429 and Retry-After, even with the right password', async () => {
    const acct = await createTestAccount(svc);
    for (let i = 0; i < 5; i++) {
      const res = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: `wrong${i}` } });
      assert.equal(res.status, 401);
    }
    const refused = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: acct.password } });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter > 0 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`);
    svc.clock.advanceMs(15 * 60 * 1000 + 1000);
    const later = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: acct.password } });
    assert.equal(later.status, 200);
  });

  test('when a login body is incomplete then 400 names the field', async () => {
    const res = await svc.http.post('/public/v1/login', { body: { username: 'x' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'validation_failed');
    assert.deepEqual(res.body.error.fields, [{ field: 'password', message: 'is required' }]);
  });

  test('when the Admin API is called without a JWT, with a tenant key, or with a bad token then 401', async () => {
    const acct = await createTestAccount(svc);
    for (const auth of [undefined, acct.apiKey, 'not.a.jwt']) {
      const res = await svc.http.get('/api/v1/account/api-key', auth ? { auth } : {});
      assert.equal(res.status, 401, String(auth));
      assert.equal(res.body.error.code, 'unauthorized');
    }
    const viaHeader = await svc.http.get('/api/v1/account/api-key', { headers: { 'x-api-key': acct.apiKey } });
    assert.equal(viaHeader.status, 401);
  });

  test('when the JWT is older than 2 hours then the Admin API refuses it', async () => {
    const acct = await createTestAccount(svc);
    assert.equal((await svc.http.get('/api/v1/account/api-key', { auth: acct.token })).status, 200);
    svc.clock.advanceMs(2 * 3600 * 1000 + 1000);
    const res = await svc.http.get('/api/v1/account/api-key', { auth: acct.token });
    assert.equal(res.status, 401);
  });

  test('when the JWT is signed with another secret then it is refused', async () => {
    const acct = await createTestAccount(svc);
    const [h, p] = acct.token.split('.');
    const forged = `${h}.${p}.${Buffer.from('forged-signature').toString('base64url')}`;
    assert.equal((await svc.http.get('/api/v1/account/api-key', { auth: forged })).status, 401);
  });

  test('when the Client API is called with a JWT, no key, or an unknown key then 401', async () => {
    const acct = await createTestAccount(svc);
    const cases = [
      { auth: acct.token, message: 'Invalid API key' },
      { auth: 'sk_test_ffffffffffffffffffffffffffffffff', message: 'Invalid API key' },
      { message: 'Authentication required' },
    ];
    for (const c of cases) {
      const res = await svc.http.get('/api/v1/client/anything', c.auth ? { auth: c.auth } : {});
      assert.equal(res.status, 401);
      assert.equal(res.body.error.message, c.message);
    }
  });

  test('when the tenant key is read then only a masked hint is shown', async () => {
    const acct = await createTestAccount(svc);
    const res = await svc.http.get('/api/v1/account/api-key', { auth: acct.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.keyType, 'secret');
    assert.equal(res.body.data.apiKey, `${acct.apiKey.slice(0, 8)}\u2026${acct.apiKey.slice(-4)}`);
  });

  test('when the tenant key is rotated then the new key works and every earlier key stops at once', async () => {
    const acct = await createTestAccount(svc);
    const other = await createTestAccount(svc);
    const first = await svc.http.post('/api/v1/account/api-key', { auth: acct.token });
    assert.equal(first.status, 200);
    const second = await svc.http.post('/api/v1/account/api-key', { auth: acct.token });
    const newest = second.body.data.apiKey as string;
    assert.match(newest, /^sk_test_[0-9a-f]{32}$/);
    for (const stale of [acct.apiKey, first.body.data.apiKey]) {
      const res = await svc.http.get('/api/v1/client/ping', { headers: { 'x-api-key': stale } });
      assert.equal(res.status, 401, 'a rotated-out key must be refused');
    }
    const fresh = await svc.http.get('/api/v1/client/ping', { headers: { 'x-api-key': newest } });
    assert.equal(fresh.status, 404, 'authenticated, then no such route');
    const masked = await svc.http.get('/api/v1/account/api-key', { auth: acct.token });
    assert.equal(masked.body.data.apiKey, `sk_test_\u2026${newest.slice(-4)}`);
    const untouched = await svc.http.get('/api/v1/client/ping', { auth: other.apiKey });
    assert.equal(untouched.status, 404, "another account's key is unaffected");
  });

  test('when two rotations race then exactly one key remains valid', async () => {
    const acct = await createTestAccount(svc);
    const results = await Promise.all([1, 2, 3].map(() => svc.http.post('/api/v1/account/api-key', { auth: acct.token })));
    const valid = [];
    for (const r of results) {
      const res = await svc.http.get('/api/v1/client/ping', { auth: r.body.data.apiKey });
      if (res.status !== 401) valid.push(r.body.data.apiKey);
    }
    assert.equal(valid.length, 1);
  });

  test('when the password is changed then the old one stops working', async () => {
    const acct = await createTestAccount(svc);
    const wrong = await svc.http.post('/api/v1/account/change-password', {
      auth: acct.token,
      body: { currentPassword: 'not it', newPassword: 'a brand new password' },
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.message, 'Current password is incorrect');
    const res = await svc.http.post('/api/v1/account/change-password', {
      auth: acct.token,
      body: { currentPassword: acct.password, newPassword: 'a brand new password' },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    const old = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: acct.password } });
    assert.equal(old.status, 401);
    const renewed = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: 'a brand new password' } });
    assert.equal(renewed.status, 200);
  });
});
