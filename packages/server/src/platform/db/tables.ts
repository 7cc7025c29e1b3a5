import type { ColumnType, Generated } from 'kysely';
import type { Jsonb } from './jsonb.js';

/**
 * Row types as both drivers return them: numeric and int8 as strings, timestamptz as Date,
 * date as 'YYYY-MM-DD', jsonb parsed. `database.ts` pins the parsers so PGlite and pg agree.
 *
 * Kysely's `DB` declares here only the tables platform/ itself queries (migrations bookkeeping, the
 * job scheduler's runs, idempotency records). Every other table is declared by the module that
 * writes it, in `modules/<module>/tables.ts`, and merged into `DB` there by module augmentation
 * (ADR 0031). The column types below are the shared vocabulary of those files.
 */
export type CreatedAt = ColumnType<Date, Date | undefined, never>;
/** jsonb: read parsed by the exact codec; written only as `toJsonb(...)` text (db/jsonb.ts, ADR 0006). */
export type Json = ColumnType<Record<string, unknown>, Jsonb | undefined, Jsonb>;
/** NUMERIC: read as an exact string; written from a Decimal's string form. */
export type Numeric = ColumnType<string, string, string>;
/** int8: read as a string (exact beyond 2^53); written from a string, number or bigint. */
export type Int8 = ColumnType<string, string | number | bigint, string | number | bigint>;

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
  /** The attempt that owns an IN_PROGRESS record; every write it makes is fenced by it. */
  attempt_id: string | null;
  /** When an IN_PROGRESS record's owner is presumed dead and a retry may take it over. */
  lease_until: Date | null;
  /** JSON array: the encoded results of the transactions committed under the key, in order. */
  committed_results: Generated<string>;
  /** The node identity and boot epoch of the process holding an IN_PROGRESS lease (ADR 0033). */
  owner_node: string | null;
  owner_epoch: Int8 | null;
}

/** One row per node identity: its latest boot (ADR 0033). */
export interface NodeBootsTable {
  node_id: string;
  epoch: Int8;
  booted_at: Date;
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

/**
 * The platform's tables. Each module adds its own with
 * `declare module '../../platform/db/tables.js' { interface DB { … } }` in its tables.ts.
 */
/** The outbox of outbound events (migration 0038, platform/events/outbox.ts): the payload is the exact bytes sent. */
export interface OutboundEventsTable {
  id: string;
  account_id: string;
  type: string;
  payload: string;
  created_at: Date;
  fanned_out_at: Date | null;
}

export interface DB {
  outbound_events: OutboundEventsTable;
  idempotency_records: IdempotencyRecordsTable;
  job_runs: JobRunsTable;
  node_boots: NodeBootsTable;
  schema_migrations: SchemaMigrationsTable;
}
