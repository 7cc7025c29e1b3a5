/**
 * What counts against a customer's spend mandate (migration 0046, api-contract-agent-v2.md §4.6).
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031).
 */

export interface CustomerMandateSpendTable {
  account_id: string;
  /** The charge's id (a credit purchase's, a payment's): settle and release find it by this. */
  id: string;
  customer_id: string;
  state: 'PENDING' | 'SETTLED';
  /** numeric(20,4), in the account currency. */
  amount: string;
  /** The mandate window the charge counts in: the mandate's start (a new period restarts it) and the window's. */
  mandate_started_at: Date;
  window_start: Date;
  created_at: Date;
  modified_at: Date;
}

declare module '../../../platform/db/tables.js' {
  interface DB {
    customer_mandate_spend: CustomerMandateSpendTable;
  }
}
