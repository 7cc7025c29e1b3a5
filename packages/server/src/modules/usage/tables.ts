import type { ColumnType, Selectable } from 'kysely';
import type { Int8, Json, Numeric } from '../../platform/db/tables.js';

/**
 * The usage module's tables: events (monthly partitions, ADR 0022), their keys, the period counters, and the
 * entitlement-context versions its checks validate against (ADR 0030; bumped by triggers on other modules' tables).
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

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
export type UsageEventRow = Selectable<UsageEventsTable>;

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

/** An account's entitlement-context version, bumped by deferred triggers (migration 0033, ADR 0030). */
export interface EntitlementContextVersionsTable {
  account_id: string;
  version: Int8;
}

/**
 * One row per usage.threshold_reached recorded: once per (subscription, feature, window start,
 * percent) (migration 0040, api-contract-events.md §E5.8); inserted under the counter's row lock.
 */
export interface UsageThresholdMarksTable {
  account_id: string;
  subscription_id: string;
  feature_id: string;
  window_start: Date;
  percent: number;
  event_id: string;
  created_at: Date;
}

declare module '../../platform/db/tables.js' {
  interface DB {
    usage_events: UsageEventsTable;
    usage_event_keys: UsageEventKeysTable;
    usage_counters: UsageCountersTable;
    entitlement_context_versions: EntitlementContextVersionsTable;
    usage_threshold_marks: UsageThresholdMarksTable;
  }
}
