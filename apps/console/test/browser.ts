/**
 * Browser test harness: the real server (packages/server/test/harness.ts: a fresh database, PGlite
 * or the PostgreSQL of TEST_DATABASE_URL) serving the built console, and Debian's Chromium driven
 * by playwright-core (Playwright's own browser download is not reachable from these machines).
 * `close()` ends the browser and the server, so each test file exits by itself.
 *
 * Every story is checked without asking (ADR 0027): after each test the page it ends on is saved as
 * a screenshot (test-results/, a CI artifact) and passed through axe-core, and `close()` revisits
 * every other console path the file's tests opened and checks it too; a serious or critical
 * violation fails the test (or the file's `after` hook, for a revisited path).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { describeViolations, findViolations, waitForSettled } from './a11y.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.js';
import { createTestAccount, startTestService, type StartOptions, type TestService } from '../../../packages/server/test/harness.js';

/** The console build the server serves: apps/console/dist, or CONSOLE_DIST (a build of its own, e.g. `vite build --outDir /tmp/x`, so parallel work does not share one dist). */
export const CONSOLE_DIR = process.env.CONSOLE_DIST ?? fileURLToPath(new URL('../dist', import.meta.url));
const SCREENSHOT_DIR = fileURLToPath(new URL('../test-results', import.meta.url));


export type ConsoleSession = {
  svc: TestService;
  account: Awaited<ReturnType<typeof createTestAccount>>;
  browser: Browser;
  page: Page;
  /** Signs in through the login page and waits for the console's shell. */
  signIn(): Promise<void>;
  /** Saves a full-page screenshot under apps/console/test-results/ (a CI artifact) and checks the page's accessibility. */
  screenshot(name: string): Promise<void>;
  /** Runs axe-core on the page as it is once loaded; throws on a serious or critical violation. */
  checkA11y(): Promise<void>;
  /** Revisits each console path opened and not yet checked, checks it, then ends the browser and the server. */
  close(): Promise<void>;
};

/** The session of this test file (each file runs in its own process), for the hooks below. */
let current: ConsoleSession | undefined;

/** A file-name-safe form of a test's name. */
function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 120);
}

afterEach(async (t) => {
  const session = current;
  if (!session || session.page.isClosed() || session.page.url() === 'about:blank') return;
  await session.screenshot(slug('fullName' in t ? t.fullName : t.name));
});

export async function openConsole(options: StartOptions = {}): Promise<ConsoleSession> {
  if (!existsSync(join(CONSOLE_DIR, 'index.html'))) {
    throw new Error(`no console build in ${CONSOLE_DIR}: run \`npm run build -w @tally/console\` first`);
  }
  const svc = await startTestService({ consoleDir: CONSOLE_DIR, ...options });
  let browser: Browser | undefined;
  try {
    const account = await createTestAccount(svc);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ baseURL: svc.baseUrl, viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const opened = browser;
    /** Console paths (path + query) opened in this file, and those already checked. */
    const visited = new Set<string>();
    const checked = new Set<string>();
    const pathOf = (url: string) => {
      const u = new URL(url);
      return u.origin === svc.baseUrl ? u.pathname + u.search : null;
    };
    page.on('framenavigated', (frame) => {
      const path = frame === page.mainFrame() ? pathOf(frame.url()) : null;
      if (path) visited.add(path);
    });
    const checkA11y = async () => {
      await waitForSettled(page);
      const where = pathOf(page.url()) ?? page.url();
      const violations = await findViolations(page);
      checked.add(where);
      if (violations.length > 0) throw new Error(`accessibility (axe-core), serious or critical:\n${describeViolations(where, violations)}`);
    };
    const session: ConsoleSession = {
      svc,
      account,
      browser: opened,
      page,
      async signIn() {
        // A fresh sign-in: the session cookie of an earlier one would skip the login page (ADR 0034).
        await page.context().clearCookies();
        await page.goto('/');
        await page.getByLabel('Username').fill(account.username);
        await page.getByLabel('Password').fill(account.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
      },
      async screenshot(name) {
        mkdirSync(SCREENSHOT_DIR, { recursive: true });
        await waitForSettled(page);
        await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
        await checkA11y();
      },
      checkA11y,
      async close() {
        current = undefined;
        const problems: string[] = [];
        try {
          for (const path of visited) {
            if (checked.has(path) || page.isClosed()) continue;
            // A client-side navigation: a reload would drop the in-memory session (the JWT is never stored).
            await page.evaluate((p) => {
              history.pushState(null, '', p);
              dispatchEvent(new PopStateEvent('popstate'));
            }, path);
            await checkA11y().catch((err: Error) => problems.push(err.message));
          }
        } finally {
          await opened.close();
          await svc.close();
        }
        if (problems.length > 0) throw new Error(problems.join('\n'));
      },
    };
    current = session;
    return session;
  } catch (err) {
    await browser?.close();
    await svc.close();
    throw err;
  }
}
