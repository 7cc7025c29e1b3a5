import { Kysely, PostgresDialect, type DatabaseConnection, type Driver } from 'kysely';
import pg from 'pg';
import type { DB } from './tables.js';

/** What a pipelined connection needs of the pool's settings. */
export type PipelineOptions = {
  url: string;
  /** Connections in pipeline mode the node's reads share, round robin (DATABASE_PIPELINE_CONNECTIONS). */
  connections: number;
  /** Startup options (`-c search_path=...`), as the pool's. */
  settings: string[];
  types: { getTypeParser: typeof pg.types.getTypeParser };
  /** Gives each statement text a per-connection prepared-statement name (the pool's wrapper). */
  named: (pool: pg.Pool) => pg.Pool;
};

type Stream = { cork(): void; uncork(): void };

/**
 * Single statements outside any transaction, sent over a few connections in pipeline mode (ADR 0045).
 *
 * A pooled connection answers one statement per round trip: the node writes the statement, the
 * backend wakes, answers and sleeps again, and the node's next statement on that connection waits
 * for the answer. On this kind of machine the wake-ups and one send per statement are most of the
 * cost of a primary-key read (more than the read itself). Here every statement the node sends in one
 * turn of its event loop goes out in one write on a shared connection, each with its own Sync (its
 * own implicit transaction, its own error), and the backend answers them in turn without sleeping
 * between them.
 *
 * Only for statements that need no session: a transaction would interleave with the statements of
 * other requests on the same connection, so the dialect refuses to begin one. Writes that commit stay
 * on the pool, where concurrent commits share a WAL flush; here a commit would hold up every read
 * queued behind it on its connection.
 */
export function openPipelinedReads(options: PipelineOptions): { db: Kysely<DB>; close(): Promise<void> } {
  const slots: (Promise<pg.Client> | undefined)[] = Array.from({ length: options.connections }, () => undefined);
  let next = 0;
  let closed = false;

  const open = async (slot: number): Promise<pg.Client> => {
    const client = new pg.Client({
      connectionString: options.url,
      pipeline: true,
      keepAlive: true,
      ...(options.settings.length > 0 ? { options: options.settings.join(' ') } : {}),
      types: options.types,
    } as pg.ClientConfig);
    // A broken connection fails the statements on it (their callers see the error) and is replaced
    // by the next read; the event must not crash the process.
    const opened = client.connect().then(() => coalesced(client));
    const forget = () => {
      if (slots[slot] === opened) slots[slot] = undefined;
    };
    // Listening before the event loop turns: no event is emitted before this.
    client.on('error', forget);
    client.on('end', forget);
    slots[slot] = opened;
    opened.catch(forget);
    return opened;
  };

  const pool = {
    async connect() {
      if (closed) throw new Error('pipelined reads: closed');
      const slot = next++ % options.connections;
      const client = await (slots[slot] ?? open(slot));
      return Object.assign(client, { release: () => {} });
    },
    end: async () => {},
  } as unknown as pg.Pool;

  return {
    db: new Kysely<DB>({ dialect: new NoTransactionsDialect({ pool: options.named(pool) }) }),
    async close() {
      closed = true;
      const clients = slots.splice(0);
      await Promise.all(clients.map(async (s) => (await s?.catch(() => undefined))?.end().catch(() => {})));
    },
  };
}

/**
 * Holds the connection's writes from the first statement of an event-loop turn until the turn's
 * I/O callbacks have run (setImmediate), then sends them in one write.
 */
function coalesced(client: pg.Client): pg.Client {
  const stream = (client as unknown as { connection: { stream: Stream } }).connection.stream;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let held = false;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    if (!held) {
      held = true;
      stream.cork();
      setImmediate(() => {
        held = false;
        stream.uncork();
      });
    }
    return query(...args);
  };
  return client;
}

/** PostgresDialect whose driver refuses transactions (see openPipelinedReads). */
class NoTransactionsDialect extends PostgresDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const refuse = async (_connection: DatabaseConnection): Promise<void> => {
      throw new Error('pipelined reads run single statements: open transactions on the pool (ctx.db)');
    };
    driver.beginTransaction = refuse;
    return driver;
  }
}
