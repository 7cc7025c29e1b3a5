import { types, type PGlite, type ParserOptions } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { parseJsonb } from './jsonb.js';

/**
 * Kysely dialect for embedded PGlite. PGlite is a single connection, so the driver hands it out to
 * one caller at a time: a transaction holds it from BEGIN to COMMIT and every other query waits.
 * That serialises writers exactly as row locks would on PostgreSQL, without interleaving statements
 * of two transactions on one session.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pg: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pg);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  readonly #connection: PGliteConnection;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(private readonly pg: PGlite) {
    this.#connection = new PGliteConnection(pg);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${level}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.#queue;
    if (!this.pg.closed) await this.pg.close();
  }
}

const identity = (value: string) => value;

/**
 * Result parsers that match node-postgres: int8 and numeric as strings (exact; PGlite would give a
 * number or bigint), date as 'YYYY-MM-DD' (no local-midnight Date), json and jsonb through the exact
 * JSON codec (numbers as safe integers or Decimals, never binary floats; db/jsonb.ts). Passed per query because PGlite
 * 0.5 does not apply constructor-level parsers.
 */
export const PGLITE_PARSERS: ParserOptions = {
  [types.INT8]: identity,
  [types.NUMERIC]: identity,
  [types.DATE]: identity,
  [types.JSON]: parseJsonb,
  [types.JSONB]: parseJsonb,
};

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pg: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pg.query<R>(query.sql, query.parameters as unknown[], { parsers: PGLITE_PARSERS });
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      ...(affected !== undefined && affected !== null && /^(insert|update|delete|merge)/i.test(query.sql.trimStart())
        ? { numAffectedRows: BigInt(affected) }
        : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on the embedded database');
  }
}
