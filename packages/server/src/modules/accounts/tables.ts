import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt } from '../../platform/db/tables.js';
import type { OperatorRole } from '../../platform/http/operator-access.js';

/**
 * The accounts module's tables: tenants, their operators (users), API keys, customer-portal links and login throttling.
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031); a migration that changes one
 * of them changes it here, and test/integration/platform/table-types.test.ts compares both.
 */

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
  role: Generated<OperatorRole>;
  /** Bumped by a password change or disabling; a JWT carries it as `ver` and must match. */
  session_version: Generated<number>;
  created_at: CreatedAt;
  /** Set while the user is disabled: no login, no session (migration 0037). */
  disabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A console session (migration 0037, ADR 0034): only the cookie token's hash is stored. */
export interface OperatorSessionsTable {
  id: string;
  account_id: string;
  user_id: string;
  token_hash: string;
  session_version: number;
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
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

declare module '../../platform/db/tables.js' {
  interface DB {
    accounts: AccountsTable;
    users: UsersTable;
    api_keys: ApiKeysTable;
    portal_sessions: PortalSessionsTable;
    operator_sessions: OperatorSessionsTable;
    login_throttle: LoginThrottleTable;
  }
}
