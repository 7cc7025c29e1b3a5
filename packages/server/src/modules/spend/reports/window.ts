import { z } from 'zod';
import { invalid } from '../../../platform/errors/app-error.js';

/**
 * Report windows (contract §7, §7.9): days are 'YYYY-MM-DD' UTC. Usage windows are [from, to);
 * reconcile windows are inclusive. Pure: `today` is passed in (from ctx.clock).
 */

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Widest window a report accepts (days): a bound for the work one request can ask for. */
export const MAX_WINDOW_DAYS = 366;

/** A real calendar day between 2000-01-01 and 2999-12-31. */
export function isDay(s: string): boolean {
  if (!DAY.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s) && s >= '2000-01-01' && s <= '2999-12-31';
}

export const dayInput = z
  .string()
  .max(10)
  .refine(isDay, { message: 'must be a date YYYY-MM-DD between 2000-01-01 and 2999-12-31' })
  .meta({ format: 'date', example: '2026-09-01' });

export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

const daysBetween = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

export type DayWindow = { from: string; to: string };

/**
 * The usage window [from, to): by default the last 30 days including today (to = tomorrow); a
 * single bound given puts the other 30 days away from it.
 */
export function usageWindow(today: string, from?: string, to?: string): DayWindow {
  const end = to ?? (from ? addDays(from, 30) : addDays(today, 1));
  const start = from ?? addDays(end, -30);
  if (start >= end) throw invalid('from must be before to (the window is [from, to))');
  if (daysBetween(start, end) > MAX_WINDOW_DAYS) throw invalid(`The window may span at most ${MAX_WINDOW_DAYS} days`);
  return { from: start, to: end };
}

/**
 * The reconcile window [from, to], both inclusive: by default the last full calendar month; a single
 * bound given takes the other from that bound's calendar month.
 */
export function reconcileWindow(today: string, from?: string, to?: string): DayWindow {
  let start = from;
  let end = to;
  if (!start && !end) {
    const firstOfThisMonth = `${today.slice(0, 7)}-01`;
    end = addDays(firstOfThisMonth, -1);
    start = `${end.slice(0, 7)}-01`;
  } else if (!start) {
    start = `${end!.slice(0, 7)}-01`;
  } else if (!end) {
    end = addDays(`${addMonth(start.slice(0, 7))}-01`, -1);
  }
  if (start! > end!) throw invalid('from must not be after to (the window is inclusive)');
  if (daysBetween(start!, end!) + 1 > MAX_WINDOW_DAYS) throw invalid(`The window may span at most ${MAX_WINDOW_DAYS} days`);
  return { from: start!, to: end! };
}

function addMonth(ym: string): string {
  const [y, m] = ym.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}
