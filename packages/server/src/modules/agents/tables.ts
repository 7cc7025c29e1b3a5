

/**
 * The agents module's table: agent sign-ups (the hourly cap counts them).
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

export interface AgentSignupsTable {
  id: string;
  account_id: string;
  customer_id: string;
  created_at: Date;
  /** The client address the signup came from (migration 0046): the TCP peer, or X-Forwarded-For behind a trusted proxy. */
  client_address: string | null;
}

declare module '../../platform/db/tables.js' {
  interface DB {
    agent_signups: AgentSignupsTable;
  }
}
