import type { ColumnType, Selectable } from 'kysely';
import type { Jsonb } from '../../platform/db/jsonb.js';
import type { Json, Numeric } from '../../platform/db/tables.js';

/**
 * The settings module's tables: an account's settings and its audit log.
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

export type StripeMode = 'NONE' | 'PAYMENT_PASS_THROUGH' | 'PROCESSOR_INTEGRATION';

export interface AccountSettingsTable {
  account_id: string;
  slug: string | null;
  public_catalog_enabled: boolean;
  agent_signup_enabled: boolean;
  agent_signup_default_plan_id: string | null;
  agent_signup_hourly_cap: number;
  agent_max_topup_amount: Numeric | null;
  /** Agent onboarding v2 (migration 0046, api-contract-agent-v2.md §3). */
  agent_provisional_days: ColumnType<number, number | undefined, number>;
  agent_signup_per_ip_cap: number | null;
  agent_spend_mandate_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  agent_max_mandate_amount: Numeric | null;
  stripe_mode: StripeMode;
  currency: string;
  stripe_checkout_success_url: string | null;
  stripe_checkout_cancel_url: string | null;
  default_cost_config: ColumnType<Record<string, unknown> | null, Jsonb | null | undefined, Jsonb | null>;
  /** Percents of a feature limit that record usage.threshold_reached (migration 0040); ascending, distinct. */
  usage_threshold_percents: ColumnType<number[], number[] | undefined, number[]>;
  /** The issuer on invoice documents (migration 0041, api-contract-money.md §1.1). */
  invoice_number_prefix: ColumnType<string, string | undefined, string>;
  legal_name: string | null;
  address_lines: ColumnType<string[], string[] | undefined, string[]>;
  tax_id: string | null;
  contact_email: string | null;
  created_at: Date;
  modified_at: Date;
}
export type SettingsRow = Selectable<AccountSettingsTable>;

export interface AccountAuditLogTable {
  id: string;
  account_id: string;
  /** `user:<id>` for an operator, `system` for the service itself. */
  actor: string;
  action: string;
  details: Json;
  created_at: Date;
}
export type AuditLogRow = Selectable<AccountAuditLogTable>;

declare module '../../platform/db/tables.js' {
  interface DB {
    account_settings: AccountSettingsTable;
    account_audit_log: AccountAuditLogTable;
  }
}
