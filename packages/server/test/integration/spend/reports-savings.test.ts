import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '../../../src/platform/http/json.js';
import { dec } from '../../../src/platform/money.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from './reports-fixtures.js';

/**
 * Savings report (contract §7.9): the input side as billed (cache reads and writes at their rates)
 * against the same tokens all at the input rate. Cents by hand: tokens × USD per million ÷ 10,000.
 * claude-sonnet-4-5: input 3, cache read 0.30, 5m write 3.75, 1h write 6; claude-haiku-4-5: input 1,
 * cache read 0.10, 1h write 2; gpt-5-mini: input 0.25, cache read 0.025, no cache-write rate.
 */
describe(`spend savings report (${backend})`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-11-25T12:00:00Z' });
  });
  after(() => svc.close());

  const text = (v: unknown) => (v === null ? null : dec(v as string).toFixed());
  const figures = (row: any) => [
    text(row.uncachedInputTokens), text(row.cacheReadTokens), text(row.cacheCreationTokens), text(row.outputTokens),
    text(row.cacheShare), text(row.inputCostCents), text(row.noCacheCostCents), text(row.savedCents), row.priced, row.cacheRatesKnown,
  ];

  test('when models use the cache differently then each row compares billed input with uncached input; savings can be negative; unpriced models add tokens only', async () => {
    const f = spendFixtures(svc, await createTestAccount(svc));
    const anthropic = await f.connection('ANTHROPIC');
    const openai = await f.connection('OPENAI');
    await f.buckets(anthropic, 'ANTHROPIC', [
      { day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', u: 1_000_000, cr: 2_000_000, cw5: 100_000, o: 500_000, apiKey: 'k1' },
      // Batch tier: half price on both sides.
      { day: '2026-09-02', model: 'claude-sonnet-4-5-20250929', u: 1_000_000, cr: 1_000_000, tier: 'batch', apiKey: 'k1' },
      // Writes to the 1-hour cache that were hardly read back: a loss.
      { day: '2026-09-01', model: 'claude-haiku-4-5', cr: 100_000, cw1: 1_000_000 },
      { day: '2026-09-03', model: 'claude-haiku-4-5', u: 9_000_000 }, // outside [from, to)
    ]);
    await f.buckets(openai, 'OPENAI', [
      { day: '2026-09-01', model: 'gpt-5-mini', u: 1_000_000, cr: 1_000_000, cw5: 100_000 },
      { day: '2026-09-01', model: 'acme-unpriced-model', u: 1_000_000, cr: 1_000_000 },
    ]);
    const res = await f.api('GET', '/reports/savings?from=2026-09-01&to=2026-09-03');
    assert.equal(res.status, 200, res.text);
    const r = (parseJson(res.text) as { data: any }).data;
    assert.deepEqual(Object.keys(r).sort(), ['byModel', 'from', 'to', 'totals', 'unpricedModels']);
    assert.deepEqual(r.byModel.map((m: any) => [m.provider, m.model]), [
      ['ANTHROPIC', 'claude-haiku-4-5'],
      ['ANTHROPIC', 'claude-sonnet-4-5-20250929'],
      ['OPENAI', 'acme-unpriced-model'],
      ['OPENAI', 'gpt-5-mini'],
    ]);
    const row = (model: string) => r.byModel.find((m: any) => m.model === model);
    assert.deepEqual(Object.keys(row('gpt-5-mini')).sort(), [
      'cacheCreationTokens', 'cacheRatesKnown', 'cacheReadTokens', 'cacheShare', 'inputCostCents', 'model', 'noCacheCostCents',
      'outputTokens', 'priced', 'provider', 'savedCents', 'uncachedInputTokens',
    ]);
    // Sonnet: billed (1M×3 + 2M×0.3 + 100K×3.75)/10,000 = 397.5, plus batch ½×(1M×3 + 1M×0.3)/10,000 = 165 → 562.5;
    // uncached 3.1M×3/10,000 = 930, plus batch ½×2M×3/10,000 = 300 → 1,230; saved 667.5; share 3M/5.1M = 0.58823… → 0.5882.
    assert.deepEqual(figures(row('claude-sonnet-4-5-20250929')), ['2000000', '3000000', '100000', '500000', '0.5882', '562.5', '1230', '667.5', true, true]);
    // Haiku: billed (100K×0.1 + 1M×2)/10,000 = 201; uncached 1.1M×1/10,000 = 110; saved −91; share 100K/1.1M = 0.0909…
    assert.deepEqual(figures(row('claude-haiku-4-5')), ['0', '100000', '1000000', '0', '0.0909', '201', '110', '-91', true, true]);
    // gpt-5-mini: no cache-write rate, so the writes fall back to the input rate (an estimate):
    // billed (1M×0.25 + 1M×0.025 + 100K×0.25)/10,000 = 30; uncached 2.1M×0.25/10,000 = 52.5; share 1/2.1 = 0.47619… → 0.4762.
    assert.deepEqual(figures(row('gpt-5-mini')), ['1000000', '1000000', '100000', '0', '0.4762', '30', '52.5', '22.5', true, false]);
    assert.deepEqual(figures(row('acme-unpriced-model')), ['1000000', '1000000', '0', '0', '0.5', null, null, null, false, false]);
    assert.deepEqual(r.unpricedModels, ['acme-unpriced-model']);
    // Totals: every token; cents of the priced groups only. 793.5 billed, 1,392.5 uncached, 599 saved;
    // share 5.1M / (4M + 5.1M + 1.2M) = 0.49514… → 0.4951.
    assert.deepEqual([r.totals.provider, r.totals.model], [null, null]);
    assert.deepEqual(figures(r.totals), ['4000000', '5100000', '1200000', '500000', '0.4951', '793.5', '1392.5', '599', false, false]);
  });

  test('when nothing was used then totals are zero with a zero cache share; default window, bad windows and another account', async () => {
    const f = spendFixtures(svc, await createTestAccount(svc));
    await f.buckets(await f.connection('ANTHROPIC'), 'ANTHROPIC', [
      { day: '2026-11-25', model: 'claude-sonnet-4-5', u: 1_000_000, cr: 1_000_000 },
      { day: '2026-10-26', model: 'claude-sonnet-4-5', u: 5_000_000 }, // a day before the default window
    ]);
    const r = await f.expectOk(f.api('GET', '/reports/savings'));
    assert.deepEqual([r.from, r.to], ['2026-10-27', '2026-11-26']);
    // (1M×3 + 1M×0.3)/10,000 = 330 billed; 2M×3/10,000 = 600 uncached.
    assert.deepEqual([r.totals.uncachedInputTokens, r.totals.cacheShare, r.totals.inputCostCents, r.totals.noCacheCostCents, r.totals.savedCents], [1_000_000, 0.5, 330, 600, 270]);
    for (const q of ['from=2026-09-02&to=2026-09-01', 'from=2026-13-01', 'to=2026-9-1', 'from=2024-01-01&to=2026-01-01']) {
      const res = await f.api('GET', `/reports/savings?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.error.code, 'validation_failed');
    }
    const other = spendFixtures(svc, await createTestAccount(svc));
    const foreign = await other.expectOk(other.api('GET', '/reports/savings'));
    assert.deepEqual(foreign.byModel, []);
    assert.deepEqual(foreign.totals, {
      provider: null, model: null, uncachedInputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, outputTokens: 0,
      cacheShare: 0, inputCostCents: 0, noCacheCostCents: 0, savedCents: 0, priced: true, cacheRatesKnown: true,
    });
  });
});
