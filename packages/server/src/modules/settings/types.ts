import type { Decimal } from '../../platform/money.js';
import type { CostConfig, CostConfigInput } from './cost-config.js';
import type { StripeMode } from './tables.js';

/** The settings' shapes, shared by the rules (`domain.ts`) and the onboarding fields (`agent-onboarding.ts`) without a cycle between them. */

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
  /** Agent onboarding v2 (api-contract-agent-v2.md §3, `agent-onboarding.ts`). */
  agentProvisionalDays: number;
  /** null = no per-address signup cap. */
  agentSignupPerIpCap: number | null;
  agentSpendMandateEnabled: boolean;
  /** null = no mandate may be asked for. */
  agentMaxMandateAmount: Decimal | null;
  stripeMode: StripeMode;
  currency: string;
  stripeCheckoutSuccessUrl: string | null;
  stripeCheckoutCancelUrl: string | null;
  defaultCostConfig: CostConfig | null;
  /** Percents of a feature limit that record usage.threshold_reached (api-contract-events.md §E7.2); ascending. */
  usageThresholdPercents: number[];
  /** The issuer on invoice documents (api-contract-money.md §1.1). */
  invoiceNumberPrefix: string;
  legalName: string | null;
  addressLines: string[];
  taxId: string | null;
  contactEmail: string | null;
};

/** A refused setting: the field it names and the 400 message (the contract's words where it has them). */
export type SettingsProblem = { field: string; message: string };

/**
 * A PATCH as sent (after schema parsing). Absent = unchanged; `null` clears a nullable field
 * (README "Explicit null").
 */
export type SettingsPatch = {
  slug?: string | null | undefined;
  publicCatalogEnabled?: boolean | undefined;
  agentSignupEnabled?: boolean | undefined;
  agentSignupDefaultPlanId?: string | null | undefined;
  agentSignupHourlyCap?: number | undefined;
  agentMaxTopupAmount?: Decimal | null | undefined;
  agentProvisionalDays?: number | undefined;
  agentSignupPerIpCap?: number | null | undefined;
  agentSpendMandateEnabled?: boolean | undefined;
  agentMaxMandateAmount?: Decimal | null | undefined;
  stripeMode?: string | undefined;
  currency?: string | undefined;
  stripeCheckoutSuccessUrl?: string | null | undefined;
  stripeCheckoutCancelUrl?: string | null | undefined;
  defaultCostConfig?: CostConfigInput | null | undefined;
  usageThresholdPercents?: number[] | null | undefined;
  invoiceNumberPrefix?: string | null | undefined;
  legalName?: string | null | undefined;
  addressLines?: string[] | null | undefined;
  taxId?: string | null | undefined;
  contactEmail?: string | null | undefined;
};

/** A PATCH whose fields passed their own checks, normalised to stored form. Absent = unchanged. */
export type CheckedPatch = {
  [K in keyof Omit<AccountSettings, 'accountId'>]?: AccountSettings[K];
};
