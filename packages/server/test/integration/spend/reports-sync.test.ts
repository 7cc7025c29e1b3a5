import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSpendService, spendOperator } from './connections-helpers.js';
import { modelRow, spendFixtures } from './reports-fixtures.js';
import type { AnthropicFake } from '../../fakes/vendors/anthropic.js';
import type { TestService } from '../../harness.js';

/**
 * End to end: the Anthropic fake serves usage, cost lines and Claude Code records; the connection's
 * sync stores them; the usage and reconcile reports price them. Nothing is written with SQL.
 */
describe('spend reports after a real sync from the Anthropic fake', () => {
  let svc: TestService;
  let anthropic: AnthropicFake;
  let close: () => Promise<void>;
  before(async () => {
    ({ svc, anthropic, close } = await startSpendService());
    svc.clock.set('2026-10-03T09:00:00Z');
  });
  after(() => close());

  test('when usage is synced then the usage report meters it from the book, per-person rows stay under byActor, and reconcile compares it', async () => {
    anthropic.addUsage(
      { day: '2026-09-01', model: 'claude-sonnet-4-5-20250929', workspaceId: 'wrkspc_a', uncachedInputTokens: 120_000, cacheReadTokens: 800_000, cacheWrite5mTokens: 40_000, cacheWrite1hTokens: 10_000, outputTokens: 35_000 },
      { day: '2026-09-02', model: 'claude-haiku-4-5-20251001', workspaceId: null, uncachedInputTokens: 1_000_000, outputTokens: 200_000 },
      { day: '2026-09-02', model: 'claude-brand-new-9', workspaceId: null, uncachedInputTokens: 5_000 },
    );
    anthropic.addCosts(
      { day: '2026-09-01', workspaceId: 'wrkspc_a', description: 'Claude Sonnet 4.5 Usage - Input Tokens', amountCents: '36.0', costType: 'tokens', model: 'claude-sonnet-4-5-20250929', tokenType: 'uncached_input_tokens' },
      { day: '2026-09-01', workspaceId: 'wrkspc_a', description: 'Claude Sonnet 4.5 Usage - Output Tokens', amountCents: '52.5', costType: 'tokens', model: 'claude-sonnet-4-5-20250929', tokenType: 'output_tokens' },
      { day: '2026-09-02', workspaceId: null, description: 'Code Execution Usage', amountCents: '1.5', costType: 'code_execution' },
    );
    anthropic.addClaudeCode({
      day: '2026-09-02',
      email: 'dev@acme.example',
      sessions: 2,
      linesAdded: 40,
      linesRemoved: 3,
      commits: 1,
      pullRequests: 0,
      models: [{ model: 'claude-sonnet-4-5-20250929', input: 10_000, output: 2_000, cacheRead: 0, cacheCreation: 0, costCents: 6 }],
    });
    const o = await spendOperator(svc);
    const conn = await o.connectAnthropic();
    const sync = await o.sync(conn.id, '?from=2026-09-01&to=2026-09-03');
    assert.equal(sync.status, 200, sync.text);
    assert.ok(sync.body.data.rowsWritten > 0);

    const f = spendFixtures(svc, o.account);
    const report = await f.expectOk(f.api('GET', '/reports/usage?from=2026-09-01&to=2026-09-03'));
    // Sonnet 4.5: (120,000×3 + 800,000×0.3 + 40,000×3.75 + 10,000×6 + 35,000×15) / 10,000 = 133.5
    const sonnet = modelRow(report, 'claude-sonnet-4-5-20250929');
    assert.deepEqual([sonnet.meteredCostCents, sonnet.vendorCostCents, sonnet.pricedAs, sonnet.priced, sonnet.cacheRatesKnown], [133.5, 88.5, 'claude-sonnet-4-5', true, true]);
    // Haiku 4.5: 1,000,000×1 + 200,000×5 → 200 cents.
    assert.equal(modelRow(report, 'claude-haiku-4-5-20251001').meteredCostCents, 200);
    assert.deepEqual(report.unpricedModels, ['claude-brand-new-9']);
    assert.deepEqual([report.totals.meteredCostCents, report.totals.vendorCostCents, report.totals.uncachedInputTokens], [333.5, 90, 1_125_000]);
    assert.deepEqual(report.byActor.map((a: any) => [a.actor, a.totalTokens, a.sessions, a.linesAdded, a.commits, a.vendorCostCents, a.meteredCostCents]), [
      // 10,000×3 + 2,000×15 = 60,000 → 6 cents, as the vendor estimates.
      ['dev@acme.example', 12_000, 2, 40, 1, 6, 6],
    ]);

    const reconcile = await f.expectOk(f.api('GET', '/reports/reconcile?from=2026-09-01&to=2026-09-30'));
    assert.deepEqual(reconcile.rows, [
      { provider: 'ANTHROPIC', meteredCents: 333.5, meteredIsEstimate: true, vendorReportedCents: 90, invoicedCents: 0, invoiceCount: 0, meteredVsVendorCents: 243.5, vendorVsInvoiceCents: null },
    ]);
    await f.invoice('ANTHROPIC', '2026-09-01', '2026-09-30', '0.95');
    const withInvoice = await f.expectOk(f.api('GET', '/reports/reconcile?from=2026-09-01&to=2026-09-30'));
    assert.deepEqual([withInvoice.rows[0].invoicedCents, withInvoice.rows[0].invoiceCount, withInvoice.rows[0].vendorVsInvoiceCents], [95, 1, -5]);
  });
});
