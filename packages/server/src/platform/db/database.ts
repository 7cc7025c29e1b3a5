import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock.js';
import { parseJsonb } from './jsonb.js';
import { PGliteDialect, PGLITE_PARSERS } from './pglite-dialect.js';
import { openPipelinedReads } from './pipeline.js';
import type { DB } from './tables.js';
import type { PoolStats } from '../metrics.js';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Either the database or an open transaction: repos accept both. */
export type Executor = Db | Tx;

export type ScriptRunner = (sql: string) => Promise<Record<string, unknown>[]>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /**
   * Single statements outside any transaction (hot reads: the entitlement check's): on PostgreSQL,
   * a few connections in pipeline mode shared by the node's concurrent reads (ADR 0045); it refuses
   * to open a transaction. The pool itself (`db`) on PGlite, behind a transaction pooler, or with
   * DATABASE_PIPELINE_CONNECTIONS=0.
   */
  readonly reads: Db;
  /**
   * PostgreSQL: opens a connection of its own, outside the pool, with its settings (search_path),
   * for a session that must stay open (the cache's LISTEN, ADR 0013). The caller ends it. Absent on
   * PGlite.
   */
  readonly connectDedicated?: () => Promise<pg.Client>;
  /** Connections of the pool now (for /metrics; cheap, no query). */
  poolStats(): PoolStats;
  /** Runs fn on one session whose `exec` accepts multi-statement scripts (migrations). */
  withSession<T>(fn: (exec: ScriptRunner) => Promise<T>): Promise<T>;
  /**
   * PGlite only: the data directory as an uncompressed tar image, which `image` opens again (the test
   * harness starts each in-memory database from one migrated image instead of an initdb and every
   * migration).
   */
  readonly dumpImage?: () => Promise<Blob>;
  close(): Promise<void>;
}

export type DatabaseOptions =
  | {
      kind: 'postgres';
      url: string;
      poolSize?: number;
      searchPath?: string;
      /** Named prepared statements per connection (default true); false behind a transaction pooler before PgBouncer 1.21. */
      preparedStatements?: boolean;
      /** Where `connectDedicated` connects (the cache's LISTEN session); default `url`. ADR 0021. */
      listenUrl?: string;
      /** Pipeline-mode connections behind `reads` (default 2; 0: reads use the pool). Ignored without prepared statements (a transaction pooler). ADR 0045. */
      pipelineConnections?: number;
    }
  /** dataDir undefined: in memory (tests), empty or started from `image` (a `dumpImage` tar). */
  | { kind: 'pglite'; dataDir?: string; image?: Blob };

const INT8 = 20;
const DATE = 1082;
const NUMERIC = 1700;
const JSON_OID = 114;
const JSONB = 3802;
const identity = (v: string) => v;

