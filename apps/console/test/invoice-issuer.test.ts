import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

/** The invoice issuer on the account page (api-contract-money.md §1.1): saved through the API, then printed on the next invoice's PDF. */
describe('console: invoice issuer (browser)', () => {
  let c: ConsoleSession;
  let m: ReturnType<typeof monetization>;
  before(async () => {
    c = await openConsole();
    m = monetization(c.svc, c.account);
    await c.signIn();
  });
  after(() => c.close());

  test('when the owner saves the issuer then the settings hold it, a bad e-mail shows the API message, and the next invoice is numbered with the prefix', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Account & keys' }).click();
    const form = page.getByRole('form', { name: 'Invoice issuer' });
    await form.getByLabel('Invoice number prefix').fill('acme');
    await form.getByLabel('Legal name').fill('Acme Ltd');
    await form.getByLabel('Address (one line each, at most 6)').fill('1 Main St\nSpringfield');
    await form.getByLabel('Tax ID').fill('GB123');
    await form.getByLabel('Contact e-mail').fill('billing@acme.test');
    await form.getByRole('button', { name: 'Save issuer' }).click();
    await form.getByRole('status').waitFor();
    const settings = await m.expectOk(m.api('GET', '/api/v1/tanso/account-settings'));
    assert.deepEqual(
      [settings.invoiceNumberPrefix, settings.legalName, settings.addressLines, settings.taxId, settings.contactEmail],
      ['ACME', 'Acme Ltd', ['1 Main St', 'Springfield'], 'GB123', 'billing@acme.test'],
    );
    await form.getByLabel('Contact e-mail').fill('nobody');
    await form.evaluate((f: HTMLFormElement) => f.setAttribute('novalidate', ''));
    await form.getByRole('button', { name: 'Save issuer' }).click();
    await page.getByText('contactEmail must be an e-mail address').first().waitFor();

    const feature = await m.feature();
    const plan = await m.activePlan({ price: 10, features: [{ id: feature.id }] });
    await m.customer('issuer-cust');
    const invoice = (await m.subscribe('issuer-cust', plan.id)).invoice;
    assert.match(invoice.number, /^ACME-\d{4}-000001$/);
  });
});
