import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Int8, Json, Numeric } from '../../platform/db/tables.js';
import type { SpendProvider } from './providers.js';

/**
 * The spend module's tables (internal AI spend, migration 0013 on): vendor connections and what their syncs
 * store (usage buckets, vendor costs, actor metrics), imported invoices, settings, units and rules, budgets,
 * the price book, outcomes, deliveries and alerts. Token counts are int8 (strings); cents are NUMERIC (strings).
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

/** The spend vendors: the provider registry's keys (providers.ts), so a new vendor is an entry there. */
export type { SpendProvider };

export type SpendConnectionStatus = 'ACTIVE' | 'ERROR';

export interface SpendConnectionsTable {
  id: string;
  account_id: string;
  provider: SpendProvider;
  label: string;
  admin_key_sealed: string | null;
  key_hint: string;
  scope: string | null;
  status: SpendConnectionStatus;
  last_error: string | null;
  last_synced_at: Date | null;
  sync_chunks_done: number | null;
  sync_chunks_total: number | null;
  initial_sync_at: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  modified_at: Date;
}
export type ConnectionRow = Selectable<SpendConnectionsTable>;

export interface SpendUsageBucketsTable {
  account_id: string;
  connection_id: string;
  provider: SpendProvider;
  day: string;
  model: string;
  workspace_id: ColumnType<string, string | undefined, string>;
  api_key_id: ColumnType<string, string | undefined, string>;
  actor: ColumnType<string, string | undefined, string>;
  service_tier: ColumnType<string, string | undefined, string>;
  uncached_input_tokens: Int8;
  cache_read_tokens: Int8;
  cache_write_5m_tokens: Int8;
  cache_write_1h_tokens: Int8;
  output_tokens: Int8;
  requests: Int8 | null;
  vendor_cost_cents: Numeric | null;
}

export interface SpendVendorCostsTable {
  account_id: string;
  connection_id: string;
  provider: SpendProvider;
  day: string;
  workspace_id: ColumnType<string, string | undefined, string>;
  model: string | null;
  description: ColumnType<string, string | undefined, string>;
  cost_type: string | null;
  amount_cents: Numeric;
}

export interface SpendActorMetricsTable {
  account_id: string;
  connection_id: string;
  provider: SpendProvider;
  day: string;
  actor: string;
  tool: ColumnType<string, string | undefined, string>;
  model: ColumnType<string, string | undefined, string>;
  uncached_input_tokens: Int8 | null;
  cache_read_tokens: Int8 | null;
  cache_write_tokens: Int8 | null;
  output_tokens: Int8 | null;
  total_tokens: Int8 | null;
  sessions: Int8 | null;
  requests: Int8 | null;
  lines_added: Int8 | null;
  lines_removed: Int8 | null;
  accepted: Int8 | null;
  rejected: Int8 | null;
  commits: Int8 | null;
  pull_requests: Int8 | null;
  credits_used: Numeric | null;
  vendor_cost_cents: Numeric | null;
}

export type SpendInvoiceLineKind = 'TOKEN' | 'SEAT' | 'TOOL' | 'OTHER';

export interface SpendInvoicesTable {
  id: string;
  account_id: string;
  provider: SpendProvider;
  period_start: string;
  period_end: string;
  currency: string;
  total_cents: Numeric;
  imported_from: string | null;
  created_at: Date;
}
export type InvoiceRow = Selectable<SpendInvoicesTable>;

export interface SpendInvoiceLinesTable {
  account_id: string;
  invoice_id: string;
  line_no: number;
  description: string;
  kind: SpendInvoiceLineKind;
  model: string | null;
  quantity: Numeric | null;
  amount_cents: Numeric;
}
export type InvoiceLineRow = Selectable<SpendInvoiceLinesTable>;

export interface SpendSettingsTable {
  account_id: string;
  person_level_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  worker_notice: string | null;
  slack_webhook_url_sealed: string | null;
  webhook_url_sealed: string | null;
  webhook_secret_sealed: string | null;
  alert_emails: string | null;
  digest_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Date;
  modified_at: Date;
}
export type SpendSettingsRow = Selectable<SpendSettingsTable>;

export type SpendUnitType = 'TEAM' | 'PROJECT' | 'PERSON';

export type SpendMatchKind = 'WORKSPACE_ID' | 'API_KEY_ID' | 'ACTOR';

export interface SpendUnitsTable {
  id: string;
  account_id: string;
  type: SpendUnitType;
  name: string;
  email: string | null;
  github_login: string | null;
  parent_id: string | null;
  feature_id: string | null;
  created_at: Date;
  modified_at: Date;
}
export type UnitRow = Selectable<SpendUnitsTable>;

export interface SpendRulesTable {
  id: string;
  account_id: string;
  spend_unit_id: string;
  provider: SpendProvider;
  match_kind: SpendMatchKind;
  match_value: string;
  priority: number;
  created_at: Date;
  created_seq: Generated<string>;
}
export type RuleRow = Selectable<SpendRulesTable>;

export type SpendMonthlyMode = 'ALERT' | 'BLOCK';

