import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { modelRow, spendFixtures } from './reports-fixtures.js';

/**
 * Usage and reconcile reports over buckets written with SQL (what a sync writes). Expected cents
 * are worked by hand: tokens × USD per million ÷ 10,000.
 */
describe('spend reports: usage metering', () => {
  let svc: TestService;
  let f: ReturnType<typeof spendFixtures>;
  let other: ReturnType<typeof spendFixtures>;
  before(async () => {
    svc = await startTestService({ now: '2026-11-25T12:00:00Z' });
    f = spendFixtures(svc, await createTestAccount(svc));
    other = spendFixtures(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  test('when Anthropic usage has every token class then metered uses the cache read, 5m and 1h write rates of its dated model name', async () => {
    const conn = await f.connection('ANTHROPIC');
    // claude-sonnet-4-5-20250929 → claude-sonnet-4-5: 3 / 0.30 / 3.75 / 6 / 15 per million.
    await f.buckets(conn, 'ANTHROPIC', [{ day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', u: 120_000, cr: 800_000, cw5: 40_000, cw1: 10_000, o: 35_000, apiKey: 'k1' }]);
    await f.buckets(conn, 'ANTHROPIC', [{ day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', u: 1, apiKey: 'k2' }]);
    await f.costs(conn, 'ANTHROPIC', [{ day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', cents: '36.0' }, { day: '2026-09-01', model: null, cents: '1.5', description: 'Code Execution Usage' }]);
    const report = await f.expectOk(f.api('GET', '/reports/usage?from=2026-09-01&to=2026-09-02'));
    const row = modelRow(report, 'claude-sonnet-4-5-20250929');
    // (120,001×3 + 800,000×0.3 + 40,000×3.75 + 10,000×6 + 35,000×15) / 10,000 = 133.5003 cents
    assert.equal(row.meteredCostCents, 133.5003);
    assert.deepEqual([row.priced, row.cacheRatesKnown, row.pricedAs, row.requests, row.vendorCostCents], [true, true, 'claude-sonnet-4-5', null, 36]);
    assert.deepEqual([row.uncachedInputTokens, row.cacheReadTokens, row.cacheCreationTokens, row.outputTokens], [120_001, 800_000, 50_000, 35_000]);
    assert.deepEqual(report.totals, { uncachedInputTokens: 120_001, cacheReadTokens: 800_000, cacheCreationTokens: 50_000, outputTokens: 35_000, requests: 0, vendorCostCents: 37.5, meteredCostCents: 133.5003 });
    assert.deepEqual(report.byDay, [{ date: '2026-09-01', totalTokens: 1_005_001, meteredCostCents: 133.5003, vendorCostCents: 37.5 }]);
    assert.deepEqual(report.unpricedModels, []);
    const foreign = await other.expectOk(other.api('GET', '/reports/usage?from=2026-09-01&to=2026-09-02'));
    assert.deepEqual([foreign.byModel, foreign.totals.meteredCostCents], [[], 0], 'another account sees none of it');
  });

  test('when a model is in neither the package nor the overrides then it is listed unpriced, never priced at zero, until an operator row prices it from its day', async () => {
    const conn = await f.connection('OPENAI');
    await f.buckets(conn, 'OPENAI', [
      { day: '2026-09-10', model: 'acme-internal-llm', u: 1_000_000, o: 1_000_000, requests: 10 },
      { day: '2026-09-12', model: 'acme-internal-llm', u: 1_000_000, o: 1_000_000, requests: 5 },
      { day: '2026-09-10', model: 'gpt-5-mini', u: 2_000_000, cr: 1_000_000, o: 500_000, requests: 7 },
    ]);
    await f.costs(conn, 'OPENAI', [{ day: '2026-09-10', model: null, cents: '150' }]);
    const window = '/reports/usage?from=2026-09-10&to=2026-09-13';
    let report = await f.expectOk(f.api('GET', window));
    let acme = modelRow(report, 'acme-internal-llm');
    assert.deepEqual([acme.priced, acme.meteredCostCents, acme.pricedAs, acme.requests], [false, null, 'acme-internal-llm', 15]);
    assert.deepEqual(report.unpricedModels, ['acme-internal-llm']);
    // gpt-5-mini: (2,000,000×0.25 + 1,000,000×0.025 + 500,000×2) / 10,000 = 152.5; OpenAI has no per-model cost.
    const mini = modelRow(report, 'gpt-5-mini');
    assert.deepEqual([mini.meteredCostCents, mini.vendorCostCents, mini.priced], [152.5, null, true]);
    assert.equal(report.totals.meteredCostCents, 152.5, 'the unpriced model adds nothing');
    assert.equal(report.totals.vendorCostCents, 150);
    assert.equal(report.totals.requests, 22);

    await f.expectOk(f.api('POST', '/prices', { provider: 'OPENAI', model: 'acme-internal-llm', effectiveFrom: '2026-09-11', inputCostPerMillion: 1, outputCostPerMillion: 3 }), 201);
    report = await f.expectOk(f.api('GET', window));
    acme = modelRow(report, 'acme-internal-llm');
    assert.deepEqual([acme.priced, acme.meteredCostCents], [false, 400], 'the 12th is priced (1M×1 + 1M×3 → 400 cents); the 10th is still not');
    assert.deepEqual(report.unpricedModels, ['acme-internal-llm']);
    const later = await f.expectOk(f.api('GET', '/reports/usage?from=2026-09-11&to=2026-09-13'));
    assert.deepEqual([modelRow(later, 'acme-internal-llm').priced, later.unpricedModels], [true, []]);
  });

  test('when an operator overrides a seeded model from a day then earlier days keep the seeded rate', async () => {
    const conn = await f.connection('ANTHROPIC');
    await f.buckets(conn, 'ANTHROPIC', [
      { day: '2026-08-01', model: 'claude-haiku-4-5-20251001', u: 1_000_000, o: 1_000_000 },
      { day: '2026-08-03', model: 'claude-haiku-4-5-20251001', u: 1_000_000, o: 1_000_000 },
    ]);
    await f.expectOk(f.api('POST', '/prices', { provider: 'ANTHROPIC', model: 'claude-haiku-4-5', effectiveFrom: '2026-08-02', inputCostPerMillion: '0.5', outputCostPerMillion: '2.5' }), 201);
    const report = await f.expectOk(f.api('GET', '/reports/usage?from=2026-08-01&to=2026-08-04'));
    // 1st: seeded 1 + 5 → 600 cents; 3rd: operator 0.5 + 2.5 → 300 cents.
    assert.deepEqual(report.byDay.map((d: any) => [d.date, d.meteredCostCents]), [['2026-08-01', 600], ['2026-08-03', 300]]);
    assert.equal(modelRow(report, 'claude-haiku-4-5-20251001').meteredCostCents, 900);
  });

  test('when a window spans a dated price change then each day is priced at the rate in force that day', async () => {
    const conn = await f.connection('OPENAI');
    // gpt-5.6-terra (package): input 2.5 before 2026-07-30, 2 from then on.
    await f.buckets(conn, 'OPENAI', [
      { day: '2026-07-29', model: 'gpt-5.6-terra', u: 1_000_000 },
      { day: '2026-07-30', model: 'gpt-5.6-terra', u: 1_000_000 },
    ]);
    const a = await f.connection('ANTHROPIC');
    // claude-sonnet-5-5 (§8.2 override): cache read 0.20 before 2026-10-07, 0.10 from then on.
    await f.buckets(a, 'ANTHROPIC', [
      { day: '2026-10-06', model: 'claude-sonnet-5-5', cr: 10_000_000 },
      { day: '2026-10-07', model: 'claude-sonnet-5-5-20261001', cr: 10_000_000 },
    ]);
    const july = await f.expectOk(f.api('GET', '/reports/usage?from=2026-07-29&to=2026-07-31'));
    assert.deepEqual(july.byDay.map((d: any) => [d.date, d.meteredCostCents]), [['2026-07-29', 250], ['2026-07-30', 200]]);
    const october = await f.expectOk(f.api('GET', '/reports/usage?from=2026-10-06&to=2026-10-08'));
    assert.deepEqual(october.byModel.map((m: any) => [m.model, m.pricedAs, m.meteredCostCents]), [['claude-sonnet-5-5', 'claude-sonnet-5-5', 200], ['claude-sonnet-5-5-20261001', 'claude-sonnet-5-5', 100]]);
  });

  test('when a model lacks a cache rate then its cache tokens are priced at the input rate and cacheRatesKnown is false; batch buckets are half price', async () => {
    const conn = await f.connection('OPENAI');
    // gpt-4o: input 2.5, cached 1.25, output 10, no cache-write rate.
    await f.buckets(conn, 'OPENAI', [
      { day: '2026-06-01', model: 'gpt-4o', cw5: 1_000_000 },
      { day: '2026-06-02', model: 'gpt-4o-mini', u: 1_000_000, o: 1_000_000, tier: 'batch' },
    ]);
    const report = await f.expectOk(f.api('GET', '/reports/usage?from=2026-06-01&to=2026-06-03'));
    const gpt4o = modelRow(report, 'gpt-4o');
    assert.deepEqual([gpt4o.meteredCostCents, gpt4o.priced, gpt4o.cacheRatesKnown], [250, true, false]);
    // gpt-4o-mini batch: (0.15 + 0.6) × 0.5 per million → 37.5 cents.
    assert.equal(modelRow(report, 'gpt-4o-mini').meteredCostCents, 37.5);
    assert.equal(modelRow(report, 'gpt-4o-mini').cacheRatesKnown, true);
  });

  test('when coding-assistant per-person metrics exist then they appear under byActor only, never in the totals', async () => {
    const conn = await f.connection('ANTHROPIC');
    await svc.ctx.db
      .insertInto('spend_actor_metrics')
      .values([
        { account_id: f.accountId, connection_id: conn, provider: 'ANTHROPIC', day: '2026-05-04', actor: 'dev@acme.example', tool: 'claude_code', model: 'claude-sonnet-4-5-20250929', uncached_input_tokens: 100_000, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 10_000, sessions: 3, lines_added: 120, lines_removed: 7, commits: 2, pull_requests: 1, vendor_cost_cents: '45.5' },
        { account_id: f.accountId, connection_id: conn, provider: 'ANTHROPIC', day: '2026-05-05', actor: 'dev@acme.example', tool: 'claude_code', model: 'claude-haiku-4-5', uncached_input_tokens: 100_000, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 0, sessions: 1, lines_added: 5, lines_removed: 0, commits: 0, pull_requests: 0, vendor_cost_cents: '10' },
      ])
      .execute();
    await f.buckets(conn, 'ANTHROPIC', [{ day: '2026-05-04', model: 'claude-haiku-4-5', u: 10_000 }]);
    const report = await f.expectOk(f.api('GET', '/reports/usage?from=2026-05-01&to=2026-05-31'));
    assert.deepEqual(report.byActor, [
      {
        provider: 'ANTHROPIC',
        actor: 'dev@acme.example',
        // 100,000×3 + 10,000×15 = 450,000 → 45 cents; 100,000×1 → 10 cents.
        totalTokens: 210_000,
        sessions: 4,
        vendorCostCents: 55.5,
        meteredCostCents: 55,
        requests: null,
        linesAdded: 125,
        linesRemoved: 7,
        accepted: null,
        rejected: null,
        commits: 2,
        pullRequests: 1,
        creditsUsed: null,
        tool: 'claude_code',
      },
    ]);
    assert.deepEqual([report.totals.uncachedInputTokens, report.totals.meteredCostCents, report.totals.vendorCostCents], [10_000, 1, 0]);
  });

  test('when no window is given then it is the last 30 days up to today; a bad window is 400', async () => {
    const report = await f.expectOk(f.api('GET', '/reports/usage'));
    assert.deepEqual([report.from, report.to], ['2026-10-27', '2026-11-26']);
    for (const query of ['from=2026-09-02&to=2026-09-01', 'from=2026-09-01&to=2026-09-01', 'from=2026-13-01', 'to=yesterday', 'from=2025-01-01&to=2026-09-01']) {
      const res = await f.api('GET', `/reports/usage?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
    }
  });
});

describe('spend reports: reconcile', () => {
  let svc: TestService;
  let f: ReturnType<typeof spendFixtures>;
  before(async () => {
    svc = await startTestService({ now: '2026-10-15T08:00:00Z' });
    f = spendFixtures(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  test('when metered, vendor and invoices differ then both variances are reported and only invoices inside the window count', async () => {
    const a = await f.connection('ANTHROPIC');
    // 2026-09: claude-opus-4-1 15 + 75 per million → 1M in + 100k out = 1500 + 750 = 2250 cents.
    await f.buckets(a, 'ANTHROPIC', [
      { day: '2026-09-01', model: 'claude-opus-4-1-20250805', u: 1_000_000 },
      { day: '2026-09-30', model: 'claude-opus-4-1-20250805', o: 100_000 },
      { day: '2026-10-01', model: 'claude-opus-4-1-20250805', u: 1_000_000 },
    ]);
    await f.costs(a, 'ANTHROPIC', [{ day: '2026-09-01', model: 'claude-opus-4-1-20250805', cents: '1500' }, { day: '2026-09-30', model: 'claude-opus-4-1-20250805', cents: '700.25' }, { day: '2026-10-01', model: null, cents: '99' }]);
    await f.invoice('ANTHROPIC', '2026-09-01', '2026-09-30', '21.00');
    await f.invoice('ANTHROPIC', '2026-08-15', '2026-09-14', '50');
    await f.invoice('ANTHROPIC', '2026-09-20', '2026-10-05', '70.00');
    const o = await f.connection('OPENAI');
    await f.buckets(o, 'OPENAI', [{ day: '2026-09-15', model: 'mystery-model', u: 1000 }, { day: '2026-09-15', model: 'gpt-5', u: 1_000_000 }]);
    await f.costs(o, 'OPENAI', [{ day: '2026-09-15', model: null, cents: '130' }]);

    const report = await f.expectOk(f.api('GET', '/reports/reconcile'));
    assert.deepEqual([report.from, report.to], ['2026-09-01', '2026-09-30'], 'the last full calendar month, inclusive');
    assert.deepEqual(report.rows, [
      { provider: 'ANTHROPIC', meteredCents: 2250, meteredIsEstimate: false, vendorReportedCents: 2200.25, invoicedCents: 2100, invoiceCount: 1, meteredVsVendorCents: 49.75, vendorVsInvoiceCents: 100.25 },
      { provider: 'OPENAI', meteredCents: 125, meteredIsEstimate: true, vendorReportedCents: 130, invoicedCents: 0, invoiceCount: 0, meteredVsVendorCents: -5, vendorVsInvoiceCents: null },
    ]);
    const wide = await f.expectOk(f.api('GET', '/reports/reconcile?from=2026-08-01&to=2026-10-31'));
    const anthropic = wide.rows.find((r: any) => r.provider === 'ANTHROPIC');
    assert.deepEqual([anthropic.invoiceCount, anthropic.invoicedCents, anthropic.meteredCents], [3, 14100, 3750]);
  });

  test('when a reconcile window is reversed or malformed then 400', async () => {
    for (const query of ['from=2026-09-30&to=2026-09-01', 'from=2026-9-1', 'to=2026-02-29']) {
      const res = await f.api('GET', `/reports/reconcile?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
    }
    const single = await f.expectOk(f.api('GET', '/reports/reconcile?from=2026-09-01&to=2026-09-01'));
    assert.deepEqual([single.from, single.to], ['2026-09-01', '2026-09-01'], 'a one-day inclusive window');
  });
});
