import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';
import type { Database } from '../db/database.js';
import { cacheChannelSql, fromPayload, toPayload, type NodeCache } from './node-cache.js';

export type CacheListener = { close(): Promise<void> };

type Log = {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
  error(details: object, message: string): void;
};

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;
/** How long the self-check waits for its own notification (sent through the pool) to arrive. */
const PROBE_TIMEOUT_MS = 3_000;
/** After a failed self-check the listener tries again this much later (the cache stays off meanwhile). */
const PROBE_RETRY_MS = 60_000;
/** The payload region of the self-check; no cache region has this name. */
const PROBE_REGION = 'tally.listener-probe';

/**
 * PostgreSQL: one dedicated connection per node LISTENs on the cache channel and drops the entries
 * each notification names. While it is down the cache answers nothing from memory; when it is back
 * (reconnected with backoff) the cache starts empty, since notifications sent in between are lost.
 * On PGlite there is nothing to listen to: the node is the only process (ADR 0013).
 *
 * Before the cache serves, the listener proves it hears: it sends a notification through the pool,
 * the path every invalidation takes, and waits for it on its own connection. A LISTEN that went
 * through a transaction pooler (DATABASE_LISTEN_URL not pointing at PostgreSQL itself) or to another
 * database hears nothing, so the cache stays off and the node reads every key from the database,
 * rather than answering a revoked key for a TTL (ADR 0021).
 */
export async function startCacheListener(database: Database, cache: NodeCache, log: Log): Promise<CacheListener> {
  const connect = database.connectDedicated;
  if (!connect || !cache.options.notify) return { close: async () => {} };
  let client: pg.Client | null = null;
  let closed = false;
  let retryMs = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | undefined;
  const probes = new Map<string, () => void>();

  const down = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    cache.markListening(false);
    if (!closed) {
      log.warn({}, 'cache listener disconnected; serving from the database until it reconnects');
      schedule();
    }
  };
  const schedule = (afterMs = retryMs) => {
    timer = setTimeout(() => void open(), afterMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };
  /** Whether a notification sent through the pool reaches this listener within PROBE_TIMEOUT_MS. */
  const hears = async (): Promise<boolean> => {
    const tag = randomUUID();
    const heard = new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      probes.set(tag, () => (clearTimeout(t), resolve(true)));
    });
    try {
      await sql`select pg_notify(${cacheChannelSql}, ${toPayload(PROBE_REGION, tag)})`.execute(database.db);
      return await heard;
    } finally {
      probes.delete(tag);
    }
  };
  const open = async () => {
    let c: pg.Client | undefined;
    try {
      c = await connect();
      const opened = c;
      opened.on('error', () => down(opened));
      opened.on('end', () => down(opened));
      opened.on('notification', (message) => {
        const change = fromPayload(message.payload);
        if (change?.region === PROBE_REGION) probes.get(change.tag)?.();
        else if (change) cache.invalidate(change.region, change.tag);
      });
      const { rows } = await opened.query<{ channel: string }>(`select 'tally_cache.' || current_schema() as channel`);
      await opened.query(`listen ${opened.escapeIdentifier(rows[0]!.channel)}`);
      if (closed) return void (await opened.end());
      if (!(await hears())) {
        await opened.end().catch(() => {});
        if (closed) return;
        log.error(
          { channel: rows[0]!.channel, retryInMs: PROBE_RETRY_MS },
          'cache listener hears no notifications (is DATABASE_LISTEN_URL a transaction pooler, or another database?); the node cache stays off',
        );
        return schedule(PROBE_RETRY_MS);
      }
      if (closed) return void (await opened.end());
      client = opened;
      retryMs = RETRY_MIN_MS;
      cache.markListening(true);
    } catch (err) {
      await c?.end().catch(() => {});
      if (closed) return;
      log.warn({ err }, 'cache listener could not connect; retrying');
      schedule();
    }
  };

  await open();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = null;
      cache.markListening(false);
      await c?.end().catch(() => {});
    },
  };
}
