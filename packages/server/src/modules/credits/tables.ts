import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Int8, Json, Numeric } from '../../platform/db/tables.js';

/**
 * The credits module's tables: credit models and plan allocations, pools and their links, grants, the ledger
 * (monthly partitions, ADR 0022) with its trigger-kept key tables, reservations, and the tariff (weights, prices).
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

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
export type ModelRow = Selectable<CreditModelsTable>;

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
export type AllocationRow = Selectable<PlanCreditAllocationsTable>;

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
  /** Below it a committed change records credits.balance_low; null: no such event (migration 0039). */
  low_balance_threshold: ColumnType<string | null, string | null | undefined, string | null>;
  /** Once-only flags of credits.balance_low and credits.depleted, read and set under the pool lock. */
  low_balance_armed: ColumnType<boolean, boolean | undefined, boolean>;
  depleted_armed: ColumnType<boolean, boolean | undefined, boolean>;
  /** The auto top-up rule's threshold while the rule is enabled, else null (migration 0042, ADR 0037). */
  auto_topup_threshold: ColumnType<string | null, string | null | undefined, string | null>;
}
export type PoolRow = Selectable<CreditPoolsTable>;

export interface CreditPoolLinksTable {
  account_id: string;
  credit_pool_id: string;
  subscription_id: string;
  draw_priority: number;
  draw_limit: Numeric | null;
  total_drawn: Numeric;
  created_at: Date;
}
export type LinkRow = Selectable<CreditPoolLinksTable>;

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
export type GrantRow = Selectable<CreditGrantsTable>;

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
export type TransactionRow = Selectable<CreditTransactionsTable>;

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
export type ReservationRow = Selectable<CreditReservationsTable>;

/**
 * The ledger's unique keys, claimed by the ledger's own insert statements (ledger.ts; migration 0036):
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
export type PriceRow = Selectable<CreditPricesTable>;

export type DisabledReason = 'MANUAL' | 'CONSECUTIVE_FAILURES';

/** One auto top-up rule per customer pool (migration 0042, api-contract-money.md §2). */
export interface CreditAutoTopupRulesTable {
  account_id: string;
  credit_pool_id: string;
  customer_id: string;
  enabled: boolean;
  threshold: Numeric;
  topup_credits: Numeric;
  max_monthly_amount: Numeric | null;
  consecutive_failures: ColumnType<number, number | undefined, number>;
  retry_after: Date | null;
  disabled_reason: DisabledReason | null;
  created_at: Date;
  modified_at: Date;
}
export type AutoTopupRuleRow = Selectable<CreditAutoTopupRulesTable>;

export type AttemptStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/** An auto top-up attempt: recorded PENDING by a draw, settled by the charge (at most one PENDING per pool). */
export interface CreditAutoTopupAttemptsTable {
  id: string;
  account_id: string;
  credit_pool_id: string;
  customer_id: string;
  status: AttemptStatus;
  credits: Numeric;
  price_per_credit: Numeric;
  amount: Numeric;
  currency: string;
  balance_at_trigger: Numeric;
  trigger_transaction_id: string;
  payment_method_id: string | null;
  payment_intent_id: string | null;
  grant_id: string | null;
  failure_code: string | null;
  failure_message: string | null;
  counted: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Date;
  completed_at: Date | null;
}
export type AutoTopupAttemptRow = Selectable<CreditAutoTopupAttemptsTable>;

declare module '../../platform/db/tables.js' {
  interface DB {
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
    credit_reservations: CreditReservationsTable;
    credit_weights: CreditWeightsTable;
    credit_prices: CreditPricesTable;
    credit_auto_topup_rules: CreditAutoTopupRulesTable;
    credit_auto_topup_attempts: CreditAutoTopupAttemptsTable;
  }
}
