import { gate, retryAfterSeconds, type Gate } from '../../../platform/errors/gate.js';
import { dec, type Decimal } from '../../../platform/money.js';

export const BUDGET_PERIODS = ['DAY', 'WEEK', 'MONTH', 'TOTAL'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];
export type BudgetAxis = 'CREDITS' | 'AMOUNT';

/** A window of a budget, half-open `[start, end)`; `end` null for TOTAL (never resets). */
export type BudgetWindow = { start: Date; end: Date | null };

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The instant `months` months after `anchor`, on the anchor's day-of-month and time, clamped to the
 * target month's length: computed from the anchor every time, never chained, so a budget set on the
 * 31st resets on Feb 28/29 and then on Mar 31 (api-contract-agent-v2.md §2.4).
 */
export function addMonthsClamped(anchor: Date, months: number): Date {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(anchor.getUTCDate(), lastDay);
  return new Date(Date.UTC(year, month, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()));
}

/**
 * The window containing `now` of a budget whose windows tile forward from `anchor` (when its period
 * was set): DAY 24 h, WEEK 7 × 24 h, MONTH the anchor's day and time each month (clamped), TOTAL one
 * window that never ends. An instant before the anchor (a clock step back) is in the first window.
 */
export function computeWindow(period: BudgetPeriod, anchor: Date, now: Date): BudgetWindow {
  if (period === 'TOTAL') return { start: anchor, end: null };
  const elapsed = now.getTime() - anchor.getTime();
  if (period === 'DAY' || period === 'WEEK') {
    const length = period === 'DAY' ? DAY_MS : 7 * DAY_MS;
    const n = Math.max(0, Math.floor(elapsed / length));
    return { start: new Date(anchor.getTime() + n * length), end: new Date(anchor.getTime() + (n + 1) * length) };
  }
  let k = Math.max(0, (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (now.getUTCMonth() - anchor.getUTCMonth()));
  while (k > 0 && addMonthsClamped(anchor, k) > now) k--;
  while (addMonthsClamped(anchor, k + 1) <= now) k++;
  return { start: addMonthsClamped(anchor, k), end: addMonthsClamped(anchor, k + 1) };
}

/** A budget as stored, with exact amounts. */
export type BudgetState = {
  period: BudgetPeriod;
  creditLimit: Decimal | null;
  amountLimit: Decimal | null;
  alertThreshold: number | null;
  anchorAt: Date;
  countedWindowStart: Date;
  creditsSpent: Decimal;
  amountSpent: Decimal;
  alertingSince: Date | null;
  /** Start of the window whose refusal recorded `budget.exceeded`; null = armed. */
  exceededWindowStart: Date | null;
};

/** What the key spent in the window containing `now`: the stored counters when they count that window, else nothing yet. */
export function spentInWindow(b: BudgetState, now: Date): { window: BudgetWindow; credits: Decimal; amount: Decimal } {
  const window = computeWindow(b.period, b.anchorAt, now);
  const current = b.countedWindowStart.getTime() === window.start.getTime();
  return { window, credits: current ? b.creditsSpent : dec(0), amount: current ? b.amountSpent : dec(0) };
}

/**
 * `floor(100 × spent ÷ limit)` of the axis nearest its limit, over axes with a limit > 0; null when
 * none (§2.3).
 */
export function computePercentUsed(credits: Decimal, creditLimit: Decimal | null, amount: Decimal, amountLimit: Decimal | null): number | null {
  const percents = [
    [credits, creditLimit],
    [amount, amountLimit],
  ].flatMap(([spent, limit]) => (limit && limit.gt(0) ? [spent!.times(100).div(limit).floor().toNumber()] : []));
  return percents.length === 0 ? null : Math.max(...percents);
}

/** A refusal of a spend by the key budget: code, message and gate (§1.2, §1.3, §2.6). */
export type BudgetRefusal = { code: 'budget_exceeded' | 'spend_cap_exceeded'; message: string; gate: Gate };

/** Key-budget numbers in messages: plain decimals without trailing zeros (`10`, `2.5`), §1.3. */
const plain = (d: Decimal) => d.toFixed();

/**
 * Whether `requested` more on `axis` fits the key's budget now (§2.6): null when it fits; else the
 * refusal. Money: one charge above the whole limit is `spend_cap_exceeded` / `raise_spend_cap`;
 * credits: a draw above the whole limit is `budget_exceeded` / `raise_spend_cap`. A window that
 * cannot fit it is `budget_exceeded` / `wait` with `retry_after`, or `raise_spend_cap` for TOTAL.
 */
export function checkSpend(b: BudgetState, axis: BudgetAxis, requested: Decimal, now: Date): BudgetRefusal | null {
  const limit = axis === 'CREDITS' ? b.creditLimit : b.amountLimit;
  if (limit === null) return null;
  const { window, credits, amount } = spentInWindow(b, now);
  const spent = axis === 'CREDITS' ? credits : amount;
  const noun = axis === 'CREDITS' ? 'credit' : 'spend';
  if (requested.gt(limit)) {
    if (axis === 'AMOUNT') {
      return {
        code: 'spend_cap_exceeded',
        message: `This charge (${plain(requested)}) is above this API key's whole spend budget of ${plain(limit)}; ask the operator to raise the budget or buy less`,
        gate: gate('budget', 'raise_spend_cap'),
      };
    }
    return { code: 'budget_exceeded', message: `${exceededMessage(noun, limit, spent, requested)}`, gate: gate('budget', 'raise_spend_cap') };
  }
  if (spent.plus(requested).lte(limit)) return null;
  if (window.end === null) return { code: 'budget_exceeded', message: exceededMessage(noun, limit, spent, requested), gate: gate('budget', 'raise_spend_cap') };
  return {
    code: 'budget_exceeded',
    message: `${exceededMessage(noun, limit, spent, requested)}, window resets at ${window.end.toISOString().replace('.000Z', 'Z')}`,
    gate: gate('budget', 'wait', { retryAfter: retryAfterSeconds(window.end, now) }),
  };
}

function exceededMessage(noun: 'credit' | 'spend', limit: Decimal, spent: Decimal, requested: Decimal): string {
  return `This API key's ${noun} budget of ${plain(limit)} would be exceeded: ${plain(spent)} already used, ${plain(requested)} requested`;
}

/**
 * The budget after counting `amount` on `axis` now (the window rolled over first), with the alert
 * stamp set the first time the threshold is reached in this window.
 */
export function applySpend(b: BudgetState, axis: BudgetAxis, amount: Decimal, now: Date): BudgetState {
  const { window, credits, amount: money } = spentInWindow(b, now);
  const rolled = b.countedWindowStart.getTime() !== window.start.getTime();
  const next: BudgetState = {
    ...b,
    countedWindowStart: window.start,
    creditsSpent: axis === 'CREDITS' ? credits.plus(amount) : credits,
    amountSpent: axis === 'AMOUNT' ? money.plus(amount) : money,
    alertingSince: rolled ? null : b.alertingSince,
  };
  if (next.alertingSince === null && b.alertThreshold !== null) {
    const percent = computePercentUsed(next.creditsSpent, b.creditLimit, next.amountSpent, b.amountLimit);
    if (percent !== null && percent >= b.alertThreshold) next.alertingSince = now;
  }
  return next;
}

/**
 * A refusal by this budget at `now` (api-contract-events.md §E5.11 `budget.exceeded`, once per
 * window): the budget marked with the current window's start when this is the window's first
 * recorded refusal, else null (already recorded in this window).
 */
export function markExceeded(b: BudgetState, now: Date): BudgetState | null {
  const { start } = computeWindow(b.period, b.anchorAt, now);
  if (b.exceededWindowStart?.getTime() === start.getTime()) return null;
  return { ...b, exceededWindowStart: start };
}

/** The Budget object of §2.3 (all fields present; null = unlimited or not applicable). */
export type BudgetView = {
  keyId: string;
  period: BudgetPeriod | null;
  creditLimit: Decimal | null;
  creditsSpent: Decimal;
  creditsRemaining: Decimal | null;
  amountLimit: Decimal | null;
  amountSpent: Decimal;
  amountRemaining: Decimal | null;
  windowStart: Date | null;
  resetsAt: Date | null;
  percentUsed: number | null;
  alertThreshold: number | null;
  alerting: boolean;
  alertingSince: Date | null;
};

export function toBudgetView(keyId: string, b: BudgetState | null, now: Date): BudgetView {
  if (!b) {
    return {
      keyId, period: null, creditLimit: null, creditsSpent: dec(0), creditsRemaining: null, amountLimit: null, amountSpent: dec(0), amountRemaining: null,
      windowStart: null, resetsAt: null, percentUsed: null, alertThreshold: null, alerting: false, alertingSince: null,
    };
  }
  const { window, credits, amount } = spentInWindow(b, now);
  const remaining = (limit: Decimal | null, spent: Decimal) => (limit === null ? null : Decimal0max(limit.minus(spent)));
  const since = b.alertingSince && b.alertingSince >= window.start ? b.alertingSince : null;
  return {
    keyId,
    period: b.period,
    creditLimit: b.creditLimit,
    creditsSpent: credits,
    creditsRemaining: remaining(b.creditLimit, credits),
    amountLimit: b.amountLimit,
    amountSpent: amount,
    amountRemaining: remaining(b.amountLimit, amount),
    windowStart: window.start,
    resetsAt: window.end,
    percentUsed: computePercentUsed(credits, b.creditLimit, amount, b.amountLimit),
    alertThreshold: b.alertThreshold,
    alerting: since !== null,
    alertingSince: since,
  };
}

const Decimal0max = (d: Decimal) => (d.isNegative() ? dec(0) : d);

/**
 * A PUT (§2.2): both limits replaced; a new period restarts the window at now (spent from zero), the
 * same period keeps it; the alert stamp and the budget.exceeded mark are cleared.
 */
export function applyBudgetPut(
  existing: BudgetState | null,
  input: { period: BudgetPeriod; creditLimit: Decimal | null; amountLimit: Decimal | null; alertThreshold: number | undefined },
  now: Date,
): BudgetState {
  const threshold = input.alertThreshold === undefined ? (existing ? existing.alertThreshold : 80) : input.alertThreshold === 0 ? null : input.alertThreshold;
  // New limits re-arm budget.exceeded, as they clear the alert stamp (ours).
  const base = { creditLimit: input.creditLimit, amountLimit: input.amountLimit, alertThreshold: threshold, alertingSince: null, exceededWindowStart: null };
  if (existing && existing.period === input.period) return { ...existing, ...base };
  return { period: input.period, ...base, anchorAt: now, countedWindowStart: now, creditsSpent: dec(0), amountSpent: dec(0) };
}