/** Opens PostgreSQL through a pool, or embedded PGlite holding the data directory's lock. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.kind === 'postgres' ? openPostgres(options) : openPglite(options.dataDir, options.image);
}

function openPostgres(options: Extract<DatabaseOptions, { kind: 'postgres' }>): Database {
  const typeParsers = { [INT8]: identity, [DATE]: identity, [NUMERIC]: identity, [JSON_OID]: parseJsonb, [JSONB]: parseJsonb } as Record<number, (v: string) => unknown>;
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => typeParsers[oid] ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
  const newPool = (max: number, settings: string[]) => {
    const pool = new pg.Pool({
      connectionString: options.url,
      max,
      ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
      types,
    });
    // An idle client's error (e.g. the server restarting) must not crash the process.
    pool.on('error', () => {});
    return pool;
  };
  const searchPath = options.searchPath ? [`-c search_path=${options.searchPath}`] : [];
  const poolSize = options.poolSize ?? 20;
  const pool = newPool(poolSize, searchPath);
  let closed = false;
  // Behind a transaction pooler a named statement prepared on one server connection is unknown on
  // the next ("prepared statement tally_3 does not exist"): unnamed statements then (ADR 0021).
  const prepared = options.preparedStatements !== false;
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: prepared ? withNamedStatements(pool) : pool }) });
  // Behind a transaction pooler each Sync may reach another server connection: reads use the pool.
  const connections = prepared ? (options.pipelineConnections ?? 2) : 0;
  const pipelined = connections > 0 ? openPipelinedReads({ url: options.url, connections, settings: searchPath, types, named: withNamedStatements }) : undefined;
  return {
    kind: 'postgres',
    db,
    reads: pipelined?.db ?? db,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async connectDedicated() {
      const client = new pg.Client({ connectionString: options.listenUrl ?? options.url, keepAlive: true, ...(searchPath.length > 0 ? { options: searchPath.join(' ') } : {}) });
      try {
        await client.connect();
      } catch (err) {
        await client.end().catch(() => {});
        throw err;
      }
      return client;
    },
    async withSession(fn) {
      const client = await pool.connect();
      try {
        return await fn(async (sql) => {
          const result = (await client.query(sql)) as pg.QueryResult | pg.QueryResult[];
          return (Array.isArray(result) ? result.at(-1)?.rows : result.rows) ?? [];
        });
      } finally {
        client.release();
      }
    },
    async close() {
      // Idempotent: a runtime closes its database after a test or a failed start may have already.
      if (closed) return;
      closed = true;
      // Kysely's destroy is a no-op when it never ran a query itself (the migrator uses the pool
      // directly), so end the pool explicitly.
      await db.destroy();
      await pipelined?.close();
      if (!pool.ended) await pool.end();
    },
  };
}

/** Distinct statement texts that get a server-side prepared statement (per connection). */
const MAX_NAMED_STATEMENTS = 500;

/**
 * Runs parameterised queries as named prepared statements, so PostgreSQL parses and plans each
 * query text once per connection instead of on every call (planning is most of the cost of the
 * entitlement check's joins). Texts beyond MAX_NAMED_STATEMENTS run unnamed, which bounds the
 * statements a connection holds.
 */
function withNamedStatements(pool: pg.Pool): pg.Pool {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name && names.size < MAX_NAMED_STATEMENTS) names.set(text, (name = `tally_${names.size}`));
    return name;
  };
  const patched = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  return Object.assign(Object.create(pool) as pg.Pool, {
    async connect() {
      const client = await connect();
      if (!patched.has(client)) {
        patched.add(client);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as { query: unknown }).query = (text: unknown, values?: unknown[]) => {
          const name = typeof text === 'string' && values && values.length > 0 ? nameOf(text) : undefined;
          return name ? query({ name, text, values }) : values === undefined ? query(text) : query(text, values);
        };
      }
      return client;
    },
    end: () => pool.end(),
  });
}

async function openPglite(dataDir: string | undefined, image: Blob | undefined): Promise<Database> {
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  try {
    // `new PGlite(undefined, options)` ignores its options: the in-memory form takes them alone.
    const client = dataDir ? new PGlite(`${dataDir}/pgdata`) : new PGlite(image ? { loadDataDir: image } : {});
    await client.waitReady;
    const dialect = new PGliteDialect(client);
    const db = new Kysely<DB>({ dialect });
    return {
      kind: 'pglite',
      db,
      reads: db,
      poolStats: () => dialect.stats(),
      // Acquiring a Kysely connection holds the driver's mutex, so exec runs alone.
      withSession: (fn) =>
        db.connection().execute(() => fn(async (sql) => (await client.exec(sql, { parsers: PGLITE_PARSERS })).at(-1)?.rows ?? [])),
      dumpImage: () => db.connection().execute(async () => (await client.dumpDataDir('none')) as Blob),
      async close() {
        try {
          await db.destroy();
        } finally {
          unlock();
        }
      },
    };
  } catch (err) {
    unlock();
    throw err;
  }
}
