import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/** Posted outcomes (contract §7.7): the Admin route, the Client route (tenant key), field rules, attribution. */
describe(`spend outcomes: posted (${backend})`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-09-10T12:00:00Z' });
  });
  after(() => svc.close());

  async function operator() {
    const account = await createTestAccount(svc);
    const call = (method: string, path: string, body?: unknown) => svc.http.request(method, `/api/v1/spend${path}`, { auth: account.token, ...(body === undefined ? {} : { body }) });
    const post = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/outcomes', body);
      assert.equal(res.status, 201, res.text);
      return res.body.data;
    };
    const unit = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/units', body);
      assert.equal(res.status, 201, res.text);
      return res.body.data;
    };
    const personLevel = async (on: boolean) => {
      const res = await call('PUT', '/settings', { workerNotice: 'AI spend is attributed to you by name.', personLevelEnabled: on });
      assert.equal(res.status, 200, res.text);
    };
    const list = async () => (await call('GET', '/outcomes')).body.data as any[];
    return { account, call, post, unit, personLevel, list };
  }

  test('when an outcome is posted then it is MANUAL, occurredAt defaults to now, and the object has the contract fields', async () => {
    const { post, list } = await operator();
    const o = await post({ kind: 'PR_MERGED', externalId: ' acme/api#1 ', title: ' Add budgets ', url: 'https://github.com/acme/api/pull/1', actorEmail: 'Dana@Acme.io', actorLogin: 'dana', aiAssisted: true, aiTool: 'claude-code' });
    assert.deepEqual(Object.keys(o).sort(), ['actorEmail', 'actorLogin', 'aiAssisted', 'aiTool', 'externalId', 'id', 'kind', 'occurredAt', 'source', 'spendUnitId', 'title', 'unitName', 'url']);
    assert.equal(o.source, 'MANUAL');
    assert.equal(o.externalId, 'acme/api#1');
    assert.equal(o.title, 'Add budgets');
    assert.equal(o.actorEmail, 'dana@acme.io');
    assert.equal(o.occurredAt, '2026-09-10T12:00:00.000Z');
    assert.equal(o.spendUnitId, null);
    assert.equal(o.unitName, null);
    assert.deepEqual(await list(), [o]);
  });

  test('when the same externalId is posted again then only the fields sent change (201); null leaves a field alone, "" clears it', async () => {
    const { post, list } = await operator();
    const first = await post({ kind: 'PR_MERGED', externalId: 'x-1', title: 'One', url: 'https://e.x/1', actorLogin: 'dana', occurredAt: '2026-09-01T08:00:00Z', aiAssisted: true, aiTool: 'cursor' });
    const second = await post({ kind: 'PR_MERGED', externalId: 'x-1', title: 'One, renamed' });
    assert.equal(second.id, first.id);
    assert.deepEqual(second, { ...first, title: 'One, renamed' });
    const third = await post({ kind: 'CUSTOM', externalId: 'x-1', url: null, aiTool: '', aiAssisted: false, occurredAt: '2026-09-02T09:30:00+02:00' });
    assert.deepEqual(third, { ...second, kind: 'CUSTOM', aiTool: null, aiAssisted: false, occurredAt: '2026-09-02T07:30:00.000Z' });
    assert.equal((await list()).length, 1);
  });

  test('when two posts of one new externalId race then one outcome holds both', async () => {
    const { post, list } = await operator();
    const [a, b] = await Promise.all([post({ kind: 'CUSTOM', externalId: 'race', title: 'A' }), post({ kind: 'CUSTOM', externalId: 'race', url: 'https://e.x/b' })]);
    assert.equal(a.id, b.id);
    const [only] = await list();
    assert.equal((await list()).length, 1);
    assert.equal(only.title, 'A');
    assert.equal(only.url, 'https://e.x/b');
  });

  test('when a field breaks a rule then 400 validation_failed naming it, and nothing is written', async () => {
    const { call, list } = await operator();
    const cases: [Record<string, unknown>, string][] = [
      [{ externalId: 'a' }, 'kind'],
      [{ kind: 'DEPLOYED', externalId: 'a' }, 'kind'],
      [{ kind: 'CUSTOM' }, 'externalId'],
      [{ kind: 'CUSTOM', externalId: '   ' }, 'externalId'],
      [{ kind: 'CUSTOM', externalId: 'x'.repeat(256) }, 'externalId'],
      [{ kind: 'CUSTOM', externalId: 'a', title: 'x'.repeat(501) }, 'title'],
      [{ kind: 'CUSTOM', externalId: 'a', url: 'x'.repeat(1001) }, 'url'],
      [{ kind: 'CUSTOM', externalId: 'a', actorEmail: 'x'.repeat(256) }, 'actorEmail'],
      [{ kind: 'CUSTOM', externalId: 'a', actorLogin: 'x'.repeat(256) }, 'actorLogin'],
      [{ kind: 'CUSTOM', externalId: 'a', aiTool: 'x'.repeat(65) }, 'aiTool'],
      [{ kind: 'CUSTOM', externalId: 'a', aiAssisted: 'yes' }, 'aiAssisted'],
      [{ kind: 'CUSTOM', externalId: 'a', occurredAt: 'yesterday' }, 'occurredAt'],
      [{ kind: 'CUSTOM', externalId: 'a', spendUnitId: 'not-a-uuid' }, 'spendUnitId'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/outcomes', body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.match(res.body.error.message, new RegExp(field), JSON.stringify(body).slice(0, 80));
    }
    // The limits themselves are accepted (after trimming).
    const edge = await call('POST', '/outcomes', { kind: 'CUSTOM', externalId: ` ${'e'.repeat(255)} `, title: 't'.repeat(500), url: 'u'.repeat(1000), actorEmail: 'm'.repeat(255), actorLogin: 'l'.repeat(255), aiTool: 'a'.repeat(64) });
    assert.equal(edge.status, 201, edge.text);
    assert.equal((await list()).length, 1, 'refused requests wrote nothing');
  });

  test('when spendUnitId names no unit of this account then 404 and nothing is written', async () => {
    const { call, list } = await operator();
    const foreign = await operator();
    const theirs = await foreign.unit({ type: 'TEAM', name: 'Theirs' });
    for (const spendUnitId of [theirs.id, '018f0000-0000-7000-8000-000000000000']) {
      const res = await call('POST', '/outcomes', { kind: 'CUSTOM', externalId: 'u', spendUnitId });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'not_found');
    }
    assert.deepEqual(await list(), []);
  });

  test('attribution order: matching PERSON (e-mail before login) when person level is on, else spendUnitId, else unattributed', async () => {
    const { post, unit, personLevel } = await operator();
    await personLevel(true);
    const ada = await unit({ type: 'PERSON', name: 'Ada', email: 'ada@acme.io', githubLogin: 'ada-l' });
    const bob = await unit({ type: 'PERSON', name: 'Bob', githubLogin: 'Bob-GH' });
    const team = await unit({ type: 'TEAM', name: 'Platform' });

    const byEmail = await post({ kind: 'PR_MERGED', externalId: 'a1', actorEmail: 'ADA@acme.io', spendUnitId: team.id });
    assert.deepEqual([byEmail.spendUnitId, byEmail.unitName], [ada.id, 'Ada'], '1. PERSON by e-mail wins over spendUnitId');
    const byLogin = await post({ kind: 'PR_MERGED', externalId: 'a2', actorLogin: 'bob-gh', spendUnitId: team.id });
    assert.deepEqual([byLogin.spendUnitId, byLogin.unitName], [bob.id, 'Bob'], '1. PERSON by GitHub login (case-insensitive)');
    const both = await post({ kind: 'PR_MERGED', externalId: 'a3', actorEmail: 'ada@acme.io', actorLogin: 'bob-gh' });
    assert.equal(both.spendUnitId, ada.id, 'an e-mail match before a login match');
    const sent = await post({ kind: 'CUSTOM', externalId: 'a4', actorEmail: 'nobody@acme.io', spendUnitId: team.id });
    assert.deepEqual([sent.spendUnitId, sent.unitName], [team.id, 'Platform'], '2. no PERSON matches: spendUnitId');
    const none = await post({ kind: 'CUSTOM', externalId: 'a5', actorLogin: 'nobody' });
    assert.deepEqual([none.spendUnitId, none.unitName], [null, null], '4. unattributed');

    // A partial update re-attributes from the merged fields.
    const relogin = await post({ kind: 'CUSTOM', externalId: 'a4', actorLogin: 'ada-l' });
    assert.equal(relogin.spendUnitId, ada.id, 'the stored spendUnitId is kept, but a PERSON now matches');

    await personLevel(false);
    const off = await post({ kind: 'PR_MERGED', externalId: 'a6', actorEmail: 'ada@acme.io', spendUnitId: team.id });
    assert.equal(off.spendUnitId, team.id, 'person level off: PERSON units are not matched');
    const offNone = await post({ kind: 'PR_MERGED', externalId: 'a7', actorEmail: 'ada@acme.io' });
    assert.equal(offNone.spendUnitId, null);
    const reposted = await post({ kind: 'CUSTOM', externalId: 'a4', title: 'again' });
    assert.equal(reposted.spendUnitId, team.id, 'with person level off the stored spendUnitId applies again');
  });

  test('when the attributed unit is deleted then its outcomes become unattributed', async () => {
    const { call, post, unit, list } = await operator();
    const team = await unit({ type: 'TEAM', name: 'Gone soon' });
    await post({ kind: 'CUSTOM', externalId: 'd1', spendUnitId: team.id });
    assert.equal((await call('DELETE', `/units/${team.id}`)).status, 200);
    const [o] = await list();
    assert.deepEqual([o.spendUnitId, o.unitName], [null, null]);
    const again = await post({ kind: 'CUSTOM', externalId: 'd1', title: 'still there' });
    assert.equal(again.spendUnitId, null);
  });

  test('GET /outcomes lists the latest 200, newest first', async () => {
    const { post, list } = await operator();
    for (let i = 0; i < 205; i += 1) {
      await post({ kind: 'CUSTOM', externalId: `n${i}`, occurredAt: new Date(Date.UTC(2026, 7, 1) + ((i * 7919) % 205) * 60_000).toISOString() });
    }
    const rows = await list();
    assert.equal(rows.length, 200);
    const times = rows.map((r) => Date.parse(r.occurredAt));
    assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
    assert.equal(times[0], Date.UTC(2026, 7, 1) + 204 * 60_000);
    assert.equal(times[199], Date.UTC(2026, 7, 1) + 5 * 60_000, 'the 5 oldest are left out');
  });

  test('POST /api/v1/client/outcomes: the tenant key posts into the same space; customer keys and JWTs are refused', async () => {
    const { account, post, list } = await operator();
    const viaKey = await svc.http.post('/api/v1/client/outcomes', { auth: account.apiKey, body: { kind: 'ISSUE_DONE', externalId: 'ENG-7', title: 'From CI' } });
    assert.equal(viaKey.status, 201, viaKey.text);
    assert.equal(viaKey.body.data.source, 'MANUAL');
    const viaHeader = await svc.http.post('/api/v1/client/outcomes', { headers: { 'x-api-key': account.apiKey }, body: { kind: 'ISSUE_DONE', externalId: 'ENG-7', aiAssisted: true } });
    assert.equal(viaHeader.status, 201, viaHeader.text);
    assert.deepEqual(viaHeader.body.data, { ...viaKey.body.data, aiAssisted: true });
    const viaAdmin = await post({ kind: 'ISSUE_DONE', externalId: 'ENG-7', url: 'https://linear.app/x/ENG-7' });
    assert.equal(viaAdmin.id, viaKey.body.data.id, 'one outcome per externalId across both routes');

    const m = monetization(svc, account);
    const ref = (await m.customer()).customerReferenceId;
    const customerKey = await m.customerKey(ref);
    const refused = await svc.http.post('/api/v1/client/outcomes', { auth: customerKey, body: { kind: 'CUSTOM', externalId: 'ck' } });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.message, 'Access denied');
    const jwt = await svc.http.post('/api/v1/client/outcomes', { auth: account.token, body: { kind: 'CUSTOM', externalId: 'jwt' } });
    assert.equal(jwt.status, 401, jwt.text);
    const other = await createTestAccount(svc);
    const otherPost = await svc.http.post('/api/v1/client/outcomes', { auth: other.apiKey, body: { kind: 'ISSUE_DONE', externalId: 'ENG-7' } });
    assert.equal(otherPost.status, 201);
    assert.notEqual(otherPost.body.data.id, viaKey.body.data.id, 'another account has its own space');
    assert.equal((await list()).length, 1);
  });

  test('when the build module is off then the client route answers 404 module_disabled to the tenant key', async () => {
    const off = await startTestService({ env: { APP_MODULES_BUILD_ENABLED: 'false' } });
    try {
      const account = await createTestAccount(off);
      const res = await off.http.post('/api/v1/client/outcomes', { auth: account.apiKey, body: { kind: 'CUSTOM', externalId: 'x' } });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'module_disabled');
      const admin = await off.http.post('/api/v1/spend/outcomes', { auth: account.token, body: { kind: 'CUSTOM', externalId: 'x' } });
      assert.equal(admin.body.error.code, 'module_disabled');
    } finally {
      await off.close();
    }
  });
});
