import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { spendFixtures } from '../../../packages/server/test/integration/spend/reports-fixtures.js';
import { openConsole, type ConsoleSession } from './browser.js';

/**
 * The spend reports page against the spend tests' fixtures (buckets, vendor costs and an imported
 * invoice as a sync and the invoice route write them). claude-sonnet-4-5: input 3, cache read 0.3,
 * output 15 per million tokens; one bucket of 1M uncached input, 2M cache read, 100k output
 * = 300 + 60 + 150 = 510 cents metered.
 */
describe('console: spend reports (browser)', () => {
  let c: ConsoleSession;

  before(async () => {
    c = await openConsole({ now: '2026-03-06T12:00:00Z' });
    const m = monetization(c.svc, c.account);
    const f = spendFixtures(c.svc, c.account);
    const chat = await m.feature({ name: 'AI chat', key: 'chat' });
    const plan = await m.activePlan({ price: 0, features: [{ id: chat.id, value: { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.5 } } }] });
    await m.customer('acme');
    await m.subscribe('acme', plan.id);
    assert.equal((await m.event({ customerReferenceId: 'acme', featureKey: 'chat', usageUnits: 10, costAmount: 1.25, eventIdempotencyKey: 'e1' })).status, 201); // revenue 500c, serve cost 125c

    const project = await f.expectOk(f.api('POST', '/units', { type: 'PROJECT', name: 'Chat app', featureId: chat.id }), 201);
    await f.expectOk(f.api('POST', '/units', { type: 'PROJECT', name: 'Side quest' }), 201);
    await f.expectOk(f.api('POST', '/rules', { spendUnitId: project.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'ws_chat' }), 201);
    const connection = await f.connection('ANTHROPIC');
    await f.buckets(connection, 'ANTHROPIC', [{ day: '2026-02-10', model: 'claude-sonnet-4-5', workspace: 'ws_chat', u: 1_000_000, cr: 2_000_000, o: 100_000 }]);
    await f.costs(connection, 'ANTHROPIC', [{ day: '2026-02-10', model: 'claude-sonnet-4-5', cents: '500' }]);
    await f.invoice('ANTHROPIC', '2026-02-01', '2026-02-28', '4.90');
    for (const externalId of ['pr-1', 'pr-2']) await f.expectOk(f.api('POST', '/outcomes', { kind: 'PR_MERGED', externalId, spendUnitId: project.id, aiAssisted: true }), 201);
    await f.expectOk(
      f.api('POST', '/prices', { provider: 'ANTHROPIC', model: 'house-small', effectiveFrom: '2026-01-01', inputCostPerMillion: 1, outputCostPerMillion: 5, cacheReadCostPerMillion: 0.1 }),
      201,
    );
    await c.signIn();
  });
  after(() => c.close());

  test('when the reports open then outcomes, cost per outcome, savings, the P&L and both reconcile variances show the API’s exact figures', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Spend reports', level: 1 }).waitFor();

    assert.equal(await page.getByTestId('total-outcomes').innerText(), '2');
    assert.equal(await page.getByTestId('outcome-spend').innerText(), '$5.10');
    assert.equal(await page.getByTestId('cost-per-outcome').innerText(), '$2.55');
    assert.match(await page.getByRole('table', { name: 'Outcomes per unit' }).innerText(), /Chat app\s+PROJECT\s+2\s+2\s+\$5\.10\s+\$2\.55/);

    assert.equal(await page.getByTestId('saved-total').innerText(), '$5.40');
    assert.match(await page.getByRole('table', { name: 'Savings by model' }).innerText(), /claude-sonnet-4-5\s+ANTHROPIC\s+66\.67 %\s+\$3\.60\s+\$9\.00\s+\$5\.40/);

    const pnl = page.getByRole('table', { name: 'Feature P&L' });
    assert.match(await pnl.innerText(), /Chat app\s+chat\s+\$5\.10\s+2\s+\$2\.55\s+\$5\.00\s+\$1\.25\s+\$3\.75\s+-\$1\.35/);
    assert.equal(await pnl.getByTestId('pnl-net').innerText(), '-$1.35');
    await page.getByText('Projects without a feature (left out of the totals): Side quest').waitFor();

    const reconcile = page.getByRole('table', { name: 'Reconcile' });
    assert.match(await reconcile.innerText(), /ANTHROPIC\s+\$5\.10\s+\$5\.00\s+\$4\.90 \(1 invoice\)\s+\$0\.10\s+\$0\.10/);
    await c.screenshot('spend-reports');
  });

  test('when a simulation names an unknown target its message shows inline; a priced target shows current, simulated and the difference', async () => {
    const { page } = c;
    const form = page.getByRole('form', { name: 'Simulate' });
    await form.getByLabel('From model').fill('claude-sonnet-4-5');
    await form.getByLabel('To model').fill('no-such-model');
    await form.getByRole('button', { name: 'Simulate' }).click();
    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /Not simulated: .*no-such-model[\s\S]*requestId/);

    await form.getByLabel('To model').fill('house-small');
    await form.getByRole('button', { name: 'Simulate' }).click();
    const result = page.getByRole('region', { name: 'Simulation' });
    await result.waitFor();
    assert.equal(await result.getByTestId('sim-current').innerText(), '$5.10');
    assert.equal(await result.getByTestId('sim-simulated').innerText(), '$1.70');
    assert.equal(await result.getByTestId('sim-delta').innerText(), '-$3.40');
    assert.ok((await result.getByRole('list', { name: 'Caveats' }).locator('li').count()) >= 3);
    assert.equal(await form.getByRole('alert').count(), 0, 'the refusal is gone once a simulation succeeds');
  });

  test('when the reconcile window holds nothing then its empty state shows', async () => {
    const { page } = c;
    const window = page.getByRole('form', { name: 'Reconcile window' });
    await window.getByLabel('From').fill('2025-01-01');
    await window.getByLabel('To').fill('2025-01-31');
    await window.getByRole('button', { name: 'Show' }).click();
    await page.getByText('Nothing metered, reported or invoiced in this window.').waitFor();
  });
});
