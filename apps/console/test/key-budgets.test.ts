import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

/** Each customer key's budget on the customer page (issue 35 §2): view, set, clear through the Admin API twin. */
describe('console: a customer key\'s budget (browser)', () => {
  let c: ConsoleSession;
  let keyId: string;
  before(async () => {
    c = await openConsole();
    const m = monetization(c.svc, c.account);
    await m.customer('globex');
    keyId = (await m.expectOk(m.client('POST', '/customers/globex/keys', { scopes: ['read', 'purchase'] }), 201)).id;
    await c.signIn();
  });
  after(() => c.close());

  test('when an admin opens a key\'s budget then it reads none, saves limits the API then returns, and clears it', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: 'globex' }).click();
    await page.getByRole('button', { name: /^Budget of / }).click();
    const section = page.getByRole('region', { name: /^Budget of / });
    await section.getByText('No budget').waitFor();
    await section.getByLabel('Period').selectOption('WEEK');
    await section.getByLabel('Money limit').fill('12.50');
    await section.getByRole('button', { name: 'Save budget' }).click();
    await section.getByText('0 of 12.5').waitFor();
    const read = await c.svc.http.get(`/api/v1/client/customers/globex/keys/${keyId}/budget`, { auth: c.account.apiKey });
    assert.deepEqual([read.body.data.period, read.body.data.amountLimit, read.body.data.creditLimit], ['WEEK', 12.5, null]);
    await section.getByRole('button', { name: 'Clear budget' }).click();
    await section.getByText('No budget').waitFor();
    const cleared = await c.svc.http.get(`/api/v1/client/customers/globex/keys/${keyId}/budget`, { auth: c.account.apiKey });
    assert.equal(cleared.body.data.period, null);
  });
});
