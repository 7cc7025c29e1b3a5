import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { GITHUB_FAKE_KEY, startGithubFake, type GithubFake } from '../../fakes/vendors/github.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/** Outcome sources (contract §7.7) against the loopback GitHub fake's search API (vendor-apis.md §4.5). */
describe(`spend outcome sources: GitHub merged pull requests (${backend})`, () => {
  let svc: TestService;
  let github: GithubFake;
  before(async () => {
    github = await startGithubFake();
    svc = await startTestService({
      now: '2026-09-10T12:00:00Z',
      env: { APP_SPEND_GITHUB_BASE_URL: github.url, APP_SPEND_VENDOR_MAX_RETRIES: '2', APP_SPEND_VENDOR_TIMEOUT_MS: '5000' },
    });
  });
  after(async () => {
    await svc?.close();
    await github?.close();
  });
  beforeEach(() => {
    github.reset();
    github.setKey(GITHUB_FAKE_KEY);
    svc.clock.set('2026-09-10T12:00:00Z');
  });

  async function operator() {
    const account = await createTestAccount(svc);
    const call = (method: string, path: string, body?: unknown) => svc.http.request(method, `/api/v1/spend${path}`, { auth: account.token, ...(body === undefined ? {} : { body }) });
    const ok = async (method: string, path: string, body?: unknown, status = 200) => {
      const res = await call(method, path, body);
      assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
      return res.body.data;
    };
    const source = (body: Record<string, unknown> = {}) => ok('POST', '/outcome-sources', { source: 'GITHUB', label: 'Code', token: GITHUB_FAKE_KEY, scope: 'acme/api, acme/web', ...body }, 201);
    const outcomes = async () => ((await ok('GET', '/outcomes')) as any[]).slice().sort((a, b) => a.externalId.localeCompare(b.externalId));
    return { account, call, ok, source, outcomes };
  }

  const searches = () => github.requests.filter((r) => r.path === '/search/issues');

  test('when a source is created then GitHub is asked once, the token is never shown, and probe answers ok', async () => {
    github.seedPulls({ repo: 'acme/api', from: '2026-09-01', days: 1, count: 1 });
    github.repos.add('acme/web');
    const { ok, source, call } = await operator();
    const created = await source({ label: '  Code  ', scope: ' acme/api,acme/web , ACME/API ' });
    assert.deepEqual(Object.keys(created).sort(), ['createdAt', 'defaultSpendUnitId', 'id', 'label', 'lastError', 'lastSyncedAt', 'scope', 'source', 'status']);
    assert.deepEqual([created.source, created.label, created.scope, created.status, created.lastError], ['GITHUB', 'Code', 'acme/api,acme/web', 'ACTIVE', null]);
    const probeQuery = searches()[0]!;
    assert.equal(probeQuery.query.get('q'), 'is:pr is:merged repo:acme/api repo:acme/web');
    assert.equal(probeQuery.headers['authorization'], `Bearer ${GITHUB_FAKE_KEY}`);
    assert.equal(probeQuery.headers['x-github-api-version'], '2026-03-10');
    assert.ok(!JSON.stringify(await ok('GET', '/outcome-sources')).includes(GITHUB_FAKE_KEY));
    assert.deepEqual(await ok('POST', `/outcome-sources/${created.id}/probe`), { ok: true, message: null });
    assert.equal((await call('POST', '/outcome-sources/018f0000-0000-7000-8000-000000000000/probe')).status, 404);
  });

  test('when GitHub refuses the token then create answers 502 vendor_error carrying the ERROR source, and probe 502 with {ok:false}', async () => {
    github.repos.add('acme/api');
    const { call, ok } = await operator();
    const res = await call('POST', '/outcome-sources', { source: 'GITHUB', label: 'Bad', token: 'ghp_wrong', scope: 'acme/api' });
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.error.code, 'vendor_error');
    assert.equal(res.body.error.message, 'Bad credentials');
    assert.deepEqual([res.body.data.status, res.body.data.lastError], ['ERROR', 'Bad credentials']);
    const [listed] = await ok('GET', '/outcome-sources');
    assert.equal(listed.id, res.body.data.id, 'the source is stored anyway');
    const probe = await call('POST', `/outcome-sources/${listed.id}/probe`);
    assert.equal(probe.status, 502);
    assert.deepEqual(probe.body.data, { ok: false, message: 'Bad credentials' });

    const unseen = await call('POST', '/outcome-sources', { source: 'GITHUB', label: 'Unseen', token: GITHUB_FAKE_KEY, scope: 'acme/secret' });
    assert.equal(unseen.status, 502, unseen.text);
    assert.match(unseen.body.error.message, /^Validation Failed: The listed users and repositories cannot be searched/);
  });

  test('when a source request breaks a rule then 400 (404 for a foreign default unit) and nothing is stored', async () => {
    const { call, ok } = await operator();
    const other = await operator();
    const theirs = await other.ok('POST', '/units', { type: 'TEAM', name: 'Theirs' }, 201);
    const base = { source: 'GITHUB', label: 'L', token: 't', scope: 'acme/api' };
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ ...base, source: 'LINEAR', scope: '*' }, 400, /^LINEAR sources are not supported yet$/],
      [{ ...base, scope: undefined }, 400, /^GITHUB needs a scope \(owner\/repo, comma separated\)$/],
      [{ ...base, scope: ' , ' }, 400, /^GITHUB needs a scope/],
      [{ ...base, scope: 'acme' }, 400, /^Not a GitHub repository \(expected owner\/repo\): acme$/],
      [{ ...base, scope: 'acme/api,a b/c' }, 400, /a b\/c/],
      [{ ...base, label: '  ' }, 400, /label/],
      [{ ...base, label: 'x'.repeat(101) }, 400, /label/],
      [{ ...base, token: ' ' }, 400, /token/],
      [{ ...base, source: 'GITLAB' }, 400, /source/],
      [{ ...base, defaultSpendUnitId: theirs.id }, 404, /Spend unit/],
    ];
    for (const [body, status, message] of cases) {
      const res = await call('POST', '/outcome-sources', body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.body.error.message, message, JSON.stringify(body));
    }
    assert.deepEqual(await ok('GET', '/outcome-sources'), []);
    assert.equal(searches().length, 0, 'GitHub is not called for a refused request');
  });

  test('when a source syncs then merged PRs of its repositories in [from, to) become PR_MERGED outcomes, attributed PERSON → default unit; a re-pull upserts', async () => {
    github.addPulls([
      { repo: 'acme/api', number: 1, title: 'Add budgets', author: 'Dana', mergedAt: '2026-09-01T09:00:00Z' },
      { repo: 'acme/web', number: 7, title: 'Dark mode', author: 'eli', mergedAt: '2026-09-02T23:59:59Z' },
      { repo: 'acme/api', number: 2, title: 'Too late', author: 'dana', mergedAt: '2026-09-03T00:00:00Z' },
      { repo: 'acme/other', number: 3, title: 'Not in scope', author: 'dana', mergedAt: '2026-09-01T10:00:00Z' },
    ]);
    const { ok, source, outcomes } = await operator();
    await ok('PUT', '/settings', { workerNotice: 'Attributed by name.', personLevelEnabled: true });
    const dana = await ok('POST', '/units', { type: 'PERSON', name: 'Dana', githubLogin: 'dana' }, 201);
    const team = await ok('POST', '/units', { type: 'TEAM', name: 'Web' }, 201);
    const src = await source({ defaultSpendUnitId: team.id });
    const result = await ok('POST', `/outcome-sources/${src.id}/sync?from=2026-09-01&to=2026-09-03`);
    assert.deepEqual(result, { connectionId: src.id, from: '2026-09-01', to: '2026-09-03', rowsWritten: 2 });
    assert.equal(searches().at(-1)!.query.get('q'), 'is:pr is:merged repo:acme/api repo:acme/web merged:2026-09-01..2026-09-02');
    const [api1, web7] = await outcomes();
    assert.deepEqual(
      { ...api1, id: undefined },
      { id: undefined, source: 'GITHUB', kind: 'PR_MERGED', externalId: 'acme/api#1', title: 'Add budgets', url: 'https://github.com/acme/api/pull/1', actorEmail: null, actorLogin: 'Dana', spendUnitId: dana.id, unitName: 'Dana', occurredAt: '2026-09-01T09:00:00.000Z', aiAssisted: null, aiTool: null },
    );
    assert.deepEqual([web7.externalId, web7.actorLogin, web7.spendUnitId, web7.unitName], ['acme/web#7', 'eli', team.id, 'Web'], '3. no PERSON matches: the source default unit');
    const [listed] = await ok('GET', '/outcome-sources');
    assert.equal(listed.lastSyncedAt, '2026-09-10T12:00:00.000Z');

    github.pulls[0]!.title = 'Add budgets (v2)';
    await ok('POST', `/outcome-sources/${src.id}/sync?from=2026-09-01&to=2026-09-03`);
    const again = await outcomes();
    assert.equal(again.length, 2, 'a re-pull upserts');
    assert.equal(again[0].title, 'Add budgets (v2)');
    assert.equal(again[0].id, api1.id);
  });

  test('when a range holds more than the 1,000-result search cap then it is split and every merge is pulled', async () => {
    // 1,300 a day: each day alone is over the cap too.
    github.seedPulls({ repo: 'acme/api', from: '2026-08-01', days: 2, count: 2600 });
    github.repos.add('acme/web');
    const { ok, source, outcomes } = await operator();
    const src = await source();
    const result = await ok('POST', `/outcome-sources/${src.id}/sync?from=2026-08-01&to=2026-08-03`);
    assert.equal(result.rowsWritten, 2600);
    assert.equal((await svc.ctx.db.selectFrom('spend_outcomes').select((eb) => eb.fn.countAll<string>().as('n')).where('source_id', '=', src.id).executeTakeFirstOrThrow()).n, '2600');
    assert.equal((await outcomes()).length, 200, 'the list shows the latest 200');
    const qualifiers = searches().map((r) => /merged:(\S+)/.exec(r.query.get('q') ?? '')?.[1]).filter(Boolean);
    assert.ok(qualifiers.includes('2026-08-01..2026-08-02') && qualifiers.includes('2026-08-01..2026-08-01') && qualifiers.includes('2026-08-02..2026-08-02'), qualifiers.join(' '));
    assert.ok(qualifiers.some((q) => q!.includes('T')), `a single day over the cap is split by time: ${qualifiers.join(' ')}`);
    assert.ok(searches().every((r) => Number(r.query.get('page')) <= 10), 'never a page past the cap');
  });

  test('when GitHub rate-limits (403 with x-ratelimit-reset, 429 with Retry-After) then the sync waits and succeeds; a limit far off is a 502', async () => {
    github.seedPulls({ repo: 'acme/api', from: '2026-09-01', days: 1, count: 3 });
    github.repos.add('acme/web');
    const { ok, call, source } = await operator();
    const src = await source();
    const resetNow = String(Math.floor(Date.now() / 1000));
    github.failNext(1, { status: 403, message: 'API rate limit exceeded for user ID 1.', headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': resetNow } });
    github.failNext(1, { status: 429, retryAfter: '0' });
    assert.equal((await ok('POST', `/outcome-sources/${src.id}/sync?from=2026-09-01&to=2026-09-02`)).rowsWritten, 3);
    const far = String(Math.floor(Date.now() / 1000) + 3600);
    github.failNext(1, { status: 403, message: 'API rate limit exceeded for user ID 1.', headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': far } });
    const refused = await call('POST', `/outcome-sources/${src.id}/sync?from=2026-09-01&to=2026-09-02`);
    assert.equal(refused.status, 502, refused.text);
    assert.equal(refused.body.error.message, 'API rate limit exceeded for user ID 1.');
    assert.deepEqual([refused.body.data.status, refused.body.data.lastError], ['ERROR', 'API rate limit exceeded for user ID 1.']);
    assert.equal((await ok('POST', `/outcome-sources/${src.id}/sync?from=2026-09-01&to=2026-09-02`)).rowsWritten, 3);
    const [healed] = await ok('GET', '/outcome-sources');
    assert.deepEqual([healed.status, healed.lastError], ['ACTIVE', null], 'a successful sync clears the error');
  });

  test('when GitHub refuses a sync then 502 vendor_error, the source is ERROR with the message, and nothing is written', async () => {
    github.seedPulls({ repo: 'acme/api', from: '2026-09-01', days: 1, count: 2 });
    github.repos.add('acme/web');
    const { call, source, outcomes } = await operator();
    const src = await source();
    github.setKey('ghp_rotated');
    const res = await call('POST', `/outcome-sources/${src.id}/sync?from=2026-09-01&to=2026-09-02`);
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.error.code, 'vendor_error');
    assert.deepEqual([res.body.data.status, res.body.data.lastError], ['ERROR', 'Bad credentials']);
    assert.deepEqual(await outcomes(), []);
    const bad = await call('POST', `/outcome-sources/${src.id}/sync?from=2026-09-05&to=2026-09-01`);
    assert.equal(bad.status, 400);
  });

  test('when a source is deleted then the outcomes it pulled go and posted ones (even with the same externalId) stay', async () => {
    github.addPulls([{ repo: 'acme/api', number: 1, title: 'Pulled', author: 'dana', mergedAt: '2026-09-01T09:00:00Z' }]);
    github.repos.add('acme/web');
    const { ok, call, source, outcomes } = await operator();
    const src = await source();
    await ok('POST', `/outcome-sources/${src.id}/sync?from=2026-09-01&to=2026-09-02`);
    const posted = await ok('POST', '/outcomes', { kind: 'PR_MERGED', externalId: 'acme/api#1', title: 'Posted', aiAssisted: true }, 201);
    await ok('POST', '/outcomes', { kind: 'CUSTOM', externalId: 'launch' }, 201);
    assert.deepEqual((await outcomes()).map((o) => `${o.source}:${o.externalId}:${o.title}`).sort(), ['GITHUB:acme/api#1:Pulled', 'MANUAL:acme/api#1:Posted', 'MANUAL:launch:null']);
    assert.equal((await call('DELETE', `/outcome-sources/${src.id}`)).status, 200);
    const left = await outcomes();
    assert.deepEqual(left.map((o) => `${o.source}:${o.externalId}`), ['MANUAL:acme/api#1', 'MANUAL:launch']);
    assert.equal(left[0].id, posted.id);
    assert.deepEqual(await ok('GET', '/outcome-sources'), []);
    assert.equal((await call('DELETE', `/outcome-sources/${src.id}`)).status, 404);
    assert.equal((await call('POST', `/outcome-sources/${src.id}/sync`)).status, 404);
    const other = await operator();
    const theirs = await other.source();
    assert.equal((await call('DELETE', `/outcome-sources/${theirs.id}`)).status, 404, "another account's source is not found");
  });

  test('the job at minute 45 pulls the last 3 days of each ACTIVE source, and a slot never overlaps a run still going', async () => {
    github.addPulls([
      { repo: 'acme/api', number: 1, title: 'Recent', author: 'dana', mergedAt: '2026-09-09T10:00:00Z' },
      { repo: 'acme/api', number: 2, title: 'Old', author: 'dana', mergedAt: '2026-09-05T10:00:00Z' },
    ]);
    github.repos.add('acme/web');
    const { source, outcomes, call } = await operator();
    await source();
    const broken = await call('POST', '/outcome-sources', { source: 'GITHUB', label: 'Broken', token: 'ghp_wrong', scope: 'acme/api' });
    assert.equal(broken.status, 502);
    svc.clock.set('2026-09-10T12:45:00Z');
    github.requests.length = 0;
    const outcome = await svc.scheduler.run('spend-outcome-sync');
    assert.equal(outcome.status, 'ran');
    assert.deepEqual((await outcomes()).map((o) => o.externalId), ['acme/api#1']);
    assert.ok(searches().every((r) => r.query.get('q')!.endsWith('merged:2026-09-08..2026-09-10')), searches().map((r) => r.query.get('q')).join('\n'));
    assert.ok(searches().every((r) => r.headers['authorization'] === `Bearer ${GITHUB_FAKE_KEY}`), 'the ERROR source is not pulled');

    // A run that outlasts its hour: the next slot skips instead of running beside it.
    github.failNext(1, { status: 200, json: { total_count: 0, incomplete_results: false, items: [] }, delayMs: 1500 });
    svc.clock.set('2026-09-10T13:45:00Z');
    const slow = svc.scheduler.run('spend-outcome-sync');
    await new Promise((r) => setTimeout(r, 300));
    const before = searches().length;
    svc.clock.set('2026-09-10T14:45:00Z');
    const next = await svc.scheduler.run('spend-outcome-sync');
    assert.equal(next.status, 'ran');
    assert.equal(searches().length, before, 'the overlapping slot called GitHub not at all');
    assert.match(svc.logs(), /the previous outcome sync is still running/);
    assert.equal((await slow).status, 'ran');
  });
});
