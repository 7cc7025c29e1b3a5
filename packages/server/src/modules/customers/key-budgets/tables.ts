import type { Numeric } from '../../../platform/db/tables.js';

/**
 * The key-budget tables (migration 0045, api-contract-agent-v2.md §2), part of the customers module.
 * Merged into Kysely's `DB` by the augmentation below (ADR 0031).
 */
export interface ApiKeyBudgetsTable {
  account_id: string;
  key_id: string;
  customer_id: string;
  period: 'DAY' | 'WEEK' | 'MONTH' | 'TOTAL';
  credit_limit: Numeric | null;
  amount_limit: Numeric | null;
  alert_threshold: number | null;
  anchor_at: Date;
  counted_window_start: Date;
  credits_spent: Numeric;
  amount_spent: Numeric;
  alerting_since: Date | null;
  /** Start of the window whose refusal recorded budget.exceeded (migration 0049); null = armed. */
  exceeded_window_start: Date | null;
  created_at: Date;
  modified_at: Date;
}

export interface ApiKeySpendTable {
  account_id: string;
  id: string;
  key_id: string;
  axis: 'CREDITS' | 'AMOUNT';
  channel: 'EVENT' | 'OFF_SESSION' | 'HOSTED';
  /** OPEN: a hosted payment started, not counted until it lands; PENDING: an off-session reservation (counts); SETTLED: counted for good. */
  state: 'OPEN' | 'PENDING' | 'SETTLED';
  amount: Numeric;
  window_start: Date | null;
  created_at: Date;
  modified_at: Date;
}

declare module '../../../platform/db/tables.js' {
  interface DB {
    api_key_budgets: ApiKeyBudgetsTable;
    api_key_spend: ApiKeySpendTable;
  }
}
