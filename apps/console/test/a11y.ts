/**
 * The accessibility pass of the browser tests: axe-core (WCAG 2.x A and AA rules plus axe's best
 * practices) run inside the page. A violation of impact serious or critical fails the test that
 * showed the page; minor and moderate ones are not reported (the bar is zero serious).
 */
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

const FAILING_IMPACTS = new Set(['serious', 'critical']);

export type A11yViolation = { id: string; impact: string; help: string; targets: string[] };

type AxeResult = { violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] };

/** Waits until the console shows no loading placeholder (data-loading), at most `timeoutMs`. */
export async function waitForSettled(page: Page, timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(() => document.querySelector('[data-loading]') === null, undefined, { timeout: timeoutMs }).catch(() => {});
}

/** The serious and critical axe violations of the page as it is now. */
export async function findViolations(page: Page): Promise<A11yViolation[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(
    () =>
      (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<unknown> } }).axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
        resultTypes: ['violations'],
      }),
  ) as AxeResult;
  return result.violations
    .filter((v) => v.impact !== null && FAILING_IMPACTS.has(v.impact))
    .map((v) => ({ id: v.id, impact: v.impact!, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(' ')) }));
}

/** One line per violation, for an assertion message. */
export function describeViolations(where: string, violations: A11yViolation[]): string {
  return violations.map((v) => `${where}: [${v.impact}] ${v.id}: ${v.help} (${v.targets.join(', ')})`).join('\n');
}
