import type { ColumnType, Generated } from 'kysely';
import type { Jsonb } from './jsonb.js';

/**
 * Row types as both drivers return them: numeric and int8 as strings, timestamptz as Date,
 * date as 'YYYY-MM-DD', jsonb parsed. `database.ts` pins the parsers so PGlite and pg agree.
 */
type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface AccountsTable {
  id: string;
  name: string;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: string;
  account_id: string;
  username: string;
  password_hash: string;
  role: Generated<'ADMIN'>;
  /** Bumped by a password change; a JWT carries it as `ver` and must match. */
  session_version: Generated<number>;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  kind: 'TENANT' | 'CUSTOMER';
  customer_id: string | null;
  scopes: ColumnType<string[], string[] | undefined, string[]>;
  key_hash: string;
  key_hint: string;
  created_at: CreatedAt;
  expires_at: Date | null;
  revoked_at: Date | null;
  /** Written at most once a minute per key (migration 0032). */
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A customer portal link (migration 0031, ADR 0025): only the token's hash is stored. */
export interface PortalSessionsTable {
  id: string;
  account_id: string;
  customer_id: string;
  token_hash: string;
  token_hint: string;
  scopes: string[];
  return_url: string | null;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface LoginThrottleTable {
  subject: string;
  window_start: Date;
  failures: number;
  last_failure_at: Date;
}

export interface IdempotencyRecordsTable {
  account_id: string;
  scope: string;
  idempotency_key: string;
  request_hash: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  response_status: number | null;
  response_content_type: string | null;
  response_body: string | null;
  created_at: Date;
  /** The attempt that owns an IN_PROGRESS record; every write it makes is fenced by it. */
  attempt_id: string | null;
  /** When an IN_PROGRESS record's owner is presumed dead and a retry may take it over. */
  lease_until: Date | null;
  /** JSON array: the encoded results of the transactions committed under the key, in order. */
  committed_results: Generated<string>;
}

export interface JobRunsTable {
  job_name: string;
  slot: Date;
  node_id: string;
  started_at: Date;
  finished_at: Date | null;
  outcome: 'SUCCEEDED' | 'FAILED' | null;
  error: string | null;
}

export interface SchemaMigrationsTable {
  version: string;
  name: string;
  applied_at: CreatedAt;
}

/** jsonb: read parsed by the exact codec; written only as `toJsonb(...)` text (db/jsonb.ts, ADR 0006). */
type Json = ColumnType<Record<string, unknown>, Jsonb | undefined, Jsonb>;
/** NUMERIC: read as an exact string; written from a Decimal's string form. */
type Numeric = ColumnType<string, string, string>;

export interface FeaturesTable {
  id: string;
  account_id: string;
  key: string;
  name: string;
  description: string | null;
  feature_type: string;
  is_enabled: boolean;
  metadata: Json;
  created_at: Date;
  modified_at: Date;
}

export interface PlansTable {
  id: string;
  account_id: string;
  key: string;
  name: string | null;
  description: string | null;
  price_amount: Numeric | null;
  currency: string;
  interval_months: number | null;
  billing_timing: 'IN_ADVANCE' | 'IN_ARREARS';
  status: 'DRAFT' | 'ACTIVE' | 'ARCHIVED';
  metadata: Json;
  created_at: Date;
  modified_at: Date;
}

export interface PlanFeatureRulesTable {
  id: string;
  account_id: string;
  plan_id: string;
  feature_id: string;
  type: 'BASE';
  is_enabled: boolean;
  value: Json;
  credit_model_id: string | null;
  created_at: Date;
  modified_at: Date;
}

export interface CustomersTable {
  id: string;
  account_id: string;
  customer_reference_id: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  address: string | null;
  source: 'MANUAL' | 'EVENT_AUTO_CREATED' | 'AGENT_SIGNUP' | 'STRIPE_IMPORTED';
  created_at: Date;
  modified_at: Date;
}

export interface SubscriptionsTable {
  id: string;
  account_id: string;
  customer_id: string;
  plan_id: string;
  is_active: boolean;
  entitlements_revoked: Generated<boolean>;
  grace_period_days: number;
  current_period_start: Date;
  current_period_end: Date;
  billing_anchor_day: number;
  cancel_mode: 'END_OF_PERIOD' | 'IMMEDIATE' | null;
  cancel_effective_at: Date | null;
  cancelled_at: Date | null;
  ended_at: Date | null;
  metadata: Json;
  created_at: Date;
  modified_at: Date;
}

export interface ScheduledPlanChangesTable {
  id: string;
  account_id: string;
  subscription_id: string;
  type: 'UPGRADE' | 'DOWNGRADE';
  from_plan_id: string;
  to_plan_id: string;
  status: 'PENDING' | 'COMPLETED' | 'CANCELLED' | 'FAILED';
  effective_at: Date;
  created_at: Date;
}

export type InvoiceStatus = 'PENDING' | 'DUE' | 'PAID' | 'PAST_DUE' | 'VOID' | 'CANCELLED' | 'CANCELLED_PROCESSED';
export type InvoiceType = 'IN_ADVANCE_INITIAL' | 'REGULAR' | 'ADJUSTMENT' | 'CREDIT';

export interface InvoicesTable {
  id: string;
  account_id: string;
  subscription_id: string;
  customer_id: string;
  status: InvoiceStatus;
  type: InvoiceType;
  amount: Numeric;
  currency: string;
  due_date: Date;
  period_start: Date;
  period_end: Date;
  paid_at: Date | null;
  metadata: Json;
  created_at: Date;
  modified_at: Date;
}

export interface InvoiceItemsTable {
  id: string;
  account_id: string;
  invoice_id: string;
  /** Line order on the invoice. */
  position: number;
  feature_id: string | null;
  charge_amount: Numeric;
  description: string;
  created_at: Date;
  modified_at: Date;
}

export interface UsageEventsTable {
  id: string;
  account_id: string;
  customer_id: string;
  feature_id: string;
  subscription_id: string | null;
  event_type: 'CLIENT_TRACKED' | 'ENTITLEMENT_CHECKED';
  event_name: string;
  event_idempotency_key: string;
  usage_units: Numeric;
  revenue_amount: Numeric;
  cost_amount: Numeric | null;
  model: string | null;
  model_provider: string | null;
  input_tokens: ColumnType<string | null, number | null, number | null>;
  output_tokens: ColumnType<string | null, number | null, number | null>;
  flow_id: string | null;
  occurred_at: Date;
  ingested_at: Date;
  context: Json;
  meta: ColumnType<Record<string, unknown> | null, string | null, string | null>;
}

/** One row per stored event: its idempotency key's uniqueness across every month (migration 0028). */
export interface UsageEventKeysTable {
  account_id: string;
  event_idempotency_key: string;
  event_id: string;
  occurred_at: Date;
}

export interface UsageCountersTable {
  account_id: string;
  subscription_id: string;
  feature_id: string;
  period_start: Date;
  used: Numeric;
  revenue: Numeric;
}

export type RolloverPolicy = 'NONE' | 'FULL' | 'CAPPED';

export interface CreditModelsTable {
  id: string;
  account_id: string;
  name: string;
  denomination: string;
  description: string | null;
  hard_limit: boolean;
  rollover_policy: RolloverPolicy;
  rollover_cap: Numeric | null;
  metadata: Json;
  deleted_at: Date | null;
  created_at: Date;
  modified_at: Date;
}

export interface PlanCreditAllocationsTable {
  id: string;
  account_id: string;
  plan_id: string;
  credit_model_id: string;
  credit_amount: Numeric;
  grant_expires_months: number | null;
  hard_limit: boolean | null;
  created_at: Date;
}

export interface CreditPoolsTable {
  id: string;
  account_id: string;
  customer_id: string | null;
  name: string;
  denomination: string;
  currency: string | null;
  hard_limit: boolean;
  rollover_policy: RolloverPolicy;
  rollover_cap: Numeric | null;
  status: 'ACTIVE' | 'FROZEN' | 'DEPLETED' | 'ARCHIVED';
  balance: Numeric;
  total_granted: Numeric;
  total_consumed: Numeric;
  total_expired: Numeric;
  total_reversed: Numeric;
  /** Credits held by open reservations: out of `balance`, not yet consumed (migration 0027). */
  total_held: ColumnType<string, string | undefined, string>;
  ledger_seq: ColumnType<string, string | number, string | number>;
  metadata: Json;
  created_at: Date;
  modified_at: Date;
}

export interface CreditPoolLinksTable {
  account_id: string;
  credit_pool_id: string;
  subscription_id: string;
  draw_priority: number;
  draw_limit: Numeric | null;
  total_drawn: Numeric;
  created_at: Date;
}

export type GrantType = 'PLAN_INCLUDED' | 'PURCHASED' | 'PROMOTIONAL' | 'REFUND' | 'SYSTEM' | 'ROLLOVER' | 'MANUAL';

export interface CreditGrantsTable {
  id: string;
  account_id: string;
  credit_pool_id: string;
  subscription_id: string | null;
  invoice_id: string | null;
  grant_type: GrantType;
  amount: Numeric;
  remaining: Numeric;
  unit_price: Numeric | null;
  currency: string | null;
  expires_at: Date | null;
  description: string | null;
  voided_at: Date | null;
  period_start: Date | null;
  idempotency_key: string | null;
  request_hash: string | null;
  metadata: Json;
  created_at: Date;
  seq: Generated<string>;
}

export type TransactionType = 'GRANT' | 'DEDUCTION' | 'EXPIRATION' | 'REVERSAL' | 'ADJUSTMENT' | 'FREEZE' | 'UNFREEZE' | 'HOLD' | 'CAPTURE' | 'RELEASE';

export interface CreditTransactionsTable {
  id: string;
  account_id: string;
  credit_pool_id: string;
  seq: ColumnType<string, string | number, string | number>;
  credit_grant_id: string | null;
  transaction_type: TransactionType;
  amount: Numeric;
  balance_before: Numeric;
  balance_after: Numeric;
  description: string | null;
  reversed_transaction_id: string | null;
  subscription_id: string | null;
  event_id: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  metadata: Json;
  created_at: Date;
  /** Signed change of the pool's total_held (HOLD +, CAPTURE and RELEASE −); 0 for other types. */
  held_change: ColumnType<string, string | undefined, string>;
  reservation_id: Generated<string | null>;
}

export type ReservationStatus = 'HELD' | 'CAPTURED' | 'RELEASED' | 'EXPIRED';

export interface CreditReservationsTable {
  id: string;
  account_id: string;
  customer_id: string;
  subscription_id: string;
  denomination: string;
  flow_id: string | null;
  feature_id: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  status: ReservationStatus;
  amount_requested: Numeric;
  amount_held: Numeric;
  capture_requested: Numeric | null;
  amount_captured: Numeric | null;
  event_id: string | null;
  expires_at: Date;
  settled_at: Date | null;
  metadata: Json;
  created_at: Date;
}

/**
 * The ledger's unique keys, kept by triggers on the partitioned credit_transactions (migration 0029):
 * a partitioned table's unique keys must contain the partition key, so these tables hold them.
 */
export interface CreditTransactionSeqsTable {
  account_id: string;
  credit_pool_id: string;
  seq: Int8;
  transaction_id: string;
}

export interface CreditTransactionIdempotencyKeysTable {
  account_id: string;
  idempotency_key: string;
  transaction_id: string;
}

export interface CreditTransactionReversalsTable {
  account_id: string;
  reversed_transaction_id: string;
  transaction_id: string;
}

/** An account's entitlement-context version, bumped by deferred triggers (migration 0033, ADR 0030). */
export interface EntitlementContextVersionsTable {
  account_id: string;
  version: Int8;
}

export interface CreditTransactionDrawsTable {
  account_id: string;
  transaction_id: string;
  credit_grant_id: string;
  amount: Numeric;
}

export interface CreditWeightsTable {
  id: string;
  account_id: string;
  feature_id: string;
  model: string | null;
  credits_per_unit: Numeric;
  effective_from: Date;
  created_by: string | null;
  created_at: Date;
}

export interface CreditPricesTable {
  id: string;
  account_id: string;
  denomination: string;
  currency: string;
  price_per_credit: Numeric;
  effective_from: Date;
  created_by: string | null;
  created_at: Date;
}


export type StripeMode = 'NONE' | 'PAYMENT_PASS_THROUGH' | 'PROCESSOR_INTEGRATION';

export interface AccountSettingsTable {
  account_id: string;
  slug: string | null;
  public_catalog_enabled: boolean;
  agent_signup_enabled: boolean;
  agent_signup_default_plan_id: string | null;
  agent_signup_hourly_cap: number;
  agent_max_topup_amount: Numeric | null;
  stripe_mode: StripeMode;
  currency: string;
  stripe_checkout_success_url: string | null;
  stripe_checkout_cancel_url: string | null;
  default_cost_config: ColumnType<Record<string, unknown> | null, Jsonb | null | undefined, Jsonb | null>;
  created_at: Date;
  modified_at: Date;
}

export interface AccountAuditLogTable {
  id: string;
  account_id: string;
  /** `user:<id>` for an operator, `system` for the service itself. */
  actor: string;
  action: string;
  details: Json;
  created_at: Date;
}

export interface AgentSignupsTable {
  id: string;
  account_id: string;
  customer_id: string;
  created_at: Date;
}


export interface ProcessorConnectionsTable {
  account_id: string;
  api_key_sealed: string | null;
  api_key_mask: string | null;
  webhook_endpoint_id: string | null;
  webhook_secret_sealed: string | null;
  webhook_secret_mask: string | null;
  created_at: Date;
  modified_at: Date;
}

export interface ProcessorCustomersTable {
  account_id: string;
  customer_id: string;
  processor_customer_id: string;
  default_payment_method_id: string | null;
  created_at: Date;
  modified_at: Date;
}

export type CheckoutPurpose = 'SUBSCRIPTION' | 'CREDIT_TOPUP' | 'INVOICE';
export type CheckoutStatus = 'PENDING' | 'COMPLETED' | 'EXPIRED';

export interface CheckoutSessionsTable {
  id: string;
  account_id: string;
  customer_id: string;
  purpose: CheckoutPurpose;
  status: CheckoutStatus;
  processor_session_id: string | null;
  processor_invoice_id: string | null;
  checkout_url: string | null;
  plan_id: string | null;
  subscription_id: string | null;
  invoice_id: string | null;
  credit_pool_id: string | null;
  credits: Numeric | null;
  price_per_credit: Numeric | null;
  amount: Numeric | null;
  currency: string | null;
  grant_id: string | null;
  created_at: Date;
  completed_at: Date | null;
  modified_at: Date;
}

export type CreditPurchaseStatus = 'PENDING' | 'SUCCEEDED' | 'DECLINED' | 'CHECKOUT';

export interface CreditPurchasesTable {
  id: string;
  account_id: string;
  customer_id: string;
  credit_pool_id: string;
  credits: Numeric;
  price_per_credit: Numeric;
  amount: Numeric;
  currency: string;
  status: CreditPurchaseStatus;
  payment_intent_id: string | null;
  grant_id: string | null;
  checkout_session_id: string | null;
  decline_reason: string | null;
  created_at: Date;
  modified_at: Date;
}

export interface ProcessorEventsTable {
  account_id: string;
  event_id: string;
  type: string;
  received_at: Date;
}

export interface ProcessorProductsTable {
  account_id: string;
  plan_id: string;
  price_key: string;
  processor_product_id: string;
  processor_price_id: string;
  created_at: Date;
}

export type ProcessorSubscriptionStatus = 'PENDING' | 'LINKED' | 'DECLINED' | 'EXPIRED';

export interface ProcessorSubscriptionsTable {
  account_id: string;
  subscription_id: string;
  customer_id: string;
  plan_id: string;
  status: ProcessorSubscriptionStatus;
  processor_subscription_id: string | null;
  checkout_session_id: string | null;
  created_at: Date;
  modified_at: Date;
}

export interface ProcessorInvoicesTable {
  account_id: string;
  processor_invoice_id: string;
  invoice_id: string;
  created_at: Date;
}

export interface ProcessorMeterEventsTable {
  account_id: string;
  event_id: string;
  customer_id: string;
  feature_id: string;
  event_name: string;
  units: Numeric;
  occurred_at: Date;
  status: 'PENDING' | 'SENT';
  attempts: Generated<number>;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

// Internal AI spend (migration 0013). Token counts are int8 (strings); cents are NUMERIC (strings).
export type SpendProvider = 'ANTHROPIC' | 'OPENAI' | 'CURSOR' | 'COPILOT' | 'LITELLM';
export type SpendConnectionStatus = 'ACTIVE' | 'ERROR';
type Int8 = ColumnType<string, string | number | bigint, string | number | bigint>;

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

export interface DB {
  credit_models: CreditModelsTable;
  plan_credit_allocations: PlanCreditAllocationsTable;
  credit_pools: CreditPoolsTable;
  credit_pool_links: CreditPoolLinksTable;
  credit_grants: CreditGrantsTable;
  credit_transactions: CreditTransactionsTable;
  credit_transaction_draws: CreditTransactionDrawsTable;
  credit_transaction_seqs: CreditTransactionSeqsTable;
  credit_transaction_idempotency_keys: CreditTransactionIdempotencyKeysTable;
  credit_transaction_reversals: CreditTransactionReversalsTable;
  entitlement_context_versions: EntitlementContextVersionsTable;
  credit_reservations: CreditReservationsTable;
  credit_weights: CreditWeightsTable;
  credit_prices: CreditPricesTable;
  features: FeaturesTable;
  plans: PlansTable;
  plan_feature_rules: PlanFeatureRulesTable;
  customers: CustomersTable;
  subscriptions: SubscriptionsTable;
  scheduled_plan_changes: ScheduledPlanChangesTable;
  invoices: InvoicesTable;
  invoice_items: InvoiceItemsTable;
  usage_events: UsageEventsTable;
  usage_event_keys: UsageEventKeysTable;
  usage_counters: UsageCountersTable;
  accounts: AccountsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  portal_sessions: PortalSessionsTable;
  processor_connections: ProcessorConnectionsTable;
  processor_customers: ProcessorCustomersTable;
  checkout_sessions: CheckoutSessionsTable;
  credit_purchases: CreditPurchasesTable;
  processor_events: ProcessorEventsTable;
  processor_products: ProcessorProductsTable;
  processor_subscriptions: ProcessorSubscriptionsTable;
  processor_invoices: ProcessorInvoicesTable;
  processor_meter_events: ProcessorMeterEventsTable;
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
  account_settings: AccountSettingsTable;
  account_audit_log: AccountAuditLogTable;
  agent_signups: AgentSignupsTable;
  login_throttle: LoginThrottleTable;
  idempotency_records: IdempotencyRecordsTable;
  job_runs: JobRunsTable;
  schema_migrations: SchemaMigrationsTable;
}
