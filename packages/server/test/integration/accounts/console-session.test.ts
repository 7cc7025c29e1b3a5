import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * Issue 32 items 3 and 4 (ADR 0034): the console's cookie session (survives a reload, CSRF on
 * changes, sign-out ends it on the server, a password change or disabling ends it) and the team:
 * invite with a one-time password, role changes that apply at once, the last owner kept, the audit log.
 */
describe('console sessions and operators', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  async function signIn(username: string, password: string) {
    const res = await svc.http.post('/public/v1/sessions', { body: { username, password } });
    assert.equal(res.status, 200, res.text);
    const setCookie = res.headers.get('set-cookie') ?? '';
    const cookie = /^(tally_session=[^;]+)/.exec(setCookie)![1]!;
    return { res, setCookie, cookie, csrf: res.body.data.csrfToken as string };
  }
  const withCookie = (s: { cookie: string; csrf?: string }, csrf = true) => ({ cookie: s.cookie, ...(csrf && s.csrf ? { 'x-csrf-token': s.csrf } : {}) });

  test('when an operator signs in then the cookie is HttpOnly and SameSite=Strict, and a reload (GET /api/v1/session) finds the session', async () => {
    const account = await createTestAccount(svc);
    const s = await signIn(account.username, account.password);
    assert.match(s.setCookie, /HttpOnly/);
    assert.match(s.setCookie, /SameSite=Strict/);
    assert.match(s.setCookie, /Max-Age=7200/);
    assert.doesNotMatch(s.setCookie, /Secure/, 'plain http: no Secure flag, or the browser would drop the cookie');
    assert.equal(s.res.body.data.user.role, 'OWNER');
    const again = await svc.http.get('/api/v1/session', { headers: withCookie(s, false) });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.data.via, 'cookie');
    assert.equal(again.body.data.csrfToken, s.csrf);
    assert.equal(again.body.data.user.username, account.username);
    assert.equal(again.body.data.accountId, account.accountId);
    // The same session works on the Client API routes the console calls.
    const customers = await svc.http.get('/api/v1/client/customers', { headers: withCookie(s, false) });
    assert.equal(customers.status, 200, customers.text);
  });

  test('when a state-changing call comes with the cookie but without the right CSRF token then 403 csrf_failed and nothing changes', async () => {
    const account = await createTestAccount(svc);
    const s = await signIn(account.username, account.password);
    const body = { name: 'Acme', email: 'acme@example.com', customerReferenceId: 'acme' };
    for (const headers of [withCookie(s, false), { cookie: s.cookie, 'x-csrf-token': 'forged' }]) {
      const res = await svc.http.post('/api/v1/client/customers', { headers, body });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.code, 'csrf_failed');
    }
    assert.equal((await svc.http.get('/api/v1/client/customers', { headers: withCookie(s, false) })).body.data.length ?? 0, 0);
    const created = await svc.http.post('/api/v1/client/customers', { headers: withCookie(s), body });
    assert.equal(created.status, 201, created.text);
    // A bearer JWT needs no CSRF token: it is not sent by the browser on its own.
    const jwt = await svc.http.post('/api/v1/monetization/features', { auth: account.token, body: { key: 'ai.chat', name: 'Chat' } });
    assert.notEqual(jwt.status, 403, jwt.text);
  });

  test('when the cookie is sent to the MCP endpoint then it is not a credential there', async () => {
    const account = await createTestAccount(svc);
    const s = await signIn(account.username, account.password);
    const res = await svc.http.post('/mcp', { headers: { ...withCookie(s), accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    assert.equal(res.status, 401, res.text);
  });

  test('when the operator signs out then the session ends on the server: the same cookie answers 401', async () => {
    const account = await createTestAccount(svc);
    const s = await signIn(account.username, account.password);
    const out = await svc.http.delete('/api/v1/session', { headers: withCookie(s) });
    assert.equal(out.status, 200, out.text);
    assert.match(out.headers.get('set-cookie') ?? '', /tally_session=; .*Max-Age=0/);
    const after = await svc.http.get('/api/v1/session', { headers: withCookie(s, false) });
    assert.equal(after.status, 401);
    assert.equal(after.body.error.code, 'unauthorized');
  });

  test('when the session is two hours old or the password changes then it ends', async () => {
    const account = await createTestAccount(svc);
    const first = await signIn(account.username, account.password);
    svc.clock.advanceMs(7200 * 1000);
    assert.equal((await svc.http.get('/api/v1/session', { headers: withCookie(first, false) })).status, 401, 'expired after 7200 s');
    const second = await signIn(account.username, account.password);
    const other = await signIn(account.username, account.password);
    const change = await svc.http.post('/api/v1/account/change-password', { headers: withCookie(second), body: { currentPassword: account.password, newPassword: 'a much better one' } });
    assert.equal(change.status, 200, change.text);
    assert.equal((await svc.http.get('/api/v1/session', { headers: withCookie(other, false) })).status, 401, 'every session of the user ends');
  });

  test('when an owner invites a user then its one-time password signs in with the role given, once per username', async () => {
    const account = await createTestAccount(svc);
    const username = `finance-${Date.now()}`;
    const invited = await svc.http.post('/api/v1/users', { auth: account.token, body: { username, role: 'BILLING' } });
    assert.equal(invited.status, 201, invited.text);
    assert.equal(invited.body.data.user.role, 'BILLING');
    assert.equal(invited.body.data.user.disabled, false);
    assert.ok(invited.body.data.password.length >= 24);
    const s = await signIn(username, invited.body.data.password);
    assert.equal(s.res.body.data.user.role, 'BILLING');
    const again = await svc.http.post('/api/v1/users', { auth: account.token, body: { username: username.toUpperCase(), role: 'VIEWER' } });
    assert.equal(again.status, 409, again.text);
    const list = await svc.http.get('/api/v1/users', { auth: account.token });
    assert.deepEqual(list.body.data.map((u: { role: string }) => u.role), ['OWNER', 'BILLING']);
    // A billing user cannot touch the catalog, can create a customer.
    assert.equal((await svc.http.post('/api/v1/monetization/features', { headers: withCookie(s), body: { key: 'x', name: 'X' } })).status, 403);
    assert.equal((await svc.http.post('/api/v1/client/customers', { headers: withCookie(s), body: { name: 'B', email: 'b@example.com', customerReferenceId: 'b' } })).status, 201);
    const bad = await svc.http.post('/api/v1/users', { auth: account.token, body: { username: 'x', role: 'ROOT' } });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.error.code, 'validation_failed');
  });

  test('when a role changes or a user is disabled then the next request sees it; a disabled user cannot sign in; the last owner stays', async () => {
    const account = await createTestAccount(svc);
    const username = `ops-${Date.now()}`;
    const invited = await svc.http.post('/api/v1/users', { auth: account.token, body: { username, role: 'ADMIN' } });
    const userId = invited.body.data.user.id as string;
    const s = await signIn(username, invited.body.data.password);
    const jwt = (await svc.http.post('/public/v1/login', { body: { username, password: invited.body.data.password } })).body.data.token as string;
    const feature = () => svc.http.post('/api/v1/monetization/features', { headers: withCookie(s), body: { key: `f${Date.now()}`, name: 'F' } });
    assert.equal((await feature()).status, 201);
    const demote = await svc.http.patch(`/api/v1/users/${userId}`, { auth: account.token, body: { role: 'VIEWER' } });
    assert.equal(demote.status, 200, demote.text);
    assert.equal((await feature()).status, 403, 'a role change applies to the next request');
    const disable = await svc.http.patch(`/api/v1/users/${userId}`, { auth: account.token, body: { disabled: true } });
    assert.equal(disable.body.data.disabled, true);
    assert.equal((await svc.http.get('/api/v1/session', { headers: withCookie(s, false) })).status, 401, 'its session ends');
    assert.equal((await svc.http.get('/api/v1/session', { auth: jwt })).status, 401, 'and its JWT');
    const refused = await svc.http.post('/public/v1/sessions', { body: { username, password: invited.body.data.password } });
    assert.equal(refused.status, 403, refused.text);
    const ownerId = (await svc.http.get('/api/v1/session', { auth: account.token })).body.data.user.id as string;
    for (const body of [{ role: 'ADMIN' }, { disabled: true }]) {
      const last = await svc.http.patch(`/api/v1/users/${ownerId}`, { auth: account.token, body });
      assert.equal(last.status, 409, last.text);
      assert.equal(last.body.error.code, 'conflict');
    }
    assert.equal((await svc.http.patch(`/api/v1/users/${ownerId}`, { auth: account.token, body: {} })).status, 400);
  });

  test('when operators change things then the audit log says who did what', async () => {
    const account = await createTestAccount(svc);
    const ownerId = (await svc.http.get('/api/v1/session', { auth: account.token })).body.data.user.id as string;
    const invited = await svc.http.post('/api/v1/users', { auth: account.token, body: { username: `aud-${Date.now()}`, role: 'BILLING' } });
    const s = await signIn(invited.body.data.user.username, invited.body.data.password);
    await svc.http.post('/api/v1/client/customers', { headers: withCookie(s), body: { name: 'C', email: 'c@example.com', customerReferenceId: 'c-1' } });
    await svc.http.post('/api/v1/monetization/features', { headers: withCookie(s), body: { key: 'k', name: 'K' } });
    const log = (await svc.http.get('/api/v1/tanso/audit-log', { auth: account.token })).body.data as { actor: string; action: string; details: any }[];
    const invite = log.find((e) => e.action === 'user.invited');
    assert.equal(invite?.actor, `user:${ownerId}`);
    assert.equal(invite?.details.role, 'BILLING');
    const created = log.find((e) => e.action === 'POST /api/v1/client/customers');
    assert.equal(created?.actor, `user:${invited.body.data.user.id}`);
    assert.equal(created?.details.status, 201);
    assert.ok(!log.some((e) => e.action === 'POST /api/v1/monetization/features'), 'a refused change is not logged as done');
  });
});
