import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startLiteLlmFake, type LiteLlmFakeLog } from '../../../../test/fakes/vendors/litellm.js';
import { loopbackSuite, vendorRefusal } from '../../../../test/fakes/vendors/client-kit.js';
import { createLiteLlmClient } from './litellm.js';

function log(overrides: Partial<LiteLlmFakeLog> & { startTime: string }): LiteLlmFakeLog {
  return {
    request_id: `req-${Math.random()}`, model: 'gpt-5-mini', spend: '0', prompt_tokens: 0, completion_tokens: 0,
    user: 'dana@example.com', team_id: 'team-platform', api_key: 'hash-1', ...overrides,
  };
}

describe('LiteLLM client against the loopback proxy fake (vendor-apis.md §5)', () => {
  const suite = loopbackSuite(startLiteLlmFake, createLiteLlmClient, (f) => f.url);
  const client = suite.client;

  test('when probing then it reads one spend log row with the bearer key', async () => {
    const req = await suite.probeRequest();
    assert.equal(req.path, '/spend/logs/v2');
    assert.equal(req.query.get('page_size'), '1');
    assert.equal(req.headers['authorization'], `Bearer ${suite.fake.key}`);
  });

  test('when the key is refused then the error is the proxy\'s JSON message', async () => {
    const err = await vendorRefusal(client({ adminKey: 'sk-wrong-abcd' }).probe());
    assert.equal(err.status, 401);
    assert.match(err.message, /^Authentication Error, Invalid proxy server token passed\. Received API Key = sk-\.\.\.abcd/);
  });

  test('when float dollars are summed then cents are exact (0.1 + 0.2 dollars = 30 cents)', async () => {
    suite.fake.addLogs([
      log({ startTime: '2026-09-01T10:00:00.000Z', spend: '0.1' }),
      log({ startTime: '2026-09-01T11:00:00.000Z', spend: '0.2' }),
      log({ startTime: '2026-09-02T11:00:00.000Z', spend: '0.123456789012345678' }),
    ]);
    const { usage } = await client().pull({ from: '2026-09-01', to: '2026-09-03' });
    const byDay = Object.fromEntries(usage.map((u) => [u.day, u.vendorCostCents?.toFixed()]));
    assert.deepEqual(byDay, { '2026-09-01': '30', '2026-09-02': '12.3456789012345678' });
    assert.equal(usage.find((u) => u.day === '2026-09-01')!.requests, 2n);
  });

  test('when logs carry team, key, user and cache details then they map to the usage dimensions', async () => {
    suite.fake.addLogs([
      log({ startTime: '2026-09-01T10:00:00.000Z', model: 'claude-sonnet-4-5-20250929', spend: '0.0081', prompt_tokens: 1200, completion_tokens: 300,
        metadata: { usage_object: { cache_read_input_tokens: 200, cache_creation_input_tokens: 100 } } }),
      // Team and user only in the metadata; cache read only as OpenAI's cached_tokens; metadata as a JSON string.
      log({ startTime: '2026-09-01 23:59:59', team_id: null, user: null, api_key: 'hash-2', prompt_tokens: 1000, completion_tokens: 10,
        metadata: JSON.stringify({ user_api_key_team_id: 'team-data', user_api_key_user_id: 'eli', usage_object: { prompt_tokens_details: { cached_tokens: 400 } } }) }),
      // A prompt that does not hold the cache tokens is already the uncached input.
      log({ startTime: '2026-09-02T00:00:00Z', model: 'gpt-5-mini', prompt_tokens: 50, completion_tokens: 5,
        metadata: { usage_object: { cache_read_input_tokens: 70 } } }),
    ]);
    const { usage, costs, actors } = await client().pull({ from: '2026-09-01', to: '2026-09-03' });
    assert.deepEqual(costs, []);
    assert.deepEqual(actors, []);
    const rows = usage.map((u) => ({ ...u, vendorCostCents: u.vendorCostCents?.toFixed() ?? null })).sort((a, b) => (a.day + a.apiKeyId).localeCompare(b.day + b.apiKeyId));
    assert.deepEqual(rows, [
      { day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', workspaceId: 'team-platform', apiKeyId: 'hash-1', actor: 'dana@example.com', serviceTier: '',
        uncachedInputTokens: 900n, cacheReadTokens: 200n, cacheWrite5mTokens: 100n, cacheWrite1hTokens: 0n, outputTokens: 300n, requests: 1n, vendorCostCents: '0.81' },
      { day: '2026-09-01', model: 'gpt-5-mini', workspaceId: 'team-data', apiKeyId: 'hash-2', actor: 'eli', serviceTier: '',
        uncachedInputTokens: 600n, cacheReadTokens: 400n, cacheWrite5mTokens: 0n, cacheWrite1hTokens: 0n, outputTokens: 10n, requests: 1n, vendorCostCents: '0' },
      { day: '2026-09-02', model: 'gpt-5-mini', workspaceId: 'team-platform', apiKeyId: 'hash-1', actor: 'dana@example.com', serviceTier: '',
        uncachedInputTokens: 50n, cacheReadTokens: 70n, cacheWrite5mTokens: 0n, cacheWrite1hTokens: 0n, outputTokens: 5n, requests: 1n, vendorCostCents: '0' },
    ]);
  });

  test('when a window is pulled then both bounds are sent inclusive as YYYY-MM-DD HH:MM:SS', async () => {
    suite.fake.addLogs([log({ startTime: '2026-09-03T00:00:00.000Z', spend: '5' })]);
    const { usage } = await client().pull({ from: '2026-09-01', to: '2026-09-03' });
    assert.deepEqual(usage, []);
    const q = suite.fake.requests[0]!.query;
    assert.deepEqual([q.get('start_date'), q.get('end_date'), q.get('page'), q.get('page_size'), q.get('sort_by'), q.get('sort_order')],
      ['2026-09-01 00:00:00', '2026-09-02 23:59:59', '1', '1000', 'startTime', 'asc']);
  });

  test('when logs span pages then every page is read', async () => {
    const seeded = suite.fake.seedDays({ from: '2026-09-01', days: 1, users: ['a', 'b', 'c', 'd', 'e'], models: ['m'] });
    suite.fake.pageSize = 2;
    const { usage } = await client().pull({ from: '2026-09-01', to: '2026-09-02' });
    assert.equal(usage.length, 5);
    assert.deepEqual(suite.fake.requests.map((r) => r.query.get('page')), ['1', '2', '3']);
    const cents = usage.reduce((sum, u) => sum.plus(u.vendorCostCents!), seeded.spendDollars.times(0));
    assert.equal(cents.toFixed(), seeded.spendDollars.times(100).toFixed());
  });

  test('when the total is capped then the window is split by days and a capped day is paged until empty', async () => {
    suite.fake.seedDays({ from: '2026-09-01', days: 4, users: ['a', 'b', 'c'], models: ['m'] });
    suite.fake.totalCap = 2;
    suite.fake.pageSize = 2;
    const { usage } = await client().pull({ from: '2026-09-01', to: '2026-09-05' });
    assert.equal(usage.length, 12);
    assert.equal(usage.reduce((n, u) => n + (u.requests ?? 0n), 0n), 12n);
    const asked = suite.fake.requests.map((r) => `${r.query.get('start_date')!.slice(5, 10)}..${r.query.get('end_date')!.slice(5, 10)}#${r.query.get('page')}`);
    assert.deepEqual(asked, [
      '09-01..09-04#1', '09-01..09-02#1', '09-01..09-01#1', '09-01..09-01#2', '09-01..09-01#3',
      '09-02..09-02#1', '09-02..09-02#2', '09-02..09-02#3', '09-03..09-04#1', '09-03..09-03#1', '09-03..09-03#2', '09-03..09-03#3',
      '09-04..09-04#1', '09-04..09-04#2', '09-04..09-04#3',
    ]);
  });

  test('when the proxy answers 429 with Retry-After then the client waits and retries', async () => {
    suite.fake.seedDays({ from: '2026-09-01', days: 1, users: ['a'], models: ['m'] });
    suite.fake.failNext(1, { status: 429, retryAfter: '7' });
    const { usage } = await client().pull({ from: '2026-09-01', to: '2026-09-02' });
    assert.deepEqual(suite.waits, [7000]);
    assert.equal(usage.length, 1);
  });

  test('when the proxy answers 5xx twice then the client backs off and succeeds', async () => {
    suite.fake.failNext(2, { status: 500 });
    await client().probe();
    assert.equal(suite.waits.length, 2);
    assert.equal(suite.fake.requests.length, 3);
  });

  test('when a reverse proxy answers an HTML page then the message is generic, never the body', async () => {
    suite.fake.failNext(10, { status: 502, text: '<html><body><h1>502 Bad Gateway</h1>nginx secret-host.internal</body></html>' });
    const err = await vendorRefusal(client({ maxRetries: 2 }).probe());
    assert.equal(err.message, 'LiteLLM answered HTTP 502');
    assert.equal(err.status, 502);
    assert.equal(suite.fake.requests.length, 3);

    suite.fake.reset();
    suite.fake.failNext(1, { status: 403, text: '<html>Forbidden by corp proxy</html>' });
    assert.equal((await vendorRefusal(client().probe())).message, 'LiteLLM answered HTTP 403');
  });

  test('when the proxy answers FastAPI detail then the detail is the message (string, object or validation list)', async () => {
    suite.fake.failNext(1, { status: 400, json: { detail: 'Invalid date range' } });
    assert.equal((await vendorRefusal(client().probe())).message, 'Invalid date range');
    suite.fake.failNext(1, { status: 403, json: { detail: { error: 'Only proxy admins can view spend logs' } } });
    assert.equal((await vendorRefusal(client().probe())).message, 'Only proxy admins can view spend logs');
    suite.fake.failNext(1, { status: 422, json: { detail: [{ loc: ['query', 'page'], msg: 'value is not a valid integer', type: 'type_error' }] } });
    assert.equal((await vendorRefusal(client().probe())).message, 'value is not a valid integer');
    // A JSON body with neither message nor detail is not echoed either.
    suite.fake.failNext(1, { status: 400, json: { secret: 'do not show' } });
    assert.equal((await vendorRefusal(client().probe())).message, 'LiteLLM answered HTTP 400');
  });

  test('when the proxy does not answer in time then the client reports a timeout', async () => {
    suite.fake.failNext(1, { status: 500, delayMs: 1000 });
    assert.equal((await vendorRefusal(client({ timeoutMs: 100, maxRetries: 0 }).probe())).message, 'LiteLLM did not answer within 100 ms');
  });
});
