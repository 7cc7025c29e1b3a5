/**
 * Browser test harness: the real server (packages/server/test/harness.ts: a fresh database, PGlite
 * or the PostgreSQL of TEST_DATABASE_URL) serving the built console, and Debian's Chromium driven
 * by playwright-core (Playwright's own browser download is not reachable from these machines).
 * `close()` ends the browser and the server, so each test file exits by itself.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestAccount, startTestService, type StartOptions, type TestService } from '../../../packages/server/test/harness.js';

export const CONSOLE_DIR = fileURLToPath(new URL('../dist', import.meta.url));
const SCREENSHOT_DIR = fileURLToPath(new URL('../test-results', import.meta.url));

/** Chromium flags for machines without outside network: no background connections, no sandbox (root). */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export type ConsoleSession = {
  svc: TestService;
  account: Awaited<ReturnType<typeof createTestAccount>>;
  browser: Browser;
  page: Page;
  /** Signs in through the login page and waits for the console's shell. */
  signIn(): Promise<void>;
  /** Saves a full-page screenshot under apps/console/test-results/ (a CI artifact). */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
};

export async function openConsole(options: StartOptions = {}): Promise<ConsoleSession> {
  if (!existsSync(join(CONSOLE_DIR, 'index.html'))) {
    throw new Error(`no console build in ${CONSOLE_DIR}: run \`npm run build -w @tally/console\` first`);
  }
  const svc = await startTestService({ consoleDir: CONSOLE_DIR, ...options });
  let browser: Browser | undefined;
  try {
    const account = await createTestAccount(svc);
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const context = await browser.newContext({ baseURL: svc.baseUrl, viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const opened = browser;
    return {
      svc,
      account,
      browser: opened,
      page,
      async signIn() {
        await page.goto('/');
        await page.getByLabel('Username').fill(account.username);
        await page.getByLabel('Password').fill(account.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
      },
      async screenshot(name) {
        mkdirSync(SCREENSHOT_DIR, { recursive: true });
        await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
      },
      async close() {
        await opened.close();
        await svc.close();
      },
    };
  } catch (err) {
    await browser?.close();
    await svc.close();
    throw err;
  }
}
