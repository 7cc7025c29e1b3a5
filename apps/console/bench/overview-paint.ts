/**
 * Time to first meaningful paint of the overview in headless Chromium. "Meaningful": the overview's
 * figures (subscriptions, MRR, past due, the 30-day event total), its chart (the uPlot canvas) and
 * both top tables are in the document, taken at the next animation frame (the frame that paints
 * them). Measured in the page on performance.now(), from the click on the Overview link of a
 * signed-in user who has not opened it yet (its code chunks and data not loaded) to that frame.
 * Each run is a fresh browser context (empty HTTP cache, a new sign-in).
 */
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/chromium.js';

export const OVERVIEW_PAINT_TARGET_MS = 1000;

const MEANINGFUL = [
  '[data-testid=active-subscriptions]',
  '[data-testid=mrr]',
  '[data-testid=past-due]',
  '[data-testid=events-30d]',
  '.chart canvas',
  'table[aria-label="Top features"] tbody tr',
  'table[aria-label="Top customers by usage"] tbody tr',
];

/**
 * Installed before the console's scripts: marks the click on the Overview link and the first frame
 * with everything shown. A string, not a function: tsx's transform would add helpers the page lacks.
 */
const PROBE = `(() => {
  const selectors = ${JSON.stringify(MEANINGFUL)};
  document.addEventListener('click', (e) => {
    if (e.target.closest && e.target.closest('nav a[href="/"]')) {
      window.__overviewClick = performance.now();
      window.__overviewPainted = undefined;
      performance.mark('overview-click');
    }
  }, true);
  const check = () => {
    if (window.__overviewClick === undefined || window.__overviewPainted !== undefined) return;
    if (!selectors.every((s) => document.querySelector(s))) return;
    requestAnimationFrame(() => {
      if (window.__overviewPainted === undefined) window.__overviewPainted = performance.now();
      performance.mark('overview-meaningful');
    });
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
})();`;

export type PaintRun = { ms: number; loginFcpMs: number };

export async function measureOverviewPaint(baseUrl: string, login: { username: string; password: string }, runs: number): Promise<PaintRun[]> {
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const results: PaintRun[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.addInitScript({ content: PROBE });
      await page.goto('/login?next=%2Faccount');
      await page.getByLabel('Username').fill(login.username);
      await page.getByLabel('Password').fill(login.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Account & keys' }).waitFor({ timeout: 30_000 });
      const loginFcpMs = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview', exact: true }).click();
      await page.waitForFunction(() => (window as unknown as { __overviewPainted?: number }).__overviewPainted !== undefined, undefined, { timeout: 60_000 });
      const ms = await page.evaluate(() => {
        const w = window as unknown as { __overviewClick: number; __overviewPainted: number };
        return w.__overviewPainted - w.__overviewClick;
      });
      results.push({ ms, loginFcpMs });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return results;
}
