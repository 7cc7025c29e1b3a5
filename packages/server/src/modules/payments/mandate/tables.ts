/**
 * Spend mandate pages (migration 0046, api-contract-agent-v2.md §4.6): a checkout session of
 * purpose SPEND_MANDATE (its amount and currency are the max_amount asked for) with the period asked
 * for and the key that asked. Merged into Kysely's `DB` by the augmentation at the end (ADR 0031).
 */

export interface SpendMandatePagesTable {
  account_id: string;
  checkout_session_id: string;
  customer_id: string;
  period: 'day' | 'week' | 'month';
  /** The customer key that asked; null when the tenant key did. */
  api_key_id: string | null;
  created_at: Date;
}

declare module '../../../platform/db/tables.js' {
  interface DB {
    spend_mandate_pages: SpendMandatePagesTable;
  }
}
