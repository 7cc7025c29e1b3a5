import type { ColumnType, Generated } from 'kysely';

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
}

export interface LoginThrottleTable {
  subject: string;
  window_start: Date;
  failures: number;
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

export interface DB {
  accounts: AccountsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  login_throttle: LoginThrottleTable;
  idempotency_records: IdempotencyRecordsTable;
  job_runs: JobRunsTable;
  schema_migrations: SchemaMigrationsTable;
}
