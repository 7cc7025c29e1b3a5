import type { StripeMode } from '../../platform/db/tables.js';
import { dec, type Decimal } from '../../platform/money.js';
import type { SettingsRow } from './repo.js';

/** An account's settings as the rest of the service reads them (contract §5.1); defaults filled in. */
export type AccountSettings = {
  accountId: string;
  slug: string | null;
  publicCatalogEnabled: boolean;
  agentSignupEnabled: boolean;
  agentSignupDefaultPlanId: string | null;
  agentSignupHourlyCap: number;
  /** null = no cap. */
  agentMaxTopupAmount: Decimal | null;
  stripeMode: StripeMode;
  currency: string;
  stripeCheckoutSuccessUrl: string | null;
  stripeCheckoutCancelUrl: string | null;
  defaultCostConfig: Record<string, unknown> | null;
};

export const DEFAULT_AGENT_SIGNUP_HOURLY_CAP = 10;
export const DEFAULT_CURRENCY = 'USD';

export function toAccountSettings(accountId: string, row: SettingsRow | undefined): AccountSettings {
  return {
    accountId,
    slug: row?.slug ?? null,
    publicCatalogEnabled: row?.public_catalog_enabled ?? false,
    agentSignupEnabled: row?.agent_signup_enabled ?? false,
    agentSignupDefaultPlanId: row?.agent_signup_default_plan_id ?? null,
    agentSignupHourlyCap: row?.agent_signup_hourly_cap ?? DEFAULT_AGENT_SIGNUP_HOURLY_CAP,
    agentMaxTopupAmount: row?.agent_max_topup_amount == null ? null : dec(row.agent_max_topup_amount),
    stripeMode: row?.stripe_mode ?? 'NONE',
    currency: row?.currency ?? DEFAULT_CURRENCY,
    stripeCheckoutSuccessUrl: row?.stripe_checkout_success_url ?? null,
    stripeCheckoutCancelUrl: row?.stripe_checkout_cancel_url ?? null,
    defaultCostConfig: row?.default_cost_config ?? null,
  };
}
