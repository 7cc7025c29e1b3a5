import type { Selectable } from 'kysely';

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
  source: 'MANUAL' | 'EVENT_AUTO_CREATED' | 'AGENT_SIGNUP' | 'STRIPE_IMPORTED';
  created_at: Date;
  modified_at: Date;
}
export type CustomerRow = Selectable<CustomersTable>;

declare module '../../platform/db/tables.js' {
  interface DB {
    customers: CustomersTable;
  }
}
