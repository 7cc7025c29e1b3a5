import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ANTHROPIC_FAKE_KEY, startAnthropicFake, type AnthropicFake } from '../../../packages/server/test/fakes/vendors/anthropic.js';
import { spendFixtures } from '../../../packages/server/test/integration/spend/reports-fixtures.js';
import { openConsole, type ConsoleSession } from './browser.js';

/**
 * The AI-spend pages against the Anthropic fake of the spend tests: connect, sync with progress,
 * the vendor's refusal and a key replacement, usage, allocation, budgets, alerts, settings.
 */
describe('console: AI spend (browser)', () => {
  let c: ConsoleSession;
  let anthropic: AnthropicFake;
  let f: ReturnType<typeof spendFixtures>;
  let unit: { id: string };

  before(async () => {
    anthropic = await startAnthropicFake({ pageSize: 3 });
    c = await openConsole({
      now: '2026-03-06T12:00:00Z',
      env: {
        APP_SPEND_ANTHROPIC_BASE_URL: anthropic.url,
        APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true',
        APP_SPEND_VENDOR_MAX_RETRIES: '0',
        APP_SPEND_VENDOR_TIMEOUT_MS: '5000',
      },
    });
    anthropic.seedDays({ from: '2026-02-05', days: 30, models: ['claude-sonnet-4-5-20250929', 'house-model-x'], workspaces: ['wrkspc_be', null] });
    f = spendFixtures(c.svc, c.account);
    unit = await f.expectOk(f.api('POST', '/units', { type: 'TEAM', name: 'Backend' }), 201);
    await f.expectOk(f.api('POST', '/rules', { spendUnitId: unit.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_be' }), 201);
    await c.signIn();
  });
  after(async () => {
    await c.close();
    await anthropic.close();
  });

  test('when a vendor is connected and synced then the progress bar reaches 100 % and the last sync shows', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Connections' }).click();
    const form = page.getByRole('form', { name: 'New connection' });
    await form.getByLabel('Label').fill('Acme org');
    await form.getByLabel('Admin key').fill(ANTHROPIC_FAKE_KEY);
    await form.getByRole('button', { name: 'Connect' }).click();
    const card = page.getByRole('article', { name: 'Connection Acme org' });
    await card.waitFor();
    assert.match(await card.innerText(), /ACTIVE/);
    assert.match(await card.innerText(), /key …key1/, 'only the key hint');
    assert.doesNotMatch(await page.content(), /sk-ant-admin01-fake/, 'the admin key is never shown');

    await card.getByRole('button', { name: 'Sync now' }).click();
    await card.getByText(/rows written/).waitFor();
    const progress = card.getByRole('progressbar', { name: 'Sync progress of Acme org' });
    await page.waitForFunction(() => /^100 %/.test(document.querySelector('[data-testid=sync-percent]')?.textContent ?? ''));
    assert.equal(await progress.getAttribute('value'), await progress.getAttribute('max'));
    assert.doesNotMatch(await card.innerText(), /Last sync: —/);

    await card.getByRole('button', { name: 'Probe' }).click();
    await card.getByText('Probe passed: the key works.').waitFor();
    await c.screenshot('spend-connections');
  });

  test("when the vendor refuses the key then its message shows, and a replaced key brings the connection back", async () => {
    const { page } = c;
    const card = page.getByRole('article', { name: 'Connection Acme org' });
    anthropic.refuseKey();
    await card.getByRole('button', { name: 'Sync now' }).click();
    await card.getByText(/Vendor said: .*invalid x-api-key/).waitFor();
    assert.match(await card.innerText(), /ERROR/);

    const fresh = 'sk-ant-admin01-fresh-0000-key2';
    anthropic.acceptKey(fresh);
    await card.getByRole('button', { name: 'Replace key' }).click();
    await card.getByLabel('New admin key').fill(fresh);
    await card.getByRole('button', { name: 'Save key' }).click();
    await card.getByRole('button', { name: 'Probe' }).click();
    await card.getByText('Probe passed: the key works.').waitFor();
    await page.waitForFunction(() => /ACTIVE/.test(document.querySelector('[aria-label="Connection Acme org"]')?.textContent ?? ''));
    assert.match(await card.innerText(), /key …key2/);
    assert.doesNotMatch(await card.innerText(), /Vendor said/);
  });

  test('when usage opens then cost by day and tokens by model are charted and the unpriced model is flagged', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Usage', exact: true }).click();
    await page.getByRole('table', { name: 'Usage by model' }).waitFor();
    assert.match(await page.getByRole('note').innerText(), /Unpriced models.*house-model-x/);
    const rows = await page.getByRole('table', { name: 'Usage by model' }).innerText();
    assert.match(rows, /house-model-x\s+unpriced/);
    assert.match(rows, /claude-sonnet-4-5-20250929/);
    assert.match(await page.getByTestId('metered-total').innerText(), /^\$\d+\.\d{2,}$/);
    await page.getByRole('figure', { name: 'Cost by day' }).locator('canvas').waitFor();
    await page.getByRole('img', { name: 'Tokens by model, stacked by kind' }).locator('canvas').waitFor();
    await c.screenshot('spend-usage');
  });

  test('when allocation opens then the unit and the Unattributed row split the metered total', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Allocation' }).click();
    const table = page.getByRole('table', { name: 'Allocation' });
    await table.waitFor();
    const text = await table.innerText();
    assert.match(text, /Backend\s+TEAM\s+\$\d/);
    assert.match(text, /Unattributed\s+—\s+\$\d/);
    const report = await f.expectOk(f.api('GET', '/reports/allocation'));
    assert.notEqual(String(report.unattributedCents), '0', 'the default workspace is nobody\'s');
    await c.screenshot('spend-allocation');
  });

  test('when a budget is set below the spend and evaluated then the bar is full, and the alert leaves the unacknowledged list once acknowledged', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Budgets' }).click();
    const card = page.getByRole('article', { name: 'Budget of Backend' });
    await card.getByText('No budget.').waitFor();
    await card.getByRole('button', { name: 'Set budget' }).click();
    const form = card.getByRole('form', { name: 'Budget form of Backend' });
    await form.getByLabel('Monthly ceiling ($)').fill('abc');
    await form.getByRole('button', { name: 'Save budget' }).click();
    await form.getByText('Ceilings are amounts in dollars').waitFor();
    await form.getByLabel('Monthly ceiling ($)').fill('0.01');
    await form.getByRole('button', { name: 'Save budget' }).click();
    await card.getByText(/of \$0\.01/).waitFor();
    assert.equal(await card.getByRole('meter', { name: 'Monthly spend of Backend' }).getAttribute('aria-valuenow'), '100');
    assert.match(await card.getByTestId('enforcement').innerText(), /Alerts only/);

    // BLOCK with a LiteLLM rule but no LiteLLM connection: the gateway state says why it is not enforced.
    await f.expectOk(f.api('POST', '/rules', { spendUnitId: unit.id, provider: 'LITELLM', matchKind: 'WORKSPACE_ID', matchValue: 'team-backend' }), 201);
    await card.getByRole('button', { name: 'Edit budget' }).click();
    await form.getByLabel('Mode').selectOption('BLOCK');
    await form.getByRole('button', { name: 'Save budget' }).click();
    await card.getByText(/Gateway enforcement failed: .*No LiteLLM connection/).waitFor();

    await card.getByRole('button', { name: 'Bump' }).click();
    const bump = card.getByRole('form', { name: 'Bump of Backend' });
    await bump.getByLabel('Lifted monthly ceiling ($)').fill('5');
    await bump.getByLabel('Until').fill('2026-03-20T12:00');
    await bump.getByLabel('Reason').fill('launch week');
    await bump.getByRole('button', { name: 'Bump budget' }).click();
    await card.getByText(/bumped to \$5\.00 until .*launch week/).waitFor();
    await c.screenshot('spend-budgets');

    // Back to a low ceiling, then the evaluation fires the alert.
    await f.expectOk(f.api('DELETE', `/units/${unit.id}/budget/bump`));
    await f.expectOk(f.api('PUT', `/units/${unit.id}/budget`, { monthlyCents: 1, monthlyMode: 'ALERT' }));
    const fired = await f.expectOk<any[]>(f.api('POST', '/budgets/evaluate'));
    assert.ok(fired.length > 0, 'the evaluation fired an alert');
    await page.getByRole('link', { name: 'Alerts' }).click();
    const table = page.getByRole('table', { name: 'Alerts' });
    await table.waitFor();
    const before = await table.locator('tbody tr').count();
    assert.ok(before > 0);
    const ack = table.getByRole('button', { name: /^Acknowledge / }).first();
    await ack.click();
    await page.waitForFunction((n) => document.querySelectorAll('table[aria-label=Alerts] tbody tr').length < n || !!document.querySelector('.empty'), before);
    await page.getByLabel('Unacknowledged only').uncheck();
    await page.getByRole('table', { name: 'Alerts' }).getByText(/by /).first().waitFor();
    await c.screenshot('spend-alerts');
  });

  test('when spend settings are saved then a secret shows only as set, never its value', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Spend settings' }).click();
    await page.getByTestId('slackWebhookUrl-state').waitFor();
    assert.equal(await page.getByTestId('slackWebhookUrl-state').innerText(), 'not set');
    await page.getByLabel('Replace Slack webhook').fill('https://hooks.slack.com/services/T000/B000/secretpart');
    await page.getByLabel('Person-level attribution').check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    assert.match(await page.getByRole('alert').innerText(), /Write the worker notice before enabling person-level attribution/);
    assert.equal(await page.getByTestId('slackWebhookUrl-state').innerText(), 'not set');
    await page.getByLabel('Worker notice').fill('AI spend is attributed to you by name.');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal(await page.getByTestId('slackWebhookUrl-state').innerText(), 'set');
    assert.equal(await page.getByLabel('Replace Slack webhook').inputValue(), '');
    assert.doesNotMatch(await page.content(), /secretpart/);

    await page.getByLabel('Replace Webhook URL').fill('ftp://example.com/x');
    await page.getByRole('button', { name: 'Save settings' }).click();
    assert.match(await page.getByRole('alert').innerText(), /webhookUrl/);
  });
});
