import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

describe('console: catalog plans (browser)', () => {
  let c: ConsoleSession;
  before(async () => {
    c = await openConsole();
    const m = monetization(c.svc, c.account);
    await m.feature({ name: 'Messages', key: 'messages' });
    await m.feature({ name: 'Seats', key: 'seats' });
    await c.signIn();
  });
  after(() => c.close());

  test('when a plan is created then it opens as DRAFT, activation is refused inline, and succeeds once a feature is linked', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Plans' }).click();
    await page.getByText('No plans yet').waitFor();
    const form = page.getByRole('form', { name: 'New plan' });
    await form.getByLabel('Key').fill('pro');
    await form.getByLabel('Name').fill('Pro');
    await form.getByLabel('Description').fill('For teams');
    await form.getByLabel('Price per period').fill('49.90');
    await form.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('heading', { name: 'Pro' }).waitFor();
    assert.equal(await page.locator('.page-header .badge').innerText(), 'DRAFT');
    assert.match(await page.locator('.stat').nth(1).innerText(), /\$49\.90/);

    await page.getByRole('button', { name: 'Activate plan' }).click();
    const refusal = page.locator('.status-actions').getByRole('alert');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /feature/i);
    assert.match(await refusal.innerText(), /requestId/);
    await c.screenshot('plan-activation-refused');

    const link = page.getByRole('form', { name: 'Link a feature' });
    await link.getByLabel('Feature').selectOption({ label: 'Messages (messages)' });
    await link.getByRole('button', { name: 'Link feature' }).click();
    const rules = page.getByRole('table', { name: 'Plan features' });
    await rules.locator('pre').waitFor().catch(async () => { await c.screenshot('debug-link'); throw new Error(await page.locator('main').innerText()); });
    assert.match(await rules.innerText(), /"price_per_unit": "0\.01"/);
    assert.match(await rules.innerText(), /"max_usage": "1000"/);

    await page.getByRole('button', { name: 'Activate plan' }).click();
    await page.getByRole('button', { name: 'Archive plan' }).waitFor();
    assert.equal(await page.locator('.page-header .badge').innerText(), 'ACTIVE');
    assert.equal(await page.locator('.status-actions').getByRole('alert').count(), 0, 'the refusal is gone');
    await c.screenshot('plan-active');

    await page.getByRole('button', { name: 'Archive plan' }).click();
    await page.getByRole('button', { name: 'Reactivate plan' }).waitFor();
    await page.getByRole('link', { name: 'Plans' }).click();
    const row = page.getByRole('table', { name: 'Plans' }).getByRole('row', { name: /Pro/ });
    // The list paints from its cache first and refetches (the plan page invalidated it): wait for the new status.
    await row.filter({ hasText: 'ARCHIVED' }).waitFor();
    assert.match(await row.innerText(), /pro\s+\$49\.90\s+1 mo · in advance\s+ARCHIVED/);
  });

  test('when a rule is not valid JSON or refused by the API then the form says why', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Plans' }).click();
    const create = page.getByRole('form', { name: 'New plan' });
    await create.getByLabel('Key').fill('team');
    await create.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('heading', { name: 'team' }).waitFor();
    const link = page.getByRole('form', { name: 'Link a feature' });
    await link.getByLabel('Feature').selectOption({ label: 'Seats (seats)' });
    await link.getByLabel(/Rule/).fill('{ "pricing": ');
    await link.getByRole('button', { name: 'Link feature' }).click();
    assert.match(await link.getByRole('alert').innerText(), /not valid JSON/);
    await link.getByLabel(/Rule/).fill('{ "pricing": { "model": "usage", "price_per_unit": -1 } }');
    await link.getByRole('button', { name: 'Link feature' }).click();
    const refusal = link.getByRole('alert');
    await refusal.getByText('requestId').waitFor();
    assert.match(await refusal.innerText(), /Feature not linked/);
    assert.equal(await page.getByRole('table', { name: 'Plan features' }).count(), 0);
  });
});
