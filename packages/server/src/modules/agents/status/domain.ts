/**
 * Agent status rules (api-contract-agent-v2.md §4.1, §4.4, §4.6), pure: the provisional expiry,
 * a plan's period wording, the mandate's windows and the status body's `spend_mandate` block.
 */
import { dec, type Decimal } from '../../../platform/money.js';
import { mandateWindow, type MandatePeriod } from '../../customers/index.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** §4.2: a signup stays provisional this many days (`agentProvisionalDays` at signup time). */
export const provisionalExpiry = (signedUpAt: Date, provisionalDays: number) => new Date(signedUpAt.getTime() + provisionalDays * DAY_MS);

/** §4.4 `limits.features.*.period`: `month` for 1-month plans, else `<n> months`. */
export const planPeriodWording = (intervalMonths: number | null) => (intervalMonths === null || intervalMonths === 1 ? 'month' : `${intervalMonths} months`);

/** The mandate as the status body shows it (§4.6 table), every field present. */
export type MandateView = {
  status: 'none' | 'pending' | 'active' | 'expired';
  setup_url: string | null;
  max_amount: Decimal | null;
  spent: Decimal | null;
  remaining: Decimal | null;
  period: MandatePeriod | null;
  resets_at: Date | null;
  currency: string | null;
};

export type MandateFacts = {
  active: { amount: Decimal; period: MandatePeriod; startedAt: Date; spent: Decimal; currency: string } | null;
  /** The newest mandate page: pending (waits) or expired (lapsed unused); null when none or completed. */
  latestPage: { status: 'PENDING' | 'EXPIRED'; url: string | null; amount: Decimal; currency: string } | null;
};

/** §4.6 `spend_mandate` in the status body. */
export function toMandateView(facts: MandateFacts, now: Date): MandateView {
  const none: MandateView = { status: 'none', setup_url: null, max_amount: null, spent: null, remaining: null, period: null, resets_at: null, currency: null };
  const { active, latestPage } = facts;
  if (active) {
    const window = mandateWindow(active.startedAt, active.period, now);
    const remaining = active.amount.minus(active.spent);
    return {
      status: 'active',
      setup_url: latestPage?.status === 'PENDING' ? latestPage.url : null,
      max_amount: active.amount,
      spent: active.spent,
      remaining: remaining.isNegative() ? dec(0) : remaining,
      period: active.period,
      resets_at: window.end,
      currency: active.currency,
    };
  }
  if (!latestPage) return none;
  return latestPage.status === 'PENDING'
    ? { ...none, status: 'pending', setup_url: latestPage.url, max_amount: latestPage.amount, currency: latestPage.currency }
    : { ...none, status: 'expired', max_amount: latestPage.amount, currency: latestPage.currency };
}
