import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createOpenAiClient } from '../../../src/modules/spend/vendors/openai.js';
import { VendorError, type VendorClientOptions } from '../../../src/modules/spend/vendors/types.js';
import { OPENAI_FAKE_KEY, startOpenAiFake, type OpenAiFake } from './openai.js';

/** The OpenAI client against its loopback fake (vendor-apis.md §2): paths, paging, units, retries, refusals. */
describe('OpenAI client and fake', () => {
  let fake: OpenAiFake;
  let waits: number[];

  function client(overrides: Partial<VendorClientOptions> = {}) {
    return createOpenAiClient({
      baseUrl: fake.url,
      adminKey: OPENAI_FAKE_KEY,
      scope: null,
      timeoutMs: 2000,
      maxRetries: 3,
      sleep: async (ms) => void waits.push(ms),
      ...overrides,
    });
  }

  before(async () => {
    fake = await startOpenAiFake();
  });
  after(() => fake.close());
  beforeEach(() => {
    waits = [];
    fake.reset();
  });

  test('when the key is an admin key then probe lists one project with a Bearer header', async () => {
    await client().probe();
    assert.equal(fake.requests.length, 1);
    const [req] = fake.requests;
    assert.equal(req!.path, '/v1/organization/projects');
    assert.equal(req!.query.get('limit'), '1');
    assert.equal(req!.headers.authorization, `Bearer ${OPENAI_FAKE_KEY}`);
  });

  test('when the key is refused then probe throws VendorError with OpenAI\'s message and status 401, not retried', async () => {
    await assert.rejects(client({ adminKey: 'sk-admin-wrong-key-abcd' }).probe(), (err: unknown) => {
      assert.ok(err instanceof VendorError);
      assert.match(err.message, /^Incorrect API key provided: sk-admin\*+abcd\./);
      assert.equal(err.status, 401);
      return true;
    });
    assert.equal(fake.requests.length, 1);
    fake.refuseKey();
    await assert.rejects(client().probe(), { name: 'VendorError', status: 401 });
  });

  test('when a 31-day window pages 4 buckets at a time then every usage bucket and cost line arrives once, query spelled as OpenAI documents', async () => {
    const seeded = fake.seedDays({ from: '2026-09-01', days: 31 });
    fake.setPageSize(4);
    const pulled = await client().pull({ from: '2026-09-01', to: '2026-10-02' });
    assert.equal(pulled.usage.length, seeded.usage.length);
    assert.equal(pulled.costs.length, seeded.costs.length);
    assert.deepEqual(pulled.actors, []);
    const usageCalls = fake.requests.filter((r) => r.path === '/v1/organization/usage/completions');
    assert.equal(usageCalls.length, 8, '31 buckets at 4 per page');
    for (const call of usageCalls) {
      assert.equal(call.query.get('start_time'), String(Date.parse('2026-09-01T00:00:00Z') / 1000));
      assert.equal(call.query.get('end_time'), String(Date.parse('2026-10-02T00:00:00Z') / 1000));
      assert.equal(call.query.get('bucket_width'), '1d');
      assert.deepEqual(call.query.getAll('group_by'), ['project_id', 'user_id', 'api_key_id', 'model']);
      assert.deepEqual(call.query.getAll('group_by[]'), []);
    }
    assert.equal(usageCalls[0]!.query.get('page'), null);
    assert.ok(usageCalls.slice(1).every((c) => c.query.get('page')));
    const costCalls = fake.requests.filter((r) => r.path === '/v1/organization/costs');
    assert.equal(costCalls.length, 8);
    assert.deepEqual(costCalls[0]!.query.getAll('group_by'), ['project_id', 'line_item']);
    const days = new Set(pulled.usage.map((u) => u.day));
    assert.equal(days.size, 31);
    assert.ok(days.has('2026-10-01') && !days.has('2026-10-02'));
  });

  test('when usage is grouped then project → workspace, user → actor, key and model map, cached input is split out and requests count', async () => {
    fake.addUsage(
      { day: '2026-09-01', model: 'gpt-5-mini-2025-08-07', projectId: 'proj_abc123', userId: 'user_1', apiKeyId: 'key_1',
        inputTokens: 500000, cachedTokens: 200000, cacheWriteTokens: 1000, outputTokens: 40000, requests: 120 },
      { day: '2026-09-01', model: 'gpt-5-mini-2025-08-07', projectId: 'proj_abc123', userId: 'user_1', apiKeyId: 'key_1',
        inputTokens: '9007199254740993', outputTokens: 1, requests: 1 },
      { day: '2026-09-02', model: 'gpt-4o-2024-08-06', inputTokens: 10, requests: 2 },
    );
    const { usage } = await client().pull({ from: '2026-09-01', to: '2026-09-03' });
    assert.deepEqual(usage, [
      { day: '2026-09-01', model: 'gpt-5-mini-2025-08-07', workspaceId: 'proj_abc123', apiKeyId: 'key_1', actor: 'user_1', serviceTier: '',
        uncachedInputTokens: 9007199255039993n, cacheReadTokens: 200000n, cacheWrite5mTokens: 1000n, cacheWrite1hTokens: 0n,
        outputTokens: 40001n, requests: 121n, vendorCostCents: null },
      { day: '2026-09-02', model: 'gpt-4o-2024-08-06', workspaceId: '', apiKeyId: '', actor: '', serviceTier: '',
        uncachedInputTokens: 10n, cacheReadTokens: 0n, cacheWrite5mTokens: 0n, cacheWrite1hTokens: 0n,
        outputTokens: 0n, requests: 2n, vendorCostCents: null },
    ]);
  });

  test('when costs come in dollars then cents are exact (0.1 + 0.2 dollars is 30 cents), with no model', async () => {
    fake.addCosts(
      { day: '2026-09-01', projectId: 'proj_abc123', lineItem: 'gpt-5-mini-2025-08-07, input', amountDollars: '0.1' },
      { day: '2026-09-01', projectId: 'proj_abc123', lineItem: 'gpt-5-mini-2025-08-07, input', amountDollars: '0.2' },
      { day: '2026-09-01', projectId: null, lineItem: 'gpt-5-mini-2025-08-07, output', amountDollars: '1.005' },
      { day: '2026-09-02', projectId: 'proj_abc123', lineItem: 'web search', amountDollars: '0.12345678901234567891' },
    );
    const { costs } = await client().pull({ from: '2026-09-01', to: '2026-09-03' });
    assert.deepEqual(
      costs.map((c) => ({ ...c, amountCents: c.amountCents.toFixed() })),
      [
        { day: '2026-09-01', workspaceId: 'proj_abc123', model: null, description: 'gpt-5-mini-2025-08-07, input', costType: null, amountCents: '30' },
        { day: '2026-09-01', workspaceId: '', model: null, description: 'gpt-5-mini-2025-08-07, output', costType: null, amountCents: '100.5' },
        { day: '2026-09-02', workspaceId: 'proj_abc123', model: null, description: 'web search', costType: null, amountCents: '12.345678901234567891' },
      ],
    );
  });

  test('when cost values arrive as strings then they convert the same way', async () => {
    const strings = await startOpenAiFake({ amountsAsStrings: true });
    try {
      strings.addCosts({ day: '2026-09-01', lineItem: 'x', amountDollars: '0.3' });
      const { costs } = await client({ baseUrl: strings.url }).pull({ from: '2026-09-01', to: '2026-09-02' });
      assert.equal(costs[0]!.amountCents.toFixed(), '30');
    } finally {
      await strings.close();
    }
  });

  test('when the API answers 429 with Retry-After then the client waits that long and succeeds', async () => {
    fake.failNext(1, { status: 429, retryAfter: '1' });
    fake.failNext(1, { status: 429, retryAfter: '7' });
    await client().probe();
    assert.deepEqual(waits, [1000, 7000]);
    assert.equal(fake.requests.length, 3);
  });

  test('when the API answers 5xx then the client backs off and succeeds', async () => {
    fake.failNext(2, { status: 503 });
    await client().probe();
    assert.equal(waits.length, 2);
    assert.ok(waits[0]! < 500 && waits[1]! < 1000, `backoff within 0.5 s then 1 s: ${waits.join(', ')}`);
  });

  test('when failures outlast the retries then VendorError carries OpenAI\'s message and status', async () => {
    fake.failNext(10, { status: 500 });
    await assert.rejects(client({ maxRetries: 2 }).probe(), {
      name: 'VendorError', status: 500, message: 'The server had an error while processing your request. Sorry about that!',
    });
    assert.equal(fake.requests.length, 3);
  });

  test('when the API does not answer in time then VendorError says so', async () => {
    fake.setDelay(500);
    await assert.rejects(client({ timeoutMs: 100, maxRetries: 0 }).probe(), { name: 'VendorError', message: 'OpenAI did not answer within 100 ms', status: null });
  });

  test('when start_time is mid-day then the fake\'s first bucket ends at the next UTC midnight, and group_by[] groups like group_by', async () => {
    fake.addUsage({ day: '2026-09-01', model: 'm1', projectId: 'p1', inputTokens: 1, requests: 1 }, { day: '2026-09-01', model: 'm2', projectId: 'p1', inputTokens: 2, requests: 1 });
    const headers = { authorization: `Bearer ${OPENAI_FAKE_KEY}` };
    const start = Date.parse('2026-09-01T06:00:00Z') / 1000;
    const base = `${fake.url}/v1/organization/usage/completions?start_time=${start}&end_time=${start + 2 * 86400}`;
    type Body = { data: Array<{ start_time: number; end_time: number; results: Array<{ model: string | null; project_id: null; input_tokens: number }> }> };
    for (const q of ['&group_by=model', '&group_by%5B%5D=model']) {
      const body = (await (await fetch(base + q, { headers })).json()) as Body;
      assert.deepEqual(body.data.map((b) => [b.start_time, b.end_time]), [
        [start, Date.parse('2026-09-02T00:00:00Z') / 1000],
        [Date.parse('2026-09-02T00:00:00Z') / 1000, Date.parse('2026-09-03T00:00:00Z') / 1000],
        [Date.parse('2026-09-03T00:00:00Z') / 1000, start + 2 * 86400],
      ]);
      assert.deepEqual(body.data[0]!.results.map((r) => [r.model, r.project_id]), [['m1', null], ['m2', null]]);
    }
    const missing = await fetch(`${fake.url}/v1/organization/usage/completions`, { headers });
    assert.equal(missing.status, 400);
    assert.equal(((await missing.json()) as { error: { param: string } }).error.param, 'start_time');
  });
});