export interface SpendBudgetsTable {
  account_id: string;
  spend_unit_id: string;
  daily_cents: Numeric | null;
  monthly_cents: Numeric | null;
  alert_threshold: number;
  monthly_mode: SpendMonthlyMode;
  bump_monthly_cents: Numeric | null;
  bump_expires_at: Date | null;
  bump_reason: string | null;
  enforcement_target: string | null;
  enforced_at: Date | null;
  enforcement_error: string | null;
  created_at: Date;
  modified_at: Date;
}
export type BudgetRow = Selectable<SpendBudgetsTable>;

// The spend price book (migration 0014): USD per million tokens as NUMERIC (strings); null = no such rate.
export type SpendPriceSource = 'PACKAGE' | 'SEED_OVERRIDE';

export interface SpendPriceSeedTable {
  provider: 'ANTHROPIC' | 'OPENAI';
  model: string;
  effective_from: string;
  input_per_mtok: Numeric | null;
  output_per_mtok: Numeric | null;
  cache_read_per_mtok: Numeric | null;
  cache_write_5m_per_mtok: Numeric | null;
  cache_write_1h_per_mtok: Numeric | null;
  source: SpendPriceSource;
}

export interface SpendPriceSeedStateTable {
  id: number;
  data_hash: string;
  refreshed_at: Date | null;
}

export interface SpendPricesTable {
  id: string;
  account_id: string;
  provider: SpendProvider;
  model: string;
  effective_from: string;
  input_per_mtok: Numeric;
  output_per_mtok: Numeric;
  cache_read_per_mtok: Numeric | null;
  cache_write_5m_per_mtok: Numeric | null;
  cache_write_1h_per_mtok: Numeric | null;
  created_by: string | null;
  created_at: Date;
}

export interface SpendModelMatchesTable {
  account_id: string;
  provider: SpendProvider;
  vendor_model: string;
  price_provider: SpendProvider;
  price_model: string;
  matched: boolean;
}

export type SpendOutcomeSourceKind = 'GITHUB' | 'LINEAR';

export type SpendOutcomeSourceName = SpendOutcomeSourceKind | 'MANUAL';

export type SpendOutcomeKind = 'PR_MERGED' | 'ISSUE_DONE' | 'CUSTOM';

export interface SpendOutcomeSourcesTable {
  id: string;
  account_id: string;
  source: SpendOutcomeSourceKind;
  label: string;
  token_sealed: string;
  scope: string;
  default_spend_unit_id: string | null;
  status: SpendConnectionStatus;
  last_error: string | null;
  last_synced_at: Date | null;
  created_at: Date;
  modified_at: Date;
}
export type SourceRow = Selectable<SpendOutcomeSourcesTable>;

export interface SpendOutcomesTable {
  id: string;
  account_id: string;
  source: SpendOutcomeSourceName;
  source_id: string | null;
  kind: SpendOutcomeKind;
  external_id: string;
  title: string | null;
  url: string | null;
  actor_email: string | null;
  actor_login: string | null;
  requested_spend_unit_id: string | null;
  spend_unit_id: string | null;
  occurred_at: Date;
  ai_assisted: boolean | null;
  ai_tool: string | null;
  created_at: Date;
  modified_at: Date;
}
export type OutcomeRow = Selectable<SpendOutcomesTable>;

export type SpendEventType = 'spend.alert' | 'spend.digest' | 'spend.test';

export type SpendDeliveryChannel = 'SLACK' | 'WEBHOOK' | 'EMAIL';

export type SpendDeliveryStatus = 'PENDING' | 'SENT' | 'FAILED';

export interface SpendDeliveriesTable {
  id: string;
  account_id: string;
  event_type: SpendEventType;
  channel: SpendDeliveryChannel;
  payload: Json;
  status: SpendDeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  sent_at: Date | null;
  created_seq: Generated<string>;
}
export type SpendDeliveryRow = Selectable<SpendDeliveriesTable>;

export type SpendAlertKind = 'THRESHOLD' | 'BREACH' | 'SPIKE' | 'PROJECTED';

export type SpendAlertPeriod = 'DAY' | 'MONTH';

export interface SpendAlertsTable {
  id: string;
  account_id: string;
  spend_unit_id: string;
  unit_name: string;
  kind: SpendAlertKind;
  period: SpendAlertPeriod;
  window_start: string;
  spent_cents: Numeric;
  limit_cents: Numeric | null;
  message: string;
  fired_at: Date;
  acked_at: Date | null;
  acked_by: string | null;
  created_seq: Generated<string>;
}
export type AlertRow = Selectable<SpendAlertsTable>;

declare module '../../platform/db/tables.js' {
  interface DB {
    spend_connections: SpendConnectionsTable;
    spend_usage_buckets: SpendUsageBucketsTable;
    spend_vendor_costs: SpendVendorCostsTable;
    spend_actor_metrics: SpendActorMetricsTable;
    spend_invoices: SpendInvoicesTable;
    spend_invoice_lines: SpendInvoiceLinesTable;
    spend_settings: SpendSettingsTable;
    spend_units: SpendUnitsTable;
    spend_rules: SpendRulesTable;
    spend_budgets: SpendBudgetsTable;
    spend_price_seed: SpendPriceSeedTable;
    spend_price_seed_state: SpendPriceSeedStateTable;
    spend_prices: SpendPricesTable;
    spend_model_matches: SpendModelMatchesTable;
    spend_outcome_sources: SpendOutcomeSourcesTable;
    spend_outcomes: SpendOutcomesTable;
    spend_deliveries: SpendDeliveriesTable;
    spend_alerts: SpendAlertsTable;
  }
}
