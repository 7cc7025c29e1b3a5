import type { ColumnType, Selectable } from 'kysely';

/**
 * The customers module's table.
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

export interface CustomersTable {
  id: string;
  account_id: string;
  customer_reference_id: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  phone_number: string | null;
  address: string | null;
  /** Printed on invoice documents (migration 0041, api-contract-money.md §1.2). */
  billing_address_lines: ColumnType<string[], string[] | undefined, string[]>;
  tax_id: string | null;
  source: 'MANUAL' | 'EVENT_AUTO_CREATED' | 'AGENT_SIGNUP' | 'STRIPE_IMPORTED';
  created_at: Date;
  modified_at: Date;
  /** Agent onboarding v2 (migration 0046, `agent-lifecycle.ts`): null = not made by signup (reads claimed). */
  agent_status: AgentStatus | null;
  agent_expires_at: Date | null;
  agent_claimed_at: Date | null;
  owner_email: string | null;
  /** The customer's spend mandate (once per customer, shared by its keys; numeric(20,4)); all null = none. */
  spend_mandate_amount: string | null;
  spend_mandate_period: MandatePeriod | null;
  spend_mandate_started_at: Date | null;
}
export type AgentStatus = 'provisional' | 'claimed' | 'expired';
export type MandatePeriod = 'day' | 'week' | 'month';
export type CustomerRow = Selectable<CustomersTable>;

declare module '../../platform/db/tables.js' {
  interface DB {
    customers: CustomersTable;
  }
}
