import { dec, roundToMinorUnits, type Decimal } from '../../../platform/money.js';

/**
 * Pure rules of auto top-up (api-contract-money.md §2): the amount of one top-up, whether a draw
 * records an attempt, the derived state of a rule, and what a failure does to the rule.
 */

/** The processor's smallest charge, in the currency's major unit (contract §4.7, money §2.2 check 4). */
export const PAYMENT_MINIMUM = dec('0.50');

/** Counted failures after which a rule disables itself (money §2.5). */
export const MAX_CONSECUTIVE_FAILURES = 3;

/** How long a counted failure blocks new attempts (money §2.5). */
export const RETRY_BLOCK_MS = 24 * 60 * 60 * 1000;

/** Failure codes that do not count towards disabling and set no retry block (money §2.5). */
export const UNCOUNTED_FAILURES = new Set(['spend_cap_exceeded', 'no_processor', 'processor_unavailable']);

/** One top-up's charge: credits × price, HALF_UP to the currency's minor units (money §2.2 check 4, the purchase rule). */
export function autoTopupAmount(credits: Decimal, pricePerCredit: Decimal, currency: string): Decimal {
  return roundToMinorUnits(credits.times(pricePerCredit), currency);
}

/** The first instant of the calendar month (UTC) of `now`: the monthly cap's window start. */
export function monthStartOf(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export type RuleFacts = {
  enabled: boolean;
  retryAfter: Date | null;
  topupCredits: Decimal;
  maxMonthlyAmount: Decimal | null;
  /** A PENDING attempt of the pool exists. */
  pending: boolean;
  monthToDate: Decimal;
  price: { pricePerCredit: Decimal; currency: string } | null;
  /** agentMaxTopupAmount; null: no cap. */
  spendCap: Decimal | null;
};

export type RuleState = 'DISABLED' | 'PENDING' | 'RETRY_BLOCKED' | 'NO_PRICE' | 'SPEND_CAP_EXCEEDED' | 'MONTHLY_CAP_REACHED' | 'ARMED';

/**
 * The rule's `state`, the first that applies (money §2.2). ARMED is exactly "the next draw below
 * the threshold records an attempt" (`attemptPlan`), except for the 0.50 minimum, which a rule only
 * misses when it was stored disabled or the price fell since.
 */
export function ruleState(f: RuleFacts, now: Date): RuleState {
  if (!f.enabled) return 'DISABLED';
  if (f.pending) return 'PENDING';
  if (f.retryAfter && f.retryAfter > now) return 'RETRY_BLOCKED';
  if (!f.price) return 'NO_PRICE';
  const amount = autoTopupAmount(f.topupCredits, f.price.pricePerCredit, f.price.currency);
  if (f.spendCap !== null && amount.gt(f.spendCap)) return 'SPEND_CAP_EXCEEDED';
  if (f.maxMonthlyAmount !== null && f.monthToDate.plus(amount).gt(f.maxMonthlyAmount)) return 'MONTHLY_CAP_REACHED';
  return 'ARMED';
}

export type AttemptPlan = { credits: Decimal; pricePerCredit: Decimal; amount: Decimal; currency: string };

/**
 * Whether a draw that left the pool below its threshold records an attempt (money §2.3 rules 3–5),
 * and its fixed price and amount. Null: none is recorded (the rule's `state` says why).
 */
export function attemptPlan(f: RuleFacts, now: Date): AttemptPlan | null {
  if (ruleState(f, now) !== 'ARMED') return null;
  const { pricePerCredit, currency } = f.price!;
  const amount = autoTopupAmount(f.topupCredits, pricePerCredit, currency);
  if (amount.lt(PAYMENT_MINIMUM)) return null;
  return { credits: f.topupCredits, pricePerCredit, amount, currency };
}

export type RuleCounters = { enabled: boolean; consecutiveFailures: number; retryAfter: Date | null; disabledReason: 'MANUAL' | 'CONSECUTIVE_FAILURES' | null };

/**
 * A rule after a settled attempt (money §2.4 step 5, §2.5): success resets the count and the block;
 * a counted failure adds one, blocks for 24 h from `completedAt` and disables at the third.
 */
export function countersAfter(rule: RuleCounters, outcome: { succeeded: true } | { succeeded: false; counted: boolean }, completedAt: Date): RuleCounters {
  if (outcome.succeeded) return { ...rule, consecutiveFailures: 0, retryAfter: null };
  if (!outcome.counted) return rule;
  const consecutiveFailures = rule.consecutiveFailures + 1;
  const retryAfter = new Date(completedAt.getTime() + RETRY_BLOCK_MS);
  if (rule.enabled && consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) return { enabled: false, consecutiveFailures, retryAfter, disabledReason: 'CONSECUTIVE_FAILURES' };
  return { ...rule, consecutiveFailures, retryAfter };
}
