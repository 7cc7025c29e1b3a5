/**
 * Spend mandate requests (api-contract-agent-v2.md §4.6), pure: the request's checks with the
 * contract's messages, and whether a page may be opened at all.
 */
import type { Decimal } from '../../../platform/money.js';
import type { MandatePeriod } from '../../customers/index.js';

/** max_amount is stored as numeric(20,4). */
export const MANDATE_AMOUNT_SCALE = 4;
export const MAX_MANDATE_AMOUNT = '1000000000000';

export type MandateRequest = { max_amount?: Decimal | undefined; currency?: string | undefined; period?: string | undefined };
export type CheckedMandate = { maxAmount: Decimal; currency: string; period: MandatePeriod };

const PERIODS: readonly MandatePeriod[] = ['day', 'week', 'month'];

/** Mandate amounts in messages: 2 decimals (§1.3). */
export const twoDecimals = (d: Decimal) => d.toFixed(2);

/**
 * The request checked against the account (§4.6 table): `max_amount` required and positive,
 * `currency` the account's (case-insensitive), `period` day/week/month (default month), and not
 * above `agentMaxMandateAmount` when one is set (rejected, never clamped). The first problem, or the mandate.
 */
export function checkMandateRequest(
  req: MandateRequest,
  account: { currency: string; maxMandateAmount: Decimal | null },
): { mandate: CheckedMandate } | { problem: string } {
  const amount = req.max_amount;
  if (amount === undefined) return { problem: 'spend_mandate.max_amount is required' };
  if (!amount.isFinite() || amount.lte(0)) return { problem: 'spend_mandate.max_amount must be positive' };
  if (amount.gt(MAX_MANDATE_AMOUNT)) return { problem: `spend_mandate.max_amount must be at most ${MAX_MANDATE_AMOUNT}` };
  if (amount.decimalPlaces() > MANDATE_AMOUNT_SCALE) return { problem: `spend_mandate.max_amount allows at most ${MANDATE_AMOUNT_SCALE} decimals` };
  if (req.currency !== undefined && req.currency.trim().toUpperCase() !== account.currency) {
    return { problem: `spend_mandate.currency must be ${account.currency}, the account currency` };
  }
  const period = (req.period ?? 'month').trim().toLowerCase();
  if (!(PERIODS as readonly string[]).includes(period)) return { problem: 'spend_mandate.period must be day, week or month' };
  const ceiling = account.maxMandateAmount;
  if (ceiling !== null && amount.gt(ceiling)) {
    const c = twoDecimals(ceiling);
    return { problem: `spend_mandate.max_amount ${twoDecimals(amount)} is above this account's limit of ${c} ${account.currency}; ask for ${c} or less.` };
  }
  return { mandate: { maxAmount: amount, currency: account.currency, period: period as MandatePeriod } };
}

/** §4.6: a page may be opened only with the mandate on, a ceiling set and a processor connected. */
export function mandateAvailable(settings: { agentSpendMandateEnabled: boolean; agentMaxMandateAmount: Decimal | null; stripeMode: string }): boolean {
  return settings.agentSpendMandateEnabled && settings.agentMaxMandateAmount !== null && settings.stripeMode !== 'NONE';
}
