import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '../../../src/platform/http/json.js';
import { dec } from '../../../src/platform/money.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from './reports-fixtures.js';

/**
 * Route simulation (contract §7.9): fromModel's tokens of the window re-priced at toModel's rates.
 * Cents by hand: tokens × USD per million ÷ 10,000. claude-sonnet-4-5: 3 / cache read 0.30 /
 * 5m write 3.75 / output 15; claude-haiku-4-5: 1 / 0.10 / 1.25 / 5; gpt-5-mini: 0.25 / 0.025 /
 * no cache write / 2. Batch tier at half.
 */
describe(`spend route simulation (${backend})`, () => {
  let svc: TestService;
  let f: ReturnType<typeof spendFixtures>;
  before(async () => {
    svc = await startTestService({ now: '2026-11-25T12:00:00Z' });
    f = spendFixtures(svc, await createTestAccount(svc));
    const anthropic = await f.connection('ANTHROPIC');
    await f.buckets(anthropic, 'ANTHROPIC', [
      { day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', workspace: 'ws_a', u: 1_000_000, cr: 1_000_000, cw5: 100_000, o: 100_000, requests: 10 },
      { day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', workspace: 'ws_b', u: 2_000_000, requests: 5 },
      { day: '2026-09-02', model: 'claude-sonnet-4-5', workspace: 'ws_a', tier: 'batch', u: 1_000_000, o: 1_000_000, requests: 2 },
      { day: '2026-09-01', model: 'claude-haiku-4-5', workspace: 'ws_a', u: 9_000_000 }, // another model
      { day: '2026-09-03', model: 'claude-sonnet-4-5', workspace: 'ws_a', u: 9_000_000 }, // outside [from, to)
    ]);
    await f.buckets(await f.connection('OPENAI'), 'OPENAI', [{ day: '2026-09-01', model: 'mystery-model', u: 1_000_000, o: 1_000_000 }]);
  });
  after(() => svc.close());

  async function simulate(body: Record<string, unknown>) {
    const res = await f.api('POST', '/reports/simulate', body);
    assert.equal(res.status, 200, res.text);
    const d = (parseJson(res.text) as { data: any }).data;
    const text = (k: string) => dec(d[k]).toFixed();
    return { ...d, figures: ['uncachedInputTokens', 'cacheReadTokens', 'cacheCreationTokens', 'outputTokens', 'requests', 'currentCents', 'simulatedCents', 'deltaCents'].map(text) };
  }
  const window = { from: '2026-09-01', to: '2026-09-03' };
  const GENERAL = 3;

  test('when sonnet’s tokens are re-priced at haiku’s rates then current is the metered cost, simulated the same tokens at haiku, delta the saving', async () => {
    const r = await simulate({ ...window, fromModel: 'claude-sonnet-4-5', toModel: 'claude-haiku-4-5-20251001' });
    assert.deepEqual(Object.keys(r).filter((k) => k !== 'figures').sort(), [
      'cacheCreationTokens', 'cacheReadTokens', 'caveats', 'currentCents', 'deltaCents', 'from', 'fromModel', 'outputTokens', 'requests',
      'simulatedCents', 'to', 'toModel', 'uncachedInputTokens', 'workspaceId',
    ]);
    assert.deepEqual([r.from, r.to, r.fromModel, r.toModel, r.workspaceId], ['2026-09-01', '2026-09-03', 'claude-sonnet-4-5', 'claude-haiku-4-5-20251001', null]);
    // current: ws_a (1M×3 + 1M×0.3 + 100K×3.75 + 100K×15)/10,000 = 517.5; ws_b 2M×3 = 600; batch ½×(1M×3 + 1M×15) = 900 → 2,017.5
    // simulated: ws_a (1M×1 + 1M×0.1 + 100K×1.25 + 100K×5) = 172.5; ws_b 200; batch ½×(1M×1 + 1M×5) = 300 → 672.5
    assert.deepEqual(r.figures, ['4000000', '1000000', '100000', '1100000', '17', '2017.5', '672.5', '-1345']);
    assert.equal(r.caveats.length, GENERAL + 1);
    assert.match(r.caveats[0], /nothing is rerouted/);
    assert.match(r.caveats[GENERAL], /Batch-tier usage is priced at half/);
  });

  test('when a workspace is named then only its usage is re-priced', async () => {
    const r = await simulate({ ...window, fromModel: 'claude-sonnet-4-5-20250929', toModel: 'claude-haiku-4-5', workspaceId: 'ws_b' });
    assert.equal(r.workspaceId, 'ws_b');
    assert.deepEqual(r.figures, ['2000000', '0', '0', '0', '5', '600', '200', '-400']);
    assert.equal(r.caveats.length, GENERAL, 'no batch, same vendor, every rate known: only the general caveats');
  });

  test('when toModel is another vendor’s without a cache-write rate then the writes fall back to its input rate and the caveats say so', async () => {
    const r = await simulate({ ...window, fromModel: 'claude-sonnet-4-5', toModel: 'gpt-5-mini', workspaceId: 'ws_a' });
    // current 517.5 + 900; simulated (1M×0.25 + 1M×0.025 + 100K×0.25 + 100K×2) = 50, batch ½×(1M×0.25 + 1M×2) = 112.5
    assert.deepEqual(r.figures, ['2000000', '1000000', '100000', '1100000', '12', '1417.5', '162.5', '-1255']);
    const extra = r.caveats.slice(GENERAL).join('\n');
    assert.match(extra, /priced as a OPENAI model while this usage ran on ANTHROPIC/);
    assert.match(extra, /no cache-write rate/);
    assert.doesNotMatch(extra, /no cache-read rate/);
  });

  test('when fromModel is unpriced and toModel is an operator row newer than some days then today’s rate stands in and the caveats say so', async () => {
    await f.expectOk(f.api('POST', '/prices', { provider: 'OPENAI', model: 'acme-llm', effectiveFrom: '2026-09-02', inputCostPerMillion: 1, outputCostPerMillion: 2 }), 201);
    await f.expectOk(f.api('POST', '/prices', { provider: 'OPENAI', model: 'acme-llm', effectiveFrom: '2026-11-01', inputCostPerMillion: 2, outputCostPerMillion: 4 }), 201);
    const r = await simulate({ ...window, fromModel: 'MYSTERY-model', toModel: 'acme-llm' });
    // The only day (09-01) predates acme-llm's first row: today's 2 / 4 → (1M×2 + 1M×4)/10,000 = 600; current 0 (unpriced).
    assert.deepEqual(r.figures, ['1000000', '0', '0', '1000000', '0', '0', '600', '600']);
    const extra = r.caveats.slice(GENERAL).join('\n');
    assert.match(extra, /has no price in the price book: currentCents leaves it out/);
    assert.match(extra, /acme-llm had no price on 1 day\(s\) of the window/);
  });

  test('when fromModel has no usage then the figures are zero and a caveat says so; the default window is the last 30 days; nothing of another account counts', async () => {
    let r = await simulate({ fromModel: 'claude-sonnet-4-5', toModel: 'claude-haiku-4-5' });
    assert.deepEqual([r.from, r.to], ['2026-10-27', '2026-11-26']);
    assert.deepEqual(r.figures, ['0', '0', '0', '0', '0', '0', '0', '0']);
    assert.match(r.caveats.at(-1), /No usage of claude-sonnet-4-5 in the window/);
    const other = spendFixtures(svc, await createTestAccount(svc));
    const res = await other.api('POST', '/reports/simulate', { ...window, fromModel: 'claude-sonnet-4-5', toModel: 'claude-haiku-4-5' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.data.currentCents, res.body.data.uncachedInputTokens], [0, 0]);
    assert.ok(res.body.data.caveats.length > 0);
    // Another account's operator row is not in this account's price book.
    const foreign = await other.api('POST', '/reports/simulate', { ...window, fromModel: 'claude-sonnet-4-5', toModel: 'acme-llm' });
    assert.equal(foreign.status, 400, foreign.text);
    r = await simulate({ ...window, fromModel: 'claude-sonnet-4-5', toModel: 'claude-haiku-4-5' });
    assert.equal(r.figures[5], '2017.5', 'nothing was rerouted or stored: the same request gives the same figures');
  });

  test('when the request is bad then 400 validation_failed with a clear message', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ toModel: 'claude-haiku-4-5' }, 'fromModel', /fromModel/],
      [{ fromModel: 'claude-sonnet-4-5' }, 'toModel', /toModel/],
      [{ fromModel: '  ', toModel: 'claude-haiku-4-5' }, 'fromModel', /fromModel/],
      [{ fromModel: 'claude-sonnet-4-5', toModel: 'gpt-9-imaginary' }, 'toModel', /toModel: gpt-9-imaginary is not in the price book/],
      [{ fromModel: 'claude-sonnet-4-5', toModel: 'claude-haiku-4-5', from: '2026-02-30' }, 'from', /from/],
      [{ fromModel: 'claude-sonnet-4-5', toModel: 'claude-haiku-4-5', from: '2026-09-03', to: '2026-09-01' }, '', /from must be before to/],
      [{ fromModel: 'claude-sonnet-4-5', toModel: 'claude-haiku-4-5', from: '2024-01-01', to: '2026-01-01' }, '', /at most 366 days/],
      [{ fromModel: 42, toModel: 'claude-haiku-4-5' }, 'fromModel', /fromModel/],
    ];
    for (const [body, field, message] of cases) {
      const res = await f.api('POST', '/reports/simulate', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_failed');
      assert.match(res.body.error.message + JSON.stringify(res.body.error.fields ?? []), message, JSON.stringify(body));
      if (field) assert.ok((res.body.error.fields ?? []).some((x: any) => x.field === field), `${JSON.stringify(body)} names ${field}: ${res.text}`);
    }
  });
});
