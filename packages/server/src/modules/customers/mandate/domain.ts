/**
 * Spend mandate rules (api-contract-agent-v2.md §4.6), pure: the windows and whether a charge fits.
 */
import type { Decimal } from '../../../platform/money.js';
import type { MandatePeriod } from '../tables.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export type ActiveMandate = { amount: Decimal; period: MandatePeriod; startedAt: Date };

/** Adds months keeping the day and time of `anchor`, clamped to the month's length (Jan 31 → Feb 28/29 → Mar 31). */
function addMonthsClamped(anchor: Date, months: number): Date {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(anchor.getUTCDate(), lastDay), anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
}

/**
 * The mandate window containing `now`, tiled forward from `startedAt` (as §2.4): 24 h, 7 × 24 h, or
 * a month on the start's day-of-month and time, clamped to the month's length. Half-open `[start, end)`.
 */
export function mandateWindow(startedAt: Date, period: MandatePeriod, now: Date): { start: Date; end: Date } {
  if (period !== 'month') {
    const ms = (period === 'day' ? 1 : 7) * DAY_MS;
    const n = Math.max(0, Math.floor((now.getTime() - startedAt.getTime()) / ms));
    return { start: new Date(startedAt.getTime() + n * ms), end: new Date(startedAt.getTime() + (n + 1) * ms) };
  }
  let n = Math.max(0, (now.getUTCFullYear() - startedAt.getUTCFullYear()) * 12 + (now.getUTCMonth() - startedAt.getUTCMonth()));
  if (n > 0 && addMonthsClamped(startedAt, n) > now) n -= 1;
  return { start: addMonthsClamped(startedAt, n), end: addMonthsClamped(startedAt, n + 1) };
}

/** Instants in messages: ISO-8601 UTC to the second. */
const instant = (d: Date) => d.toISOString().replace(/\.000Z$/, 'Z');
const money = (d: Decimal) => d.toFixed(2);

export type MandateRefusal = { kind: 'whole'; message: string } | { kind: 'window'; message: string; resetsAt: Date };

/**
 * Whether a charge fits the mandate (§4.6): above the whole mandate, or past what is left of the
 * window (`spent + amount > max`), with the contract's messages (amounts at 2 decimals); null = fits.
 */
export function checkMandateCharge(mandate: ActiveMandate, spent: Decimal, amount: Decimal, window: { start: Date; end: Date }): MandateRefusal | null {
  const limit = `${money(mandate.amount)} per ${mandate.period}`;
  if (amount.gt(mandate.amount)) {
    return { kind: 'whole', message: `This charge (${money(amount)}) is above the ${limit} your principal approved; give your principal url to approve a higher limit, or buy less.` };
  }
  if (spent.plus(amount).gt(mandate.amount)) {
    return {
      kind: 'window',
      resetsAt: window.end,
      message: `This charge (${money(amount)}) would pass the ${limit} your principal approved: ${money(spent)} already spent in this window, which resets at ${instant(window.end)}; wait for the window to reset or buy less.`,
    };
  }
  return null;
}
