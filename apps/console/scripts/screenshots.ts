/**
 * `npm run screenshots -w @tally/console`: the README's pictures of the console. Starts the server
 * on a fresh embedded database serving the build, seeds a realistic account (bench/seed.ts: 20
 * customers on three plans, a credit pool, 20,000 usage events over 30 days), signs in with
 * Debian's Chromium and writes docs/images/console-overview.png and docs/images/console-customer.png.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createTestAccount, startTestService } from '../../../packages/server/test/harness.js';
import { seedAccount } from '../bench/seed.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/chromium.js';

const DIST = fileURLToPath(new URL('../dist', import.meta.url));
const IMAGES = fileURLToPath(new URL('../../../docs/images', import.meta.url));

const svc = await startTestService({ consoleDir: DIST, env: { LOG_LEVEL: 'warn' } });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  const account = await createTestAccount(svc, { username: 'admin' });
  const seeded = await seedAccount(svc, account, 20_000);
  const context = await browser.newContext({ baseURL: svc.baseUrl, viewport: { width: 1280, height: 860 }, colorScheme: 'light', timezoneId: 'UTC', locale: 'en-US' });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel('Username').fill(account.username);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.chart canvas').waitFor();
  await page.locator('table[aria-label="Top customers by usage"] tbody tr').first().waitFor();
  mkdirSync(IMAGES, { recursive: true });
  await page.screenshot({ path: `${IMAGES}/console-overview.png` });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers', exact: true }).click();
  await page.getByRole('link', { name: 'acme', exact: true }).click();
  await page.waitForURL(`**/customers/${seeded.customerIds.acme}`);
  await page.waitForFunction(() => document.querySelector('[data-loading]') === null && document.querySelector('main h1') !== null);
  await page.locator('.chart canvas').first().waitFor().catch(() => {});
  await page.screenshot({ path: `${IMAGES}/console-customer.png`, fullPage: true });
  console.log(`wrote ${IMAGES}/console-overview.png and ${IMAGES}/console-customer.png`);
} finally {
  await browser.close();
  await svc.close();
}
