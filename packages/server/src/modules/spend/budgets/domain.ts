import { invalid, invalidField } from '../../../platform/errors/app-error.js';
import type { SpendMonthlyMode } from '../tables.js';
import { Decimal, dec } from '../../../platform/money.js';

/**
 * Budgets, bumps and the alert conditions (contract §7.5) as pure functions. Money is cents as
 * exact Decimals (fractional cents allowed); messages show dollars to 2 dp through `dollarText`.
 */
export const DEFAULT_ALERT_THRESHOLD = 80;
export const MAX_CEILING_CENTS = '100000000000000';
export const CEILING_SCALE = 10;
export const MAX_BUMP_REASON = 500;

/** Cents → the dollars a message shows: 2 dp, HALF_UP, plain notation ("1234.50"). */
export function dollarText(cents: Decimal): string {
  return cents.div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
}

export type BudgetRequest = {
  dailyCents?: Decimal | null | undefined;
  monthlyCents?: Decimal | null | undefined;
  alertThreshold?: number | null | undefined;
  monthlyMode?: SpendMonthlyMode | null | undefined;
};

export type BudgetValues = { dailyCents: Decimal | null; monthlyCents: Decimal | null; alertThreshold: number; monthlyMode: SpendMonthlyMode };

/** A budget PUT (a full replace): at least one ceiling, none negative, threshold 1–100 (default 80), mode default ALERT. */
export function budgetValues(request: BudgetRequest): BudgetValues {
  const dailyCents = request.dailyCents ?? null;
  const monthlyCents = request.monthlyCents ?? null;
  if (dailyCents === null && monthlyCents === null) throw invalid('Set a daily or a monthly ceiling (or both)');
  if (dailyCents?.lt(0) || monthlyCents?.lt(0)) throw invalid('A ceiling cannot be negative');
  const alertThreshold = request.alertThreshold ?? DEFAULT_ALERT_THRESHOLD;
  if (!Number.isInteger(alertThreshold) || alertThreshold < 1 || alertThreshold > 100) throw invalidField('alertThreshold', 'must be a whole number from 1 to 100');
  return { dailyCents, monthlyCents, alertThreshold, monthlyMode: request.monthlyMode ?? 'ALERT' };
}

export type Bump = { monthlyCents: Decimal; expiresAt: Date; reason: string | null };

/** A bump lifts a standing monthly ceiling above itself until a future expiry. */
export function checkBump(standingMonthlyCents: Decimal | null, bump: Bump, now: Date): void {
  if (standingMonthlyCents === null || standingMonthlyCents.lte(0)) throw invalid('A bump lifts the monthly ceiling; set one first');
  if (!bump.monthlyCents.gt(standingMonthlyCents)) {
    throw invalid(`A bump must be above the standing ceiling of $${dollarText(standingMonthlyCents)} — lower the budget instead`);
  }
  if (bump.expiresAt.getTime() <= now.getTime()) throw invalid("The bump's expiry is already in the past");
}

/** The bump while it lasts, else the standing monthly ceiling. */
export function effectiveMonthlyCents(budget: { monthlyCents: Decimal | null; bumpMonthlyCents: Decimal | null; bumpExpiresAt: Date | null }, now: Date): Decimal | null {
  if (budget.bumpMonthlyCents !== null && budget.bumpExpiresAt !== null && budget.bumpExpiresAt.getTime() > now.getTime()) return budget.bumpMonthlyCents;
  return budget.monthlyCents;
}

/** Start of the UTC day and month holding `now`, and when each resets. */
export function budgetWindows(now: Date) {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const dailyResetsAt = new Date(dayStart.getTime() + 86_400_000);
  const monthlyResetsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { dayStart, monthStart, dailyResetsAt, monthlyResetsAt };
}

export type AlertKind = 'THRESHOLD' | 'BREACH' | 'SPIKE' | 'PROJECTED';
export type AlertPeriod = 'DAY' | 'MONTH';
export type AlertCandidate = { kind: AlertKind; period: AlertPeriod; spentCents: Decimal; limitCents: Decimal | null; message: string };

const periodWords = (period: AlertPeriod) => (period === 'DAY' ? { budget: 'daily', when: 'today' } : { budget: 'monthly', when: 'this month' });

/**
 * THRESHOLD or BREACH for one ceiling, or null. BREACH: spent ≥ limit (a zero ceiling breaches only
 * once something is spent); THRESHOLD: floor(spent × 100 / limit) ≥ threshold and < 100.
 */
export function ceilingAlert(unitName: string, period: AlertPeriod, spent: Decimal, limit: Decimal, threshold: number, blockSentence: string | null): AlertCandidate | null {
  const words = periodWords(period);
  if (limit.isZero()) {
    if (spent.lte(0)) return null;
  } else if (spent.lt(limit)) {
    const percent = spent.mul(100).div(limit).floor();
    if (percent.lt(threshold)) return null;
    return {
      kind: 'THRESHOLD',
      period,
      spentCents: spent,
      limitCents: limit,
      message: `${unitName} is at ${percent.toFixed(0)}% of its ${words.budget} budget: $${dollarText(spent)} of $${dollarText(limit)} ${words.when}.`,
    };
  }
  const over = `${unitName} is over its ${words.budget} budget: $${dollarText(spent)} of $${dollarText(limit)} ${words.when}.`;
  return { kind: 'BREACH', period, spentCents: spent, limitCents: limit, message: blockSentence ? `${over} ${blockSentence}` : over };
}

/** SPIKE (period DAY): today ≥ 500 cents and today > 2 × (the last 7 full days ÷ 7). */
export function spikeAlert(unitName: string, todayCents: Decimal, lastSevenDaysCents: Decimal): AlertCandidate | null {
  const average = lastSevenDaysCents.div(7);
  if (todayCents.lt(500) || !todayCents.gt(average.mul(2))) return null;
  return {
    kind: 'SPIKE',
    period: 'DAY',
    spentCents: todayCents,
    limitCents: null,
    message: `${unitName} has spent $${dollarText(todayCents)} today, against a trailing-week average of $${dollarText(average)} a day.`,
  };
}

/**
 * PROJECTED (period MONTH): at least 1/5 of the month elapsed, still under the ceiling, and
 * spent × monthLength ÷ elapsed above it. Elapsed time is exact (milliseconds since the month began).
 */
export function projectedAlert(unitName: string, spent: Decimal, limit: Decimal, now: Date): AlertCandidate | null {
  const { monthStart, monthlyResetsAt } = budgetWindows(now);
  const length = dec(monthlyResetsAt.getTime() - monthStart.getTime());
  const elapsed = dec(now.getTime() - monthStart.getTime());
  if (elapsed.mul(5).lt(length) || !spent.lt(limit) || limit.lte(0)) return null;
  const pace = spent.mul(length).div(elapsed);
  if (!pace.gt(limit)) return null;
  return {
    kind: 'PROJECTED',
    period: 'MONTH',
    spentCents: spent,
    limitCents: limit,
    message: `${unitName} is on pace for $${dollarText(pace)} this month against a $${dollarText(limit)} budget ($${dollarText(spent)} so far).`,
  };
}
