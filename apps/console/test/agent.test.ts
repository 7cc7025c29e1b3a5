import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

describe('console: agent surface (browser)', () => {
  let c: ConsoleSession;
  before(async () => {
    c = await openConsole();
    const m = monetization(c.svc, c.account);
    const feature = await m.feature({ key: 'ai.chat' });
    await m.activePlan({ key: 'free', price: 0, features: [{ id: feature.id }] });
    await c.signIn();
  });
  after(() => c.close());

  test('when a bad slug is saved then its message shows inline; a good one opens pricing.json live, with the quick start', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Agent surface' }).click();
    const form = page.getByRole('form', { name: 'Agent settings' });
    await form.getByLabel('Catalog slug').fill('Not A Slug!');
    await form.getByRole('button', { name: 'Save agent settings' }).click();
    const inline = form.locator('label', { hasText: 'Catalog slug' }).getByRole('alert');
    await inline.waitFor();
    assert.ok((await inline.innerText()).length > 0);
    await page.getByText('The public catalog is closed').waitFor();

    await form.getByLabel('Catalog slug').fill('acme');
    await form.getByLabel('Public catalog (pricing.json)').check();
    await form.getByRole('button', { name: 'Save agent settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByTestId('pricing-json').getByText(/"free"/).first().waitFor();
    assert.match(await page.getByTestId('quick-start').innerText(), /\/public\/v1\/catalog\/acme\/signup/);
    await c.screenshot('agent-surface');
  });

  test('when agent spend mandates are switched on without a ceiling then the message shows inline; with one the onboarding settings save', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Agent surface' }).click();
    const form = page.getByRole('form', { name: 'Agent settings' });
    await form.getByLabel('Agent spend mandates').check();
    await form.getByRole('button', { name: 'Save agent settings' }).click();
    // Shown next to its field (and in the form's summary).
    await form.getByText('Set agentMaxMandateAmount before enabling the agent spend mandate').first().waitFor();

    await form.getByLabel('Largest spend mandate per period (USD)').fill('50.25');
    await form.getByLabel('Days a signup stays provisional').fill('7');
    await form.getByLabel('Signups per address per hour (empty: no cap)').fill('3');
    await form.getByRole('button', { name: 'Save agent settings' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const saved = (await c.svc.http.get('/api/v1/tanso/account-settings', { auth: c.account.token })).body.data;
    assert.deepEqual(
      [saved.agentSpendMandateEnabled, saved.agentMaxMandateAmount, saved.agentProvisionalDays, saved.agentSignupPerIpCap],
      [true, 50.25, 7, 3],
    );
  });

  test('when payments open then the processor mode and connection status show', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Payments' }).click();
    assert.equal(await page.getByTestId('stripe-mode').innerText(), 'NONE');
    assert.equal(await page.getByTestId('stripe-enabled').innerText(), 'disabled');
    assert.match(await page.getByTestId('stripe-connection').innerText(), /Not connected/);
  });
});
