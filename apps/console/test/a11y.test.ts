import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { NAV } from '../src/routes.js';
import { openConsole, type ConsoleSession } from './browser.js';

/**
 * The accessibility pass over the whole console: every navigation entry (as a person reaches it, by
 * its link), a plan and a customer page, and the login page, each in the light and the dark theme,
 * with axe-core finding no serious or critical violation (contrast is checked per theme).
 */
describe('console: accessibility of every page in both themes, the keyboard, time zones (browser)', () => {
  let c: ConsoleSession;
  let planId: string;
  let customerId: string;
  before(async () => {
    c = await openConsole();
    const m = monetization(c.svc, c.account);
    const feature = await m.feature({ key: 'chat' });
    const plan = await m.activePlan({ price: '19.99', features: [{ id: feature.id }], key: 'starter' });
    planId = plan.id;
    await m.customer('acme');
    await m.subscribe('acme', plan.id);
    customerId = (await m.expectOk<{ id: string; customerReferenceId: string }[]>(m.admin('GET', '/customers'))).find((x) => x.customerReferenceId === 'acme')!.id;
    await m.event({ customerReferenceId: 'acme', featureKey: 'chat', usageUnits: 3, eventIdempotencyKey: 'a11y-1' });
  });
  after(() => c.close());

  for (const scheme of ['light', 'dark'] as const) {
    test(`when every page is opened in the ${scheme} theme then axe finds no serious or critical violation`, async () => {
      const { page } = c;
      await page.emulateMedia({ colorScheme: scheme });
      // Signed out: the session cookie survives a reload (ADR 0034), so the login page needs none.
      await page.context().clearCookies();
      await page.goto('/login');
      await page.getByRole('heading', { name: 'Sign in to Tally' }).waitFor();
      await c.checkA11y();
      await c.signIn();
      const failures: string[] = [];
      const nav = page.getByRole('navigation', { name: 'Main' });
      const walked: string[] = [];
      for (const entry of NAV.flatMap((s) => s.entries)) {
        await nav.getByRole('link', { name: entry.label, exact: true }).click();
        await page.waitForURL((url) => url.pathname === entry.path);
        await page.locator('main h1').first().waitFor();
        await c.checkA11y().catch((err: Error) => failures.push(err.message));
        walked.push(entry.path);
      }
      for (const path of [`/catalog/plans/${planId}`, `/customers/${customerId}`]) {
        await page.evaluate((p) => {
          history.pushState(null, '', p);
          dispatchEvent(new PopStateEvent('popstate'));
        }, path);
        await page.locator('main h1').first().waitFor();
        await c.checkA11y().catch((err: Error) => failures.push(err.message));
        walked.push(path);
      }
      assert.equal(walked.length, NAV.flatMap((s) => s.entries).length + 2);
      assert.deepEqual(failures, []);
    });
  }

  test('when a theme is picked then it overrides the system scheme, survives a reload, and System follows the system again', async () => {
    const { page } = c;
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.context().clearCookies();
    await page.goto('/login');
    const theme = page.getByLabel('Theme');
    assert.equal(await background(), 'rgb(247, 247, 248)');
    await theme.selectOption('dark');
    assert.equal(await background(), 'rgb(21, 23, 27)');
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Tally' }).waitFor();
    assert.equal(await background(), 'rgb(21, 23, 27)', 'the choice is kept across a reload');
    assert.equal(await theme.inputValue(), 'dark');
    await theme.selectOption('system');
    assert.equal(await background(), 'rgb(247, 247, 248)');
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await background(), 'rgb(21, 23, 27)');
  });

  test('when a person uses only the keyboard then they sign in, skip to the content and create a feature', async () => {
    const { page } = c;
    await page.emulateMedia({ colorScheme: 'light' });
    await page.context().clearCookies();
    await page.goto('/login');
    await page.getByRole('heading', { name: 'Sign in to Tally' }).waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('name') ?? document.activeElement?.textContent ?? '');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'username', 'the first tab stop is the username');
    await page.keyboard.type(c.account.username);
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'password');
    await page.keyboard.type(c.account.password);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Skip to content', 'the skip link is the first tab stop of the console');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused control shows a focus ring');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Features', exact: true }).focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'New feature' });
    await form.getByLabel('Name').focus();
    await page.keyboard.type('Keyboard feature');
    await page.keyboard.press('Tab');
    await page.keyboard.type('kbd.feature');
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'kbd.feature' }).waitFor();
  });

  test("when the user's zone is not UTC then dates show in that zone with the UTC instant on hover", async () => {
    const context = await c.browser.newContext({ baseURL: c.svc.baseUrl, timezoneId: 'America/New_York', locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto(`/login?next=${encodeURIComponent(`/customers/${customerId}`)}`);
      await page.getByLabel('Username').fill(c.account.username);
      await page.getByLabel('Password').fill(c.account.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // The customer was created at the service's frozen 2026-03-10T12:00:00Z: 8:00 AM in New York (EDT since March 8).
      const created = page.locator('main p.muted time').first();
      await created.waitFor();
      assert.match(await created.innerText(), /^Mar 10, 2026, 8:00\sAM$/);
      assert.equal(await created.getAttribute('title'), '2026-03-10T12:00:00Z UTC');
      assert.match((await created.getAttribute('datetime')) ?? '', /^2026-03-10T12:00:00(\.000)?Z$/);
    } finally {
      await context.close();
    }
  });
});
