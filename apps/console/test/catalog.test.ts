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

  test('when there is no plan yet then the agent page and the plans page say what to do next and lead there', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Agent surface' }).click();
    await page.getByText('No ACTIVE plan to offer agents yet.').waitFor();
    await page.getByRole('link', { name: 'Create and activate a plan' }).click();
    await page.getByRole('heading', { name: 'Plans' }).waitFor();
    await page.getByText('No plans yet: create the first one').waitFor();
    await page.getByRole('button', { name: 'Start with a key' }).click();
    assert.equal(await page.getByRole('form', { name: 'New plan' }).getByLabel('Key').evaluate((el) => el === document.activeElement), true);
  });

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

    const confirm = async (button: string) => {
      await page.getByRole('button', { name: button }).first().click();
      await page.getByRole('alertdialog').getByRole('button', { name: button }).click();
    };
    await confirm('Activate plan');
    const refusal = page.locator('.status-actions').getByRole('alert');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /missing one part/);
    assert.match(await refusal.innerText(), /At least one linked feature: link one under Features and rules/);
    assert.match(await refusal.innerText(), /requestId/);
    await c.screenshot('plan-activation-refused');

    const link = page.getByRole('form', { name: 'Link a feature' });
    await link.getByLabel('Feature').selectOption({ label: 'Messages (messages)' });
    await link.getByLabel('Price per unit', { exact: true }).fill('0.01');
    await link.getByLabel(/Usage limit/).fill('1000');
    await link.getByRole('button', { name: 'Link feature' }).click();
    const rules = page.getByRole('table', { name: 'Plan features' });
    await rules.locator('.rule-summary').waitFor();
    assert.match(await rules.innerText(), /Usage price: \$0\.01 per units/);
    assert.match(await rules.innerText(), /Limit: 1,000 units/);
    assert.doesNotMatch(await rules.innerText(), /"/, 'no JSON strings');

    await confirm('Activate plan');
    await page.getByRole('button', { name: 'Archive plan' }).waitFor();
    assert.equal(await page.locator('.page-header .badge').innerText(), 'ACTIVE');
    assert.equal(await page.locator('.status-actions').getByRole('alert').count(), 0, 'the refusal is gone');
    await c.screenshot('plan-active');

    await confirm('Archive plan');
    await page.getByRole('button', { name: 'Reactivate plan' }).waitFor();
    await page.getByRole('link', { name: 'Plans' }).click();
    const row = page.getByRole('table', { name: 'Plans' }).getByRole('row', { name: /Pro/ });
    // The list paints from its cache first and refetches (the plan page invalidated it): wait for the new status.
    await row.filter({ hasText: 'ARCHIVED' }).waitFor();
    assert.match(await row.innerText(), /pro\s+\$49\.90\s+1 mo · in advance\s+ARCHIVED/);
  });

  test('when a rule is refused by the API then the message shows under its field and nothing is linked', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Plans' }).click();
    const create = page.getByRole('form', { name: 'New plan' });
    await create.getByLabel('Key').fill('team');
    await create.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('heading', { name: 'team' }).waitFor();
    const link = page.getByRole('form', { name: 'Link a feature' });
    await link.getByLabel('Feature').selectOption({ label: 'Seats (seats)' });
    // A usage price left empty: the API names value.pricing.price_per_unit.
    await link.getByRole('button', { name: 'Link feature' }).click();
    const inline = link.locator('label', { hasText: 'Price per unit' }).getByRole('alert');
    await inline.waitFor();
    assert.match(await inline.innerText(), /price_per_unit is required/);
    assert.match(await link.innerText(), /Feature not linked/);
    assert.equal(await page.getByRole('table', { name: 'Plan features' }).count(), 0);
  });
});
