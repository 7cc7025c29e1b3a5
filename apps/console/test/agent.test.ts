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

  test('when payments open then the processor mode and connection status show', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Payments' }).click();
    assert.equal(await page.getByTestId('stripe-mode').innerText(), 'NONE');
    assert.equal(await page.getByTestId('stripe-enabled').innerText(), 'disabled');
    assert.match(await page.getByTestId('stripe-connection').innerText(), /Not connected/);
  });
});
