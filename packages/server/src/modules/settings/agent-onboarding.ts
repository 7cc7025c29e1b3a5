import { dec, type Decimal } from '../../platform/money.js';
import type { AccountSettings, CheckedPatch, SettingsPatch, SettingsProblem } from './types.js';
import type { SettingsRow } from './repo.js';

/**
 * The agent onboarding v2 settings (api-contract-agent-v2.md §3), pure: each field's check with the
 * contract's message, the mandate cross-field rule on the merged state, the audited fields and
 * the row → settings mapping. No I/O.
 */

export const DEFAULT_AGENT_PROVISIONAL_DAYS = 14;
export const MIN_AGENT_PROVISIONAL_DAYS = 1;
export const MAX_AGENT_PROVISIONAL_DAYS = 365;
/** agentSignupPerIpCap: the int4 column's practical ceiling, like the hourly cap's. */
export const MAX_AGENT_SIGNUP_PER_IP_CAP = 1_000_000;
/** agentMaxMandateAmount: numeric(20,4), the same ceiling as the spend cap. */
export const MAX_AGENT_MANDATE_AMOUNT = '1000000000000';
export const AGENT_MANDATE_SCALE = 4;

export const ONBOARDING_MESSAGES = {
  provisionalDays: 'agentProvisionalDays must be between 1 and 365',
  perIpCapNegative: 'agentSignupPerIpCap must not be negative',
  mandateNegative: 'agentMaxMandateAmount must not be negative',
  mandateNeedsMax: 'Set agentMaxMandateAmount before enabling the agent spend mandate',
  mandateMaxClearedWhileOn: 'Turn off agentSpendMandateEnabled before clearing agentMaxMandateAmount',
} as const;

/** Each onboarding field checked on its own: 0 clears the per-address cap and the mandate ceiling (stored null). */
export function checkOnboardingFields(patch: SettingsPatch): { patch: CheckedPatch } | { problem: SettingsProblem } {
  const out: CheckedPatch = {};
  const fail = (field: string, message: string) => ({ problem: { field, message } });
  const days = patch.agentProvisionalDays;
  if (days !== undefined) {
    if (!Number.isInteger(days) || days < MIN_AGENT_PROVISIONAL_DAYS || days > MAX_AGENT_PROVISIONAL_DAYS) {
      return fail('agentProvisionalDays', ONBOARDING_MESSAGES.provisionalDays);
    }
    out.agentProvisionalDays = days;
  }
  const cap = patch.agentSignupPerIpCap;
  if (cap !== undefined) {
    if (cap !== null && cap < 0) return fail('agentSignupPerIpCap', ONBOARDING_MESSAGES.perIpCapNegative);
    if (cap !== null && cap > MAX_AGENT_SIGNUP_PER_IP_CAP) {
      return fail('agentSignupPerIpCap', `agentSignupPerIpCap must be at most ${MAX_AGENT_SIGNUP_PER_IP_CAP}`);
    }
    out.agentSignupPerIpCap = cap === null || cap === 0 ? null : cap;
  }
  if (patch.agentSpendMandateEnabled !== undefined) out.agentSpendMandateEnabled = patch.agentSpendMandateEnabled;
  const max = patch.agentMaxMandateAmount;
  if (max !== undefined) {
    const checked = max === null ? { amount: null } : checkMandateCeiling(max);
    if ('problem' in checked) return fail('agentMaxMandateAmount', checked.problem);
    out.agentMaxMandateAmount = checked.amount;
  }
  return { patch: out };
}

function checkMandateCeiling(amount: Decimal): { amount: Decimal | null } | { problem: string } {
  if (amount.lt(0)) return { problem: ONBOARDING_MESSAGES.mandateNegative };
  if (amount.gt(MAX_AGENT_MANDATE_AMOUNT)) return { problem: `agentMaxMandateAmount must be at most ${MAX_AGENT_MANDATE_AMOUNT}` };
  if (amount.decimalPlaces() > AGENT_MANDATE_SCALE) return { problem: `agentMaxMandateAmount allows at most ${AGENT_MANDATE_SCALE} decimals` };
  return { amount: amount.isZero() ? null : amount };
}

/**
 * The mandate needs its ceiling (§3), judged on the merged state and only when the patch touches
 * one of the two fields: enabling without a ceiling (sent now or stored), or clearing the ceiling
 * while the mandate stays on. Turning the mandate off is always allowed.
 */
export function checkMandateSettings(current: AccountSettings, patch: CheckedPatch, next: AccountSettings): SettingsProblem | null {
  if (patch.agentSpendMandateEnabled === undefined && patch.agentMaxMandateAmount === undefined) return null;
  if (!next.agentSpendMandateEnabled || next.agentMaxMandateAmount !== null) return null;
  return patch.agentMaxMandateAmount === null && current.agentSpendMandateEnabled && patch.agentSpendMandateEnabled === undefined
    ? { field: 'agentMaxMandateAmount', message: ONBOARDING_MESSAGES.mandateMaxClearedWhileOn }
    : { field: 'agentSpendMandateEnabled', message: ONBOARDING_MESSAGES.mandateNeedsMax };
}

/** Every change of these four is audit-logged (§3, ours): `<FIELD>_CHANGED`. */
export const ONBOARDING_AUDITED: readonly [keyof AccountSettings, string][] = [
  ['agentProvisionalDays', 'AGENT_PROVISIONAL_DAYS_CHANGED'],
  ['agentSignupPerIpCap', 'AGENT_SIGNUP_PER_IP_CAP_CHANGED'],
  ['agentSpendMandateEnabled', 'AGENT_SPEND_MANDATE_ENABLED_CHANGED'],
  ['agentMaxMandateAmount', 'AGENT_MAX_MANDATE_AMOUNT_CHANGED'],
];

export function toOnboardingSettings(row: SettingsRow | undefined) {
  return {
    agentProvisionalDays: row?.agent_provisional_days ?? DEFAULT_AGENT_PROVISIONAL_DAYS,
    agentSignupPerIpCap: row?.agent_signup_per_ip_cap ?? null,
    agentSpendMandateEnabled: row?.agent_spend_mandate_enabled ?? false,
    agentMaxMandateAmount: row?.agent_max_mandate_amount == null ? null : dec(row.agent_max_mandate_amount),
  };
}
