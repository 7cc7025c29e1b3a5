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
    assert.deepEqual(wrong.body.error.fields, [{ field: 'currentPassword', message: 'is incorrect' }]);
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

  test('when the password is changed then every JWT issued before answers 401, and one issued after in the same second works', async () => {
    const acct = await createTestAccount(svc);
    const other = await createTestAccount(svc);
    const second = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: acct.password } });
    const sessions = [acct.token, second.body.data.token as string];
    for (const token of sessions) assert.equal((await svc.http.get('/api/v1/account/api-key', { auth: token })).status, 200);
    const changed = await svc.http.post('/api/v1/account/change-password', {
      auth: acct.token,
      body: { currentPassword: acct.password, newPassword: 'another new password' },
    });
    assert.equal(changed.status, 200);
    for (const token of sessions) {
      const res = await svc.http.get('/api/v1/account/api-key', { auth: token });
      assert.equal(res.status, 401, 'a session from before the change is over');
      assert.equal(res.body.error.code, 'unauthorized');
      const again = await svc.http.post('/api/v1/account/change-password', {
        auth: token,
        body: { currentPassword: 'another new password', newPassword: 'attacker password' },
      });
      assert.equal(again.status, 401, 'an old session cannot change the password back');
    }
    // The clock is frozen: the new token has the same iat as the old ones, and still works.
    const fresh = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: 'another new password' } });
    assert.equal(fresh.status, 200);
    assert.equal((await svc.http.get('/api/v1/account/api-key', { auth: fresh.body.data.token })).status, 200);
    assert.equal((await svc.http.get('/api/v1/account/api-key', { auth: other.token })).status, 200, "another user's session is unaffected");
  });

  test('when a wrong current password is given then the sessions survive', async () => {
    const acct = await createTestAccount(svc);
    const wrong = await svc.http.post('/api/v1/account/change-password', {
      auth: acct.token,
      body: { currentPassword: 'not it', newPassword: 'whatever new password' },
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error.code, 'validation_failed');
    assert.equal((await svc.http.get('/api/v1/account/api-key', { auth: acct.token })).status, 200);
    const login = await svc.http.post('/public/v1/login', { body: { username: acct.username, password: acct.password } });
    assert.equal(login.status, 200, 'the password is unchanged');
  });
});

describe('login throttling: per (username, address) with growing delays, and a high per-username ceiling', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { APP_TRUST_PROXY: 'true' } });
  });
  after(() => svc.close());

  const login = (username: string, password: string, address: string) =>
    svc.http.post('/public/v1/login', { body: { username, password }, headers: { 'x-forwarded-for': address } });

  async function expectThrottled(username: string, password: string, address: string, retryAfter: number) {
    const res = await login(username, password, address);
    assert.equal(res.status, 429, res.text);
    assert.equal(res.body.error.code, 'rate_limited');
    assert.equal(typeof res.body.error.requestId, 'string');
    assert.equal(Number(res.headers.get('retry-after')), retryAfter);
  }

  test('when one address fails five times for a user then it waits 30 s, doubling per further failure, while another address logs in', async () => {
    const acct = await createTestAccount(svc);
    for (let i = 0; i < 5; i++) assert.equal((await login(acct.username, `wrong${i}`, '10.0.0.1')).status, 401);
    await expectThrottled(acct.username, acct.password, '10.0.0.1', 30);
    assert.equal((await login(acct.username, acct.password, '10.0.0.2')).status, 200, 'the real user elsewhere is not locked out');
    svc.clock.advanceMs(20_000);
    await expectThrottled(acct.username, 'wrong', '10.0.0.1', 10);
    svc.clock.advanceMs(10_000);
    assert.equal((await login(acct.username, 'wrong again', '10.0.0.1')).status, 401, 'the delay is over: one more try');
    await expectThrottled(acct.username, acct.password, '10.0.0.1', 60);
    svc.clock.advanceMs(60_000);
    assert.equal((await login(acct.username, 'and again', '10.0.0.1')).status, 401);
    await expectThrottled(acct.username, acct.password, '10.0.0.1', 120);
    svc.clock.advanceMs(120_000);
    assert.equal((await login(acct.username, acct.password, '10.0.0.1')).status, 200, 'the right password after the delay');
    for (let i = 0; i < 4; i++) {
      assert.equal((await login(acct.username, `wrong${i}`, '10.0.0.1')).status, 401, 'a success cleared the pair');
    }
  });

  test('when a pair keeps failing then the delay is capped at 15 minutes, and an hour of quiet forgets it', async () => {
    const acct = await createTestAccount(svc);
    for (let i = 0; i < 12; i++) {
      assert.equal((await login(acct.username, `wrong${i}`, '10.0.0.3')).status, 401);
      svc.clock.advanceMs(15 * 60 * 1000);
    }
    svc.clock.advanceMs(-15 * 60 * 1000 + 1000);
    await expectThrottled(acct.username, acct.password, '10.0.0.3', 15 * 60 - 1);
    svc.clock.advanceMs(60 * 60 * 1000);
    for (let i = 0; i < 5; i++) assert.equal((await login(acct.username, `wrong${i}`, '10.0.0.3')).status, 401);
    await expectThrottled(acct.username, acct.password, '10.0.0.3', 30);
  });

  test('when many users behind one address fail then the others behind it still log in', async () => {
    const victims = [];
    for (let i = 0; i < 5; i++) victims.push(await createTestAccount(svc));
    const user = await createTestAccount(svc);
    for (const v of victims) {
      for (let i = 0; i < 5; i++) assert.equal((await login(v.username, `wrong${i}`, '10.0.0.4')).status, 401);
    }
    assert.equal((await login(user.username, user.password, '10.0.0.4')).status, 200, '25 failures from the proxy do not block a colleague');
  });

  test('when a username reaches 100 failures across addresses then every address waits for the window to end', async () => {
    const acct = await createTestAccount(svc);
    const subject = `user:${acct.username.toLowerCase()}`;
    // 98 failures already counted in this window from a botnet, then two more through HTTP.
    const now = svc.clock.now();
    await svc.ctx.db.insertInto('login_throttle').values({ subject, window_start: now, failures: 98, last_failure_at: now }).execute();
    assert.equal((await login(acct.username, 'guess-1', '192.0.2.1')).status, 401);
    assert.equal((await login(acct.username, acct.password, '192.0.2.9')).status, 200, 'below the ceiling a fresh address gets through');
    assert.equal((await login(acct.username, 'guess-2', '192.0.2.2')).status, 401);
    svc.clock.advanceMs(60_000);
    await expectThrottled(acct.username, acct.password, '192.0.2.10', 14 * 60);
    svc.clock.advanceMs(14 * 60 * 1000);
    assert.equal((await login(acct.username, acct.password, '192.0.2.10')).status, 200, 'a new window lets the user in');
  });
});
