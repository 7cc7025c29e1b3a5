import { invalid } from '../../../platform/errors/app-error.js';

/** The window a usage read covers, half-open `[from, to)` on the event's `occurredAt`. */
export type UsageWindow = { from: Date; to: Date };

const DAY_MS = 86_400_000;
/** Events list default: the 90 days before `to` (contract agent-v2 §6.1). */
export const DEFAULT_WINDOW_DAYS = 90;
/** Longest window either read accepts (contract agent-v2 §6.1): a year, leap day included. */
export const MAX_WINDOW_DAYS = 366;

/**
 * The window of a usage read from its query: `to` defaults to `now`, `from` to `to` − 90 days.
 * `from` ≥ `to` and spans above 366 days are 400 with the contract's messages. Pure: `now` is given.
 */
export function resolveUsageWindow(query: { from?: string | undefined; to?: string | undefined }, now: Date): UsageWindow {
  const to = query.to === undefined ? now : new Date(query.to);
  const from = query.from === undefined ? new Date(to.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS) : new Date(query.from);
  if (from.getTime() >= to.getTime()) throw invalid('from must be before to', { fields: [{ field: 'from', message: 'must be before to' }] });
  if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
    throw invalid(`The window may span at most ${MAX_WINDOW_DAYS} days`, { fields: [{ field: 'to', message: `at most ${MAX_WINDOW_DAYS} days after from` }] });
  }
  return { from, to };
}
