import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { openConsole, type ConsoleSession } from './browser.js';

type Operator = { id: string; username: string; role: string; disabled: boolean };

describe('console: the team, roles and the password (browser)', () => {
  let c: ConsoleSession;
  /** The invited BILLING user's own browser (a fresh context: its own cookie). */
  let colleague: Page;
  let oneTimePassword = '';

  before(async () => {
    c = await openConsole();
    await c.signIn();
  });
  after(() => c.close());

  /** The operators as the API lists them, read with the owner's token. */
  async function apiUser(username: string): Promise<Operator | undefined> {
    const res = await c.svc.http.get('/api/v1/users', { auth: c.account.token });
    assert.equal(res.status, 200, res.text);
    return (res.body.data as Operator[]).find((u) => u.username === username);
  }

  const usersTable = () => c.page.getByRole('table', { name: 'Users' });

  test('when the owner invites a BILLING user then its one-time password is shown once and the user is listed', async () => {
    const { page } = c;
    assert.match(await page.getByTestId('signed-in').innerText(), new RegExp(`${c.account.username}\\s+OWNER`));
    await page.getByRole('link', { name: 'Users' }).click();
    const form = page.getByRole('form', { name: 'Invite an operator' });
    await form.getByLabel('Username').fill('finance');
    await form.getByLabel('Role').selectOption('BILLING');
    await form.getByRole('button', { name: 'Invite' }).click();
    const secret = page.getByRole('region', { name: 'One-time password for finance' });
    oneTimePassword = await secret.getByTestId('secret-value').innerText();
    assert.ok(oneTimePassword.length >= 24, oneTimePassword);
    assert.match(await secret.innerText(), /shown once/);
    await secret.getByRole('button', { name: 'Copy' }).waitFor();
    await usersTable().getByRole('cell', { name: 'finance', exact: true }).waitFor();
    assert.equal(await usersTable().getByLabel('Role of finance').inputValue(), 'BILLING');
    await c.screenshot('users-invited');
    await secret.getByRole('button', { name: 'Done' }).click();
    assert.equal(await secret.count(), 0, 'the password is gone once dismissed');
    assert.deepEqual(await apiUser('finance').then((u) => u && { role: u.role, disabled: u.disabled }), { role: 'BILLING', disabled: false });
  });

  test('when the BILLING user signs in with it then the catalog forms are disabled, Users is hidden, and a customer can be created', async () => {
    const context = await c.browser.newContext({ baseURL: c.svc.baseUrl, viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    colleague = await context.newPage();
    colleague.setDefaultTimeout(15_000);
    await colleague.goto('/customers');
    await colleague.getByLabel('Username').fill('finance');
    await colleague.getByLabel('Password').fill(oneTimePassword);
    await colleague.getByRole('button', { name: 'Sign in' }).click();
    await colleague.getByRole('heading', { name: 'Customers' }).waitFor();
    assert.match(await colleague.getByTestId('signed-in').innerText(), /finance\s+BILLING/);
    const nav = colleague.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.getByRole('link', { name: 'Users' }).count(), 0, 'Users is the owner’s');
    await nav.getByRole('link', { name: 'Customers' }).waitFor();

    for (const [link, formName, button] of [
      ['Features', 'New feature', 'Create feature'],
      ['Plans', 'New plan', 'Create plan'],
    ]) {
      await nav.getByRole('link', { name: link }).click();
      const form = colleague.getByRole('form', { name: formName });
      assert.equal(await form.getByRole('button', { name: button }).isDisabled(), true, `${formName} is the admin's`);
      assert.match(await form.innerText(), /Needs the OWNER or ADMIN role/);
      assert.equal(await form.getByRole('button', { name: button }).getAttribute('title'), 'Needs the OWNER or ADMIN role');
    }
    await colleague.goto('/users');
    await colleague.getByRole('heading', { name: 'Not for your role' }).waitFor();
    assert.match(await colleague.locator('main').innerText(), /Needs the OWNER role to open this page/);

    await nav.getByRole('link', { name: 'Customers' }).click();
    const form = colleague.getByRole('form', { name: 'New customer' });
    await form.getByLabel('Reference').fill('initech');
    await form.getByLabel('E-mail').fill('ap@initech.example');
    await form.getByRole('button', { name: 'Create customer' }).click();
    await colleague.getByRole('table', { name: 'Customers' }).getByRole('link', { name: 'initech' }).waitFor();
    const listed = await c.svc.http.get('/api/v1/monetization/customers', { auth: c.account.token });
    assert.ok((listed.body.data as { customerReferenceId: string }[]).some((x) => x.customerReferenceId === 'initech'));
    await colleague.getByRole('table', { name: 'Customers' }).getByRole('link', { name: 'initech' }).click();
    const keys = colleague.getByRole('form', { name: 'New customer key' });
    assert.equal(await keys.getByRole('button', { name: 'Create key' }).isDisabled(), true, 'keys are the admin’s');
    await nav.getByRole('link', { name: 'Customers' }).click();
  });

  test('when the owner makes the user a VIEWER (confirmed) then its next change is refused, and after a reload the form is disabled', async () => {
    const { page } = c;
    await usersTable().getByLabel('Role of finance').selectOption('VIEWER');
    await page.getByRole('alertdialog', { name: 'Make finance VIEWER?' }).getByRole('button', { name: 'Make VIEWER' }).click();
    await page.waitForFunction(() => (document.querySelector('select[aria-label="Role of finance"]') as HTMLSelectElement | null)?.value === 'VIEWER');
    assert.equal((await apiUser('finance'))?.role, 'VIEWER');

    // The open page still thinks BILLING: the server is the authority and its 403 is shown.
    const form = colleague.getByRole('form', { name: 'New customer' });
    await form.getByLabel('Reference').fill('hooli');
    await form.getByLabel('E-mail').fill('ap@hooli.example');
    await form.getByRole('button', { name: 'Create customer' }).click();
    assert.match(await form.getByRole('alert').innerText(), /Customer not created: Access denied/);
    await colleague.reload();
    await colleague.getByRole('heading', { name: 'Customers' }).waitFor();
    assert.match(await colleague.getByTestId('signed-in').innerText(), /finance\s+VIEWER/);
    assert.equal(await colleague.getByRole('form', { name: 'New customer' }).getByRole('button', { name: 'Create customer' }).isDisabled(), true);
    assert.match(await colleague.getByRole('form', { name: 'New customer' }).innerText(), /Needs the OWNER, ADMIN or BILLING role/);
    const listed = await c.svc.http.get('/api/v1/monetization/customers', { auth: c.account.token });
    assert.ok(!(listed.body.data as { customerReferenceId: string }[]).some((x) => x.customerReferenceId === 'hooli'));
  });

  test('when the owner disables the user (confirmed) then its open session goes to the login page on its next call', async () => {
    const { page } = c;
    await usersTable().getByRole('button', { name: 'Disable finance' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Disable finance?' });
    assert.match(await dialog.innerText(), /every open session of theirs ends at once/);
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await usersTable().getByRole('button', { name: 'Enable finance' }).waitFor();
    assert.match(await usersTable().innerText(), /finance[\s\S]*DISABLED/);
    assert.equal((await apiUser('finance'))?.disabled, true);

    await colleague.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Features' }).click();
    await colleague.getByRole('heading', { name: 'Sign in to Tally' }).waitFor();
    assert.match(await colleague.getByRole('status').innerText(), /Your session ended/);
    await colleague.getByLabel('Username').fill('finance');
    await colleague.getByLabel('Password').fill(oneTimePassword);
    await colleague.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await colleague.getByRole('alert').innerText(), /This login is disabled/);
    await colleague.context().close();
  });

  test('when the owner would demote the last owner then the API’s 409 message is shown and the role stays', async () => {
    const { page } = c;
    const me = c.account.username;
    await usersTable().getByLabel(`Role of ${me}`).selectOption('ADMIN');
    await page.getByRole('alertdialog', { name: `Make ${me} ADMIN?` }).getByRole('button', { name: 'Make ADMIN' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'User not changed' });
    assert.match(await refusal.innerText(), /owner/i);
    assert.equal(await usersTable().getByLabel(`Role of ${me}`).inputValue(), 'OWNER');
    assert.equal((await apiUser(me))?.role, 'OWNER');
  });

  test('when the owner changes the password then the console goes to the login page saying so, the old password is refused and the new one works', async () => {
    const { page, svc, account } = c;
    await page.getByRole('link', { name: 'Account & keys' }).click();
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill(account.password);
    await form.getByLabel('New password (at least 8 characters)').fill('a brand new password');
    await form.getByLabel('Repeat new password').fill('a brand new passw0rd');
    await form.getByRole('button', { name: 'Change password' }).click();
    assert.match(await form.getByRole('alert').innerText(), /does not match the new password/);
    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel('Repeat new password').fill('a brand new password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('is incorrect').waitFor();
    assert.equal((await svc.http.post('/public/v1/login', { body: { username: account.username, password: account.password } })).status, 200, 'nothing changed yet');

    await form.getByLabel('Current password').fill(account.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('heading', { name: 'Sign in to Tally' }).waitFor();
    assert.equal(await page.getByRole('status').innerText(), 'Password changed: sign in with the new password.');
    await c.checkA11y();
    assert.equal((await svc.http.get('/api/v1/users', { auth: account.token })).status, 401, 'the earlier sessions ended too');

    await page.getByLabel('Username').fill(account.username);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await page.getByRole('alert').innerText(), /Invalid credentials/);
    await page.getByLabel('Password').fill('a brand new password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Account & keys' }).waitFor();
    const login = await svc.http.post('/public/v1/login', { body: { username: account.username, password: 'a brand new password' } });
    assert.equal(login.status, 200);
    assert.equal((await svc.http.get('/api/v1/users', { auth: login.body.data.token })).status, 200);
  });
});
