import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startGithubFake } from '../../../../test/fakes/vendors/github.js';
import { loopbackSuite, vendorRefusal } from '../../../../test/fakes/vendors/client-kit.js';
import { createCopilotClient, GITHUB_API_VERSION } from './copilot.js';
import { VendorError } from './types.js';

describe('Copilot client against the loopback GitHub fake (vendor-apis.md §4)', () => {
  const suite = loopbackSuite(startGithubFake, createCopilotClient, (f) => f.org);
  const client = suite.client;

  test('when probing then it reads one seat of the organisation with GitHub\'s headers', async () => {
    const req = await suite.probeRequest();
    assert.equal(req.path, '/orgs/acme/copilot/billing/seats');
    assert.equal(req.query.get('per_page'), '1');
    assert.equal(req.headers['authorization'], `Bearer ${suite.fake.key}`);
    assert.equal(req.headers['accept'], 'application/vnd.github+json');
    assert.equal(req.headers['x-github-api-version'], GITHUB_API_VERSION);
  });

  test('when the token is refused then probe throws VendorError with GitHub\'s message', async () => {
    const err = await vendorRefusal(client({ adminKey: 'ghp_wrong' }).probe());
    assert.equal(err.message, 'Bad credentials');
    assert.equal(err.status, 401);
    assert.equal(suite.fake.requests.length, 1);
  });

  test('when the organisation is unknown then probe fails with Not Found', async () => {
    await assert.rejects(client({ scope: 'someone-else' }).probe(), { name: 'VendorError', message: 'Not Found' });
  });

  test('when no organisation is given then the client refuses before calling GitHub', async () => {
    await assert.rejects(client({ scope: '  ' }).probe(), { name: 'VendorError', message: 'COPILOT needs the GitHub organisation as its scope' });
    assert.equal(suite.fake.requests.length, 0);
  });

  test('when reports exist then each day\'s NDJSON records become per-person rows with no dollar figure', async () => {
    suite.fake.seedDays({ from: '2026-09-01', days: 2, users: ['dana'] });
    suite.fake.addRecords([{ day: '2026-09-02', user_id: 7, user_login: 'eli', user_initiated_interaction_count: 3, loc_added_sum: 5 }]);
    const pull = await client().pull({ from: '2026-09-01', to: '2026-09-04' });
    assert.deepEqual(pull.usage, []);
    assert.deepEqual(pull.costs, []);
    const rows = [...pull.actors].sort((a, b) => (a.day + a.actor).localeCompare(b.day + b.actor));
    assert.deepEqual(rows.map((r) => [r.day, r.actor]), [['2026-09-01', 'dana'], ['2026-09-02', 'dana'], ['2026-09-02', 'eli']]);
    assert.deepEqual(rows[0], {
      day: '2026-09-01', actor: 'dana', tool: 'copilot', model: '',
      uncachedInputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, outputTokens: 500n, totalTokens: 3500n,
      sessions: 2n, requests: 14n, linesAdded: 180n, linesRemoved: 12n, accepted: 22n, rejected: null,
      commits: null, pullRequests: null, creditsUsed: null, vendorCostCents: null,
    });
    assert.deepEqual([rows[2]!.requests, rows[2]!.linesAdded, rows[2]!.linesRemoved, rows[2]!.totalTokens], [3n, 5n, null, null]);
    // One report call per day ([from, to) has 3 days; the third has no data: 204).
    const reportCalls = suite.fake.requests.filter((r) => r.path.endsWith('/users-1-day'));
    assert.deepEqual(reportCalls.map((r) => r.query.get('day')), ['2026-09-01', '2026-09-02', '2026-09-03']);
  });

  test('when a report is split over several links then every file is read, without the GitHub token', async () => {
    suite.fake.seedDays({ from: '2026-09-01', days: 1, users: ['a', 'b', 'c'] });
    suite.fake.linksPerReport = 2;
    const pull = await client().pull({ from: '2026-09-01', to: '2026-09-02' });
    assert.deepEqual(pull.actors.map((r) => r.actor).sort(), ['a', 'b', 'c']);
    const downloads = suite.fake.requests.filter((r) => r.path.startsWith('/_reports/'));
    assert.equal(downloads.length, 2);
    for (const d of downloads) assert.equal(d.headers['authorization'], undefined);
  });

  test('when seats span pages then every page is read', async () => {
    suite.fake.seedSeats(5);
    suite.fake.pageSize = 2;
    const seats = await client().listSeats();
    assert.deepEqual(seats.map((s) => s.login), ['user1', 'user2', 'user3', 'user4', 'user5']);
    assert.equal(seats[0]!.planType, 'business');
    assert.deepEqual(suite.fake.requests.map((r) => r.query.get('page')), ['1', '2', '3']);
  });

  test('when GitHub answers 429 with Retry-After then the client waits and retries', async () => {
    suite.fake.seedDays({ from: '2026-09-01', days: 1, users: ['dana'] });
    suite.fake.failNext(1, { status: 429, retryAfter: '2' });
    const pull = await client().pull({ from: '2026-09-01', to: '2026-09-02' });
    assert.deepEqual(suite.waits, [2000]);
    assert.equal(pull.actors.length, 1);
  });

  test('when the report download fails with 5xx then it is retried, and refused once retries run out', async () => {
    suite.fake.seedDays({ from: '2026-09-01', days: 1, users: ['dana'] });
    suite.fake.failNext(1, { status: 503, pathPrefix: '/_reports/' });
    const pull = await client().pull({ from: '2026-09-01', to: '2026-09-02' });
    assert.equal(pull.actors.length, 1);
    assert.equal(suite.waits.length, 1);
    assert.deepEqual(suite.fake.requests.map((r) => r.path.startsWith('/_reports/')), [false, true, true]);

    suite.fake.failNext(1, { status: 502, pathPrefix: '/_reports/' });
    await assert.rejects(client({ maxRetries: 0 }).pull({ from: '2026-09-01', to: '2026-09-02' }), { name: 'VendorError', message: 'Server Error' });
  });

  test('when retries run out then the client stops after maxRetries + 1 calls', async () => {
    suite.fake.failNext(5, { status: 500 });
    await assert.rejects(client({ maxRetries: 1 }).probe(), (err: unknown) => err instanceof VendorError && err.status === 500 && err.message === 'Server Error');
    assert.equal(suite.fake.requests.length, 2);
  });

  test('when GitHub does not answer in time then the client reports a timeout', async () => {
    suite.fake.failNext(1, { status: 500, delayMs: 1000 });
    await assert.rejects(client({ timeoutMs: 100, maxRetries: 0 }).probe(), { name: 'VendorError', message: 'GitHub did not answer within 100 ms' });
  });
});
