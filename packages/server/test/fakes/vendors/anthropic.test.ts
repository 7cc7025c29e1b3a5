import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createAnthropicClient } from '../../../src/modules/spend/vendors/anthropic.js';
import { VendorError, type VendorClientOptions } from '../../../src/modules/spend/vendors/types.js';
import { ANTHROPIC_FAKE_KEY, startAnthropicFake, type AnthropicFake } from './anthropic.js';

/** The Anthropic client against its loopback fake (vendor-apis.md §1): paths, paging, units, retries, refusals. */
describe('Anthropic client and fake', () => {
  let fake: AnthropicFake;
  let waits: number[];

  function client(overrides: Partial<VendorClientOptions> = {}) {
    return createAnthropicClient({
      baseUrl: fake.url,
      adminKey: ANTHROPIC_FAKE_KEY,
      scope: null,
      timeoutMs: 2000,
      maxRetries: 3,
      sleep: async (ms) => void waits.push(ms),
      ...overrides,
    });
  }

  before(async () => {
    fake = await startAnthropicFake();
  });
  after(() => fake.close());
  beforeEach(() => {
    waits = [];
    fake.reset();
  });

  test('when the key is an admin key then probe resolves with one call to /v1/organizations/me carrying the headers', async () => {
    await client().probe();
    assert.equal(fake.requests.length, 1);
    const [req] = fake.requests;
    assert.equal(req!.path, '/v1/organizations/me');
    assert.equal(req!.headers['x-api-key'], ANTHROPIC_FAKE_KEY);
    assert.equal(req!.headers['anthropic-version'], '2023-06-01');
    assert.equal(req!.headers['user-agent'], 'tally-spend/1.0');
  });

  test('when the key is refused then probe throws VendorError with Anthropic\'s message and status 401, not retried', async () => {
    await assert.rejects(client({ adminKey: 'sk-ant-admin01-wrong' }).probe(), (err: unknown) => {
      assert.ok(err instanceof VendorError);
      assert.equal(err.message, 'invalid x-api-key');
      assert.equal(err.status, 401);
      return true;
    });
    assert.equal(fake.requests.length, 1);
    fake.refuseKey();
    await assert.rejects(client().probe(), { name: 'VendorError', message: 'invalid x-api-key' });
  });

  test('when a 31-day window pages 5 buckets at a time then every usage bucket, cost line and Claude Code day arrives once', async () => {
    const seeded = fake.seedDays({ from: '2026-09-01', days: 31 });
    fake.setPageSize(5);
    const pulled = await client().pull({ from: '2026-09-01', to: '2026-10-02' });
    assert.equal(pulled.usage.length, seeded.usage.length);
    assert.equal(pulled.costs.length, seeded.costs.length);
    const usageCalls = fake.requests.filter((r) => r.path === '/v1/organizations/usage_report/messages');
    assert.equal(usageCalls.length, 7, '31 buckets at 5 per page');
    assert.equal(usageCalls[0]!.query.get('page'), null);
    for (let i = 1; i < usageCalls.length; i += 1) assert.ok(usageCalls[i]!.query.get('page'), 'later pages send next_page');
    for (const call of usageCalls) {
      assert.equal(call.query.get('starting_at'), '2026-09-01T00:00:00Z');
      assert.equal(call.query.get('ending_at'), '2026-10-02T00:00:00Z');
      assert.equal(call.query.get('bucket_width'), '1d');
      assert.deepEqual(call.query.getAll('group_by[]'), ['model', 'workspace_id', 'api_key_id', 'service_tier']);
    }
    const costCalls = fake.requests.filter((r) => r.path === '/v1/organizations/cost_report');
    assert.deepEqual(costCalls[0]!.query.getAll('group_by[]'), ['workspace_id', 'description']);
    const ccCalls = fake.requests.filter((r) => r.path === '/v1/organizations/usage_report/claude_code');
    assert.equal(ccCalls.length, 31, 'one call per day');
    assert.deepEqual(ccCalls.slice(0, 2).map((r) => r.query.get('starting_at')), ['2026-09-01', '2026-09-02']);
    const days = new Set(pulled.usage.map((u) => u.day));
    assert.equal(days.size, 31);
    assert.ok(days.has('2026-10-01') && !days.has('2026-10-02'));
    // Activity row + one model row per person and day.
    assert.equal(pulled.actors.length, 62);
  });

  test('when usage is grouped then every dimension maps, the default workspace is empty, tokens are bigint and requests null', async () => {
    fake.addUsage(
      { day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', workspaceId: 'wrkspc_01AbCdEf', apiKeyId: 'apikey_01', serviceTier: 'batch',
        uncachedInputTokens: 120000, cacheReadTokens: 800000, cacheWrite5mTokens: 40000, cacheWrite1hTokens: 7, outputTokens: 35000 },
      { day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', workspaceId: 'wrkspc_01AbCdEf', apiKeyId: 'apikey_01', serviceTier: 'batch',
        uncachedInputTokens: 1n, outputTokens: '9007199254740993' },
      { day: '2026-09-02', model: 'claude-haiku-4-5-20251001', workspaceId: null, apiKeyId: null, uncachedInputTokens: 5 },
    );
    const { usage } = await client().pull({ from: '2026-09-01', to: '2026-09-03' });
    assert.deepEqual(usage, [
      { day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', workspaceId: 'wrkspc_01AbCdEf', apiKeyId: 'apikey_01', actor: '', serviceTier: 'batch',
        uncachedInputTokens: 120001n, cacheReadTokens: 800000n, cacheWrite5mTokens: 40000n, cacheWrite1hTokens: 7n,
        outputTokens: 9007199254775993n, requests: null, vendorCostCents: null },
      { day: '2026-09-02', model: 'claude-haiku-4-5-20251001', workspaceId: '', apiKeyId: '', actor: '', serviceTier: 'standard',
        uncachedInputTokens: 5n, cacheReadTokens: 0n, cacheWrite5mTokens: 0n, cacheWrite1hTokens: 0n,
        outputTokens: 0n, requests: null, vendorCostCents: null },
    ]);
  });

  test('when cost amounts are decimal strings of cents then they stay exact, with model, description and cost type', async () => {
    fake.addCosts(
      { day: '2026-09-01', workspaceId: 'wrkspc_01AbCdEf', description: 'Claude Sonnet 4.5 Usage - Input Tokens', amountCents: '123.78912',
        costType: 'tokens', model: 'claude-sonnet-4-5-20250929', tokenType: 'uncached_input_tokens' },
      { day: '2026-09-01', workspaceId: null, description: 'Code Execution Usage', amountCents: '0.1', costType: 'code_execution' },
      { day: '2026-09-01', workspaceId: null, description: 'Code Execution Usage', amountCents: '0.2', costType: 'code_execution' },
      { day: '2026-09-02', workspaceId: null, description: 'Web Search', amountCents: '0.000000000000000001', costType: 'web_search' },
    );
    const { costs } = await client().pull({ from: '2026-09-01', to: '2026-09-03' });
    assert.deepEqual(
      costs.map((c) => ({ ...c, amountCents: c.amountCents.toFixed() })),
      [
        { day: '2026-09-01', workspaceId: 'wrkspc_01AbCdEf', model: 'claude-sonnet-4-5-20250929', description: 'Claude Sonnet 4.5 Usage - Input Tokens', costType: 'tokens', amountCents: '123.78912' },
        { day: '2026-09-01', workspaceId: '', model: null, description: 'Code Execution Usage', costType: 'code_execution', amountCents: '0.3' },
        { day: '2026-09-02', workspaceId: '', model: null, description: 'Web Search', costType: 'web_search', amountCents: '0.000000000000000001' },
      ],
    );
  });

  test('when Claude Code reports people then each gets an activity row and a row per model, records of one person summed, cents exact', async () => {
    fake.addClaudeCode(
      { day: '2026-09-01', email: 'dana@example.com', terminalType: 'vscode', sessions: 4, linesAdded: 310, linesRemoved: 42, commits: 3, pullRequests: 1,
        toolActions: { edit_tool: { accepted: 20, rejected: 2 }, write_tool: { accepted: 5, rejected: 0 } },
        models: [{ model: 'claude-sonnet-4-5-20250929', input: 50000, output: 12000, cacheRead: 400000, cacheCreation: 20000, costCents: '52.1' }] },
      { day: '2026-09-01', email: 'dana@example.com', terminalType: 'tmux', sessions: 1, linesAdded: 1,
        models: [{ model: 'claude-sonnet-4-5-20250929', input: 1, costCents: '0.2' }] },
      { day: '2026-09-01', apiKeyName: 'ci-bot' },
    );
    const { actors } = await client().pull({ from: '2026-09-01', to: '2026-09-02' });
    const plain = actors.map((a) => ({ ...a, vendorCostCents: a.vendorCostCents?.toFixed() ?? null }));
    const nulls = { uncachedInputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, outputTokens: null, totalTokens: null, sessions: null,
      requests: null, linesAdded: null, linesRemoved: null, accepted: null, rejected: null, commits: null, pullRequests: null, creditsUsed: null, vendorCostCents: null };
    assert.deepEqual(plain, [
      { ...nulls, day: '2026-09-01', actor: 'dana@example.com', tool: 'claude_code', model: '',
        sessions: 5n, linesAdded: 311n, linesRemoved: 42n, commits: 3n, pullRequests: 1n, accepted: 25n, rejected: 2n },
      { ...nulls, day: '2026-09-01', actor: 'dana@example.com', tool: 'claude_code', model: 'claude-sonnet-4-5-20250929',
        uncachedInputTokens: 50001n, cacheReadTokens: 400000n, cacheWriteTokens: 20000n, outputTokens: 12000n, totalTokens: 482001n, vendorCostCents: '52.3' },
      { ...nulls, day: '2026-09-01', actor: 'ci-bot', tool: 'claude_code', model: '',
        sessions: 0n, linesAdded: 0n, linesRemoved: 0n, commits: 0n, pullRequests: 0n, accepted: 0n, rejected: 0n },
    ]);
  });

  test('when the API answers 429 with Retry-After then the client waits that long and succeeds', async () => {
    fake.failNext(2, { status: 429, retryAfter: '3' });
    await client().probe();
    assert.deepEqual(waits, [3000, 3000]);
    assert.equal(fake.requests.length, 3);
  });

  test('when the API answers 5xx (and 529) then the client backs off and succeeds', async () => {
    fake.failNext(1, { status: 500 });
    fake.failNext(1, { status: 529 });
    await client().probe();
    assert.equal(waits.length, 2);
    assert.ok(waits[0]! < 500 && waits[1]! < 1000, `backoff within 0.5 s then 1 s: ${waits.join(', ')}`);
  });

  test('when failures outlast the retries then VendorError carries the last answer\'s message and status', async () => {
    fake.failNext(10, { status: 529 });
    await assert.rejects(client({ maxRetries: 2 }).probe(), { name: 'VendorError', message: 'Overloaded', status: 529 });
    assert.equal(fake.requests.length, 3);
  });

  test('when a page fails mid-report then the retry asks for the same page', async () => {
    fake.seedDays({ from: '2026-09-01', days: 10 });
    fake.setPageSize(4);
    fake.failNext(1, { status: 503, path: '/v1/organizations/cost_report' });
    await client().pull({ from: '2026-09-01', to: '2026-09-11' });
    const costCalls = fake.requests.filter((r) => r.path === '/v1/organizations/cost_report');
    assert.equal(costCalls.length, 4, 'three pages plus one retry');
    assert.equal(costCalls[0]!.query.get('page'), costCalls[1]!.query.get('page'));
  });

  test('when the API does not answer in time then VendorError says so', async () => {
    fake.setDelay(500);
    await assert.rejects(client({ timeoutMs: 100, maxRetries: 0 }).probe(), { name: 'VendorError', message: 'Anthropic did not answer within 100 ms', status: null });
  });

  test('when the anthropic-version header is missing then the fake refuses like Anthropic does', async () => {
    const res = await fetch(`${fake.url}/v1/organizations/me`, { headers: { 'x-api-key': ANTHROPIC_FAKE_KEY } });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'invalid_request_error');
  });

  test('when group_by is sent bare or encoded then the fake groups the same way', async () => {
    fake.addUsage({ day: '2026-09-01', model: 'm1', workspaceId: 'w1', uncachedInputTokens: 1 }, { day: '2026-09-01', model: 'm2', workspaceId: 'w1', uncachedInputTokens: 2 });
    const headers = { 'x-api-key': ANTHROPIC_FAKE_KEY, 'anthropic-version': '2023-06-01' };
    const base = `${fake.url}/v1/organizations/usage_report/messages?starting_at=2026-09-01T00:00:00Z&ending_at=2026-09-02T00:00:00Z`;
    for (const q of ['&group_by=model', '&group_by%5B%5D=model', '&group_by[]=model']) {
      const body = (await (await fetch(base + q, { headers })).json()) as { data: Array<{ results: Array<{ model: string; workspace_id: null }> }> };
      assert.deepEqual(body.data[0]!.results.map((r) => [r.model, r.workspace_id]), [['m1', null], ['m2', null]]);
    }
    const none = (await (await fetch(base, { headers })).json()) as { data: Array<{ results: Array<{ model: null; uncached_input_tokens: number }> }> };
    assert.deepEqual(none.data[0]!.results.map((r) => [r.model, r.uncached_input_tokens]), [[null, 3]]);
  });

  test('when the window is empty then nothing is asked', async () => {
    assert.deepEqual(await client().pull({ from: '2026-09-01', to: '2026-09-01' }), { usage: [], costs: [], actors: [] });
    assert.equal(fake.requests.length, 0);
  });
});
