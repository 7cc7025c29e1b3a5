import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startCursorFake } from '../../../../test/fakes/vendors/cursor.js';
import { loopbackSuite, vendorRefusal } from '../../../../test/fakes/vendors/client-kit.js';
import { dec } from '../../../platform/money.js';
import { createCursorClient } from './cursor.js';

const DAY = 86_400_000;
const ms = (day: string, plusMs = 0) => String(Date.parse(`${day}T00:00:00Z`) + plusMs);

describe('Cursor client against the loopback fake (vendor-apis.md §3)', () => {
  const suite = loopbackSuite(startCursorFake, createCursorClient, () => null);
  const client = suite.client;

  test('when probing then it lists members with Basic auth (key as user, empty password)', async () => {
    const req = await suite.probeRequest();
    assert.equal(req.method, 'GET');
    assert.equal(req.path, '/teams/members');
    assert.equal(req.headers['authorization'], `Basic ${Buffer.from(`${suite.fake.key}:`).toString('base64')}`);
  });

  test('when the key is refused then probe throws VendorError with Cursor\'s message, not retried', async () => {
    const err = await vendorRefusal(client({ adminKey: 'key_wrong' }).probe());
    assert.equal(err.message, 'Invalid API key');
    assert.equal(err.status, 401);
    assert.equal(suite.fake.requests.length, 1);
    assert.deepEqual(suite.waits, []);
  });

  test('when events carry fractional cents then they sum exactly per day, model and person', async () => {
    suite.fake.addEvents([
      { timestamp: ms('2026-09-01', 3_600_000), userEmail: 'dana@example.com', model: 'claude-4.5-sonnet', chargedCents: '0.1',
        tokenUsage: { inputTokens: 1200, outputTokens: 800, cacheWriteTokens: 5000, cacheReadTokens: 20000, totalCents: '0.05' } },
      { timestamp: ms('2026-09-01', 7_200_000), userEmail: 'dana@example.com', model: 'claude-4.5-sonnet', chargedCents: '0.2',
        tokenUsage: { inputTokens: 1, outputTokens: 2, cacheWriteTokens: 3, cacheReadTokens: 4, totalCents: '0.1' } },
      // Beyond what a binary float can hold: kept digit for digit.
      { timestamp: ms('2026-09-02', DAY - 1), userEmail: 'dana@example.com', model: 'gpt-5', chargedCents: '1250.12345678901234567891' },
      { timestamp: ms('2026-09-02', 5), userEmail: '', serviceAccountId: 'sa_1', model: 'gpt-5', chargedCents: 2 },
      // Outside [from, to): never reported even if the vendor returned it.
      { timestamp: ms('2026-09-03'), userEmail: 'dana@example.com', model: 'gpt-5', chargedCents: '9' },
    ]);
    const pull = await client().pull({ from: '2026-09-01', to: '2026-09-03' });
    const usage = pull.usage.map((u) => ({ ...u, vendorCostCents: u.vendorCostCents?.toFixed() ?? null }))
      .sort((a, b) => (a.day + a.model + a.actor).localeCompare(b.day + b.model + b.actor));
    assert.deepEqual(usage, [
      { day: '2026-09-01', model: 'claude-4.5-sonnet', workspaceId: '', apiKeyId: '', actor: 'dana@example.com', serviceTier: '',
        uncachedInputTokens: 1201n, cacheReadTokens: 20004n, cacheWrite5mTokens: 5003n, cacheWrite1hTokens: 0n, outputTokens: 802n,
        requests: 2n, vendorCostCents: '0.3' },
      { day: '2026-09-02', model: 'gpt-5', workspaceId: '', apiKeyId: '', actor: 'dana@example.com', serviceTier: '',
        uncachedInputTokens: 0n, cacheReadTokens: 0n, cacheWrite5mTokens: 0n, cacheWrite1hTokens: 0n, outputTokens: 0n,
        requests: 1n, vendorCostCents: '1250.12345678901234567891' },
      { day: '2026-09-02', model: 'gpt-5', workspaceId: '', apiKeyId: '', actor: 'sa_1', serviceTier: '',
        uncachedInputTokens: 0n, cacheReadTokens: 0n, cacheWrite5mTokens: 0n, cacheWrite1hTokens: 0n, outputTokens: 0n,
        requests: 1n, vendorCostCents: '2' },
    ]);
    assert.deepEqual(pull.costs, []);
    const sonnet = pull.actors.find((a) => a.day === '2026-09-01' && a.model === 'claude-4.5-sonnet')!;
    assert.equal(sonnet.tool, 'cursor');
    assert.equal(sonnet.totalTokens, 1201n + 20004n + 5003n + 802n);
    assert.equal(sonnet.requests, 2n);
    assert.equal(sonnet.vendorCostCents?.toFixed(), '0.3');
    assert.equal(sonnet.linesAdded, null);
  });

  test('when the window is sent then bodies carry epoch ms with an inclusive end at 23:59:59.999', async () => {
    await client().pull({ from: '2026-09-01', to: '2026-09-03' });
    const bodies = suite.fake.requests.map((r) => ({ path: r.path, json: r.json }));
    assert.deepEqual(bodies, [
      { path: '/teams/filtered-usage-events', json: { startDate: Date.parse('2026-09-01T00:00:00Z'), endDate: Date.parse('2026-09-03T00:00:00Z') - 1, page: 1, pageSize: 1000 } },
      { path: '/teams/daily-usage-data', json: { startDate: Date.parse('2026-09-01T00:00:00Z'), endDate: Date.parse('2026-09-03T00:00:00Z') - 1, page: 1, pageSize: 500 } },
    ]);
    assert.equal(suite.fake.requests[0]!.headers['content-type'], 'application/json');
  });

  test('when daily activity is pulled then active members become per-person rows with lines, accepts and rejects', async () => {
    suite.fake.addDaily([
      { userId: 101, day: '2026-09-01', email: 'dana@example.com', isActive: true, totalLinesAdded: 120, totalLinesDeleted: 30,
        acceptedLinesAdded: 90, acceptedLinesDeleted: 20, totalAccepts: 6, totalRejects: 2, totalTabsAccepted: 31 },
      { userId: 102, day: '2026-09-01', email: 'eli@example.com', isActive: false, totalLinesAdded: 0, acceptedLinesAdded: 0 },
    ]);
    const { actors, usage } = await client().pull({ from: '2026-09-01', to: '2026-09-02' });
    assert.deepEqual(usage, []);
    assert.deepEqual(actors, [{
      day: '2026-09-01', actor: 'dana@example.com', tool: 'cursor', model: '',
      uncachedInputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, outputTokens: null, totalTokens: null,
      sessions: null, requests: null, linesAdded: 90n, linesRemoved: 20n, accepted: 37n, rejected: 2n,
      commits: null, pullRequests: null, creditsUsed: null, vendorCostCents: null,
    }]);
  });

  test('when results span pages then every page is fetched (events and users)', async () => {
    const seeded = suite.fake.seedDays({ from: '2026-09-01', days: 3, users: ['a@x.com', 'b@x.com', 'c@x.com'], models: ['m1'] });
    suite.fake.pageSize = 2;
    const pull = await client().pull({ from: '2026-09-01', to: '2026-09-04' });
    assert.equal(seeded.events, 9);
    assert.equal(suite.fake.served('/teams/filtered-usage-events'), 5);
    assert.equal(suite.fake.served('/teams/daily-usage-data'), 2);
    assert.deepEqual(suite.fake.requests.filter((r) => r.path === '/teams/filtered-usage-events').map((r) => (r.json as { page: number }).page), [1, 2, 3, 4, 5]);
    assert.equal(pull.usage.length, 9);
    assert.equal(pull.usage.reduce((sum, u) => sum + (u.requests ?? 0n), 0n), 9n);
    assert.equal(pull.usage.reduce((sum, u) => sum.plus(u.vendorCostCents!), dec(0)).toFixed(), seeded.chargedCents.toFixed());
    assert.equal(pull.actors.filter((a) => a.model === '').length, 9);
  });

  test('when the window is longer than 30 days then it is asked in pieces of at most 30 days', async () => {
    suite.fake.seedDays({ from: '2026-08-01', days: 45, users: ['a@x.com'], models: ['m1'] });
    const pull = await client().pull({ from: '2026-08-01', to: '2026-09-15' });
    assert.equal(pull.usage.length, 45);
    const events = suite.fake.requests.filter((r) => r.path === '/teams/filtered-usage-events').map((r) => r.json as { startDate: number; endDate: number });
    assert.deepEqual(events.map((b) => [b.startDate, b.endDate + 1]), [
      [Date.parse('2026-08-01T00:00:00Z'), Date.parse('2026-08-31T00:00:00Z')],
      [Date.parse('2026-08-31T00:00:00Z'), Date.parse('2026-09-15T00:00:00Z')],
    ]);
  });

  test('when Cursor answers 429 with Retry-After then the client waits that long and retries', async () => {
    suite.fake.seedDays({ from: '2026-09-01', days: 1, users: ['a@x.com'], models: ['m1'] });
    suite.fake.failNext(2, { status: 429, retryAfter: '3' });
    const pull = await client().pull({ from: '2026-09-01', to: '2026-09-02' });
    assert.deepEqual(suite.waits, [3000, 3000]);
    assert.equal(pull.usage.length, 1);
  });

  test('when Cursor answers 5xx once then the client backs off and succeeds', async () => {
    suite.fake.failNext(1, { status: 503 });
    await client().probe();
    assert.equal(suite.waits.length, 1);
    assert.ok(suite.waits[0]! >= 0 && suite.waits[0]! < 500);
    assert.equal(suite.fake.requests.length, 2);
  });

  test('when every retry fails then the client gives up after maxRetries with the vendor message', async () => {
    suite.fake.failNext(10, { status: 429, retryAfter: '1' });
    const err = await vendorRefusal(client({ maxRetries: 2 }).probe());
    assert.equal(err.status, 429);
    assert.equal(err.message, 'Rate limit exceeded. Please try again later.');
    assert.equal(suite.fake.requests.length, 3);
    assert.deepEqual(suite.waits, [1000, 1000]);
  });

  test('when Cursor does not answer in time then the client reports a timeout', async () => {
    suite.fake.failNext(1, { status: 500, delayMs: 1000 });
    const err = await vendorRefusal(client({ timeoutMs: 100, maxRetries: 0 }).probe());
    assert.equal(err.message, 'Cursor did not answer within 100 ms');
    assert.equal(err.status, null);
  });
});
