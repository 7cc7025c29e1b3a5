import { parse, protocol, types, type PGlite, type ParserOptions } from '@electric-sql/pglite';
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
  #driver: PGliteDriver | undefined;
  constructor(private readonly pg: PGlite) {}
  /** The one connection (idle when no caller holds it) and the callers queued for it (/metrics). */
  stats(): { total: number; idle: number; waiting: number } {
    return this.#driver?.stats() ?? { total: 1, idle: 1, waiting: 0 };
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return (this.#driver = new PGliteDriver(this.pg));
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
  #waiting = 0;
  #held = false;

  constructor(private readonly pg: PGlite) {
    this.#connection = new PGliteConnection(pg);
  }

  async init(): Promise<void> {}

  stats() {
    return { total: 1, idle: this.#held ? 0 : 1, waiting: this.#waiting };
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => (release = resolve));
    this.#waiting += 1;
    try {
      await previous;
    } finally {
      this.#waiting -= 1;
    }
    this.#held = true;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await (connection as PGliteConnection).control(`begin${level}`);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).control('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).control('rollback');
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    this.#held = false;
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

/** Distinct statement texts kept as named prepared statements on the one session. */
const MAX_NAMED_STATEMENTS = 500;

type Prepared = { name: string; paramTypes: number[] };

/**
 * Runs each parameterised query text as a named prepared statement: the first call parses it and
 * learns its parameter types (Parse + Describe), every call then sends Bind, Describe, Execute and
 * Sync as one protocol message. PGlite's `query` sends six messages one by one and parses and
 * plans the text every time; this is about a third of its cost per statement (ADR 0014). Values are
 * serialized and rows parsed exactly as `query` does (PGlite's serializers by parameter type, its
 * parsers plus PGLITE_PARSERS). Prepared statements are not transactional, so a rollback keeps them;
 * a text that fails to prepare is not remembered. A query without parameters runs as one unnamed
 * statement in one message; texts beyond MAX_NAMED_STATEMENTS go through `query` unchanged.
 */
class PGliteConnection implements DatabaseConnection {
  readonly #prepared = new Map<string, Prepared>();
  /**
   * PGlite's parsers (built at start-up, array types included) with PGLITE_PARSERS on top, merged
   * once: passing `parsers` per call makes PGlite copy its whole table (hundreds of array types)
   * on every query, a fifth of the embedded server's CPU time per statement.
   */
  #parsers: PGlite['parsers'] | undefined;

  constructor(private readonly pg: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.pg.closed) throw new Error('PGlite is closed');
    const parameters = query.parameters as unknown[];
    const result = await this.#run(query.sql, parameters);
    const affected = result.affectedRows;
    return {
      rows: result.rows as R[],
      ...(affected !== undefined && affected !== null && /^(insert|update|delete|merge)/i.test(query.sql.trimStart())
        ? { numAffectedRows: BigInt(affected) }
        : {}),
    };
  }

  /** BEGIN, COMMIT or ROLLBACK: one simple-protocol message (Query + its ReadyForQuery). */
  async control(text: 'commit' | 'rollback' | `begin${string}`): Promise<void> {
    await this.pg.execProtocol(protocol.serialize.query(text));
  }

  async #run(text: string, parameters: unknown[]): Promise<{ rows: unknown[]; affectedRows?: number }> {
    try {
      if (parameters.length === 0) {
        // One unnamed statement, as `query` would run it, in one message.
        return this.#results(await this.pg.execProtocol(concat([protocol.serialize.parse({ text }), ...portal('')])));
      }
      const prepared = await this.#prepare(text);
      if (!prepared) return await this.pg.query(text, parameters, { parsers: PGLITE_PARSERS });
      const values = parameters.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serializer = this.pg.serializers[prepared.paramTypes[i]!];
        return serializer ? serializer(value) : String(value);
      });
      return this.#results(await this.pg.execProtocol(concat(portal(prepared.name, values))));
    } catch (err) {
      // As PGlite's query does: the failing statement travels with the error (logs only).
      if (err && typeof err === 'object') Object.assign(err, { query: text, params: parameters });
      throw err;
    }
  }

  async #prepare(text: string): Promise<Prepared | undefined> {
    const known = this.#prepared.get(text);
    if (known || this.#prepared.size >= MAX_NAMED_STATEMENTS) return known;
    const name = `tally_${this.#prepared.size}`;
    const { messages } = await this.pg.execProtocol(
      concat([protocol.serialize.parse({ name, text }), protocol.serialize.describe({ type: 'S', name }), protocol.serialize.sync()]),
    );
    const prepared = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    this.#prepared.set(text, prepared);
    return prepared;
  }

  #results({ messages }: { messages: Parameters<typeof parse.parseResults>[0] }) {
    this.#parsers ??= { ...this.pg.parsers, ...PGLITE_PARSERS };
    return parse.parseResults(messages, this.#parsers)[0]!;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported on the embedded database');
  }
}

/** Bind (the statement and its text values), Describe Portal, Execute, Sync. */
function portal(statement: string, values: (string | null)[] = []): Uint8Array[] {
  return [protocol.serialize.bind({ statement, values }), protocol.serialize.describe({ type: 'P' }), protocol.serialize.execute({}), protocol.serialize.sync()];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
