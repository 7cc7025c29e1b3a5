import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openConsole, type ConsoleSession } from './browser.js';

describe('console: sign-in and the tenant key (browser)', () => {
  let c: ConsoleSession;
  before(async () => {
    c = await openConsole();
  });
  after(() => c.close());

  test('when a page is opened signed out then the login page asks, shows the dev hint, and refuses a wrong password inline', async () => {
    const { page } = c;
    await page.goto('/catalog/features');
    await page.getByRole('heading', { name: 'Sign in to Tally' }).waitFor();
    assert.match(page.url(), /\/login\?next=%2Fcatalog%2Ffeatures/);
    assert.match(await page.locator('.dev-hint').innerText(), /Seeded the dev account/);
    await page.getByLabel('Username').fill(c.account.username);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await page.getByRole('alert').innerText(), /Invalid credentials/);
  });

  test('when signed in then the page asked for opens, and the session is in no web storage', async () => {
    const { page } = c;
    await page.getByLabel('Password').fill(c.account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Features' }).waitFor();
    assert.match(page.url(), /\/catalog\/features$/);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    assert.equal(stored, '{}{}');
  });

  test('when the page is reloaded or opened in a new tab then the operator stays signed in, and scripts cannot read the session cookie', async () => {
    const { page } = c;
    await page.reload();
    await page.getByRole('heading', { name: 'Features' }).waitFor();
    assert.match(page.url(), /\/catalog\/features$/);
    assert.equal(await page.evaluate(() => document.cookie.includes('tally_session')), false, 'HttpOnly');
    const [cookie] = (await page.context().cookies()).filter((k) => k.name === 'tally_session');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    const tab = await page.context().newPage();
    await tab.goto('/catalog/plans');
    await tab.getByRole('heading', { name: 'Plans' }).waitFor();
    await tab.close();
  });

  test('when the tenant key is rotated then the new key is shown once, works, and the masked key follows', async () => {
    const { page, svc } = c;
    await page.getByRole('link', { name: 'Account & keys' }).click();
    const masked = page.getByTestId('masked-key');
    await masked.waitFor();
    const before = await masked.innerText();
    assert.match(before, /^sk_test_…[0-9a-f]{4}$/);
    await page.getByRole('button', { name: 'Rotate tenant key' }).click();
    await page.getByRole('alertdialog', { name: 'Rotate the tenant key?' }).getByRole('button', { name: 'Rotate key' }).click();
    const secret = page.getByTestId('secret-value');
    await secret.waitFor();
    const fresh = await secret.innerText();
    assert.match(fresh, /^sk_test_[0-9a-f]{32}$/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await page.waitForFunction((last4) => document.querySelector('[data-testid=masked-key]')?.textContent?.endsWith(last4), fresh.slice(-4));
    await c.screenshot('account-key-rotated');
    assert.equal((await svc.http.get('/api/v1/client/features', { auth: fresh })).status, 200);
    assert.equal((await svc.http.get('/api/v1/client/features', { auth: c.account.apiKey })).status, 401);
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await secret.count(), 0, 'the new key is gone once dismissed');
  });

  test('when a feature is created then it is listed, and a duplicate key shows the API message inline', async () => {
    const { page } = c;
    await page.getByRole('link', { name: 'Features' }).click();
    const form = page.getByRole('form', { name: 'New feature' });
    await form.getByLabel('Name').fill('API calls');
    await form.getByLabel('Key').fill('api_calls');
    await form.getByRole('button', { name: 'Create feature' }).click();
    await page.getByRole('cell', { name: 'api_calls' }).waitFor();
    await form.getByLabel('Name').fill('Again');
    await form.getByLabel('Key').fill('api_calls');
    await form.getByRole('button', { name: 'Create feature' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /requestId/);
    await c.screenshot('features');
  });

  test('when the session is refused (expired JWT) then the next call returns to the login page, which comes back', async () => {
    const { page } = c;
    // Stand-in for the 2-hour expiry: the server answers 401 to the next Admin API call.
    await page.route('**/api/v1/monetization/features', (route) =>
      route.fulfill({ status: 401, contentType: 'application/json', body: '{"success":false,"error":{"code":"unauthorized","message":"Token expired","requestId":"r"}}' }),
    );
    const form = page.getByRole('form', { name: 'New feature' });
    await form.getByLabel('Name').fill('Late');
    await form.getByLabel('Key').fill('late');
    await form.getByRole('button', { name: 'Create feature' }).click();
    await page.getByText('Your session ended').waitFor();
    assert.match(page.url(), /\/login\?next=%2Fcatalog%2Ffeatures&expired=1/);
    await page.unroute('**/api/v1/monetization/features');
    await page.getByLabel('Username').fill(c.account.username);
    await page.getByLabel('Password').fill(c.account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('cell', { name: 'api_calls' }).waitFor();
  });

  test('when the operator signs out then the session ends on the server: the old cookie is refused', async () => {
    const { page, svc } = c;
    const [cookie] = (await page.context().cookies()).filter((k) => k.name === 'tally_session');
    assert.ok(cookie, 'signed in with a session cookie');
    const asCookie = () => svc.http.get('/api/v1/session', { headers: { cookie: `tally_session=${cookie.value}` } });
    assert.equal((await asCookie()).status, 200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Tally' }).waitFor();
    assert.equal((await asCookie()).status, 401);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Tally' }).waitFor();
  });
});
