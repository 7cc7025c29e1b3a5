import type pg from 'pg';
import type { Database } from '../db/database.js';
import { fromPayload, type NodeCache } from './node-cache.js';

export type CacheListener = { close(): Promise<void> };

type Log = { warn(details: object, message: string): void; info(details: object, message: string): void };

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

/**
 * PostgreSQL: one dedicated connection per node LISTENs on the cache channel and drops the entries
 * each notification names. While it is down the cache answers nothing from memory; when it is back
 * (reconnected with backoff) the cache starts empty, since notifications sent in between are lost.
 * On PGlite there is nothing to listen to: the node is the only process (ADR 0013).
 */
export async function startCacheListener(database: Database, cache: NodeCache, log: Log): Promise<CacheListener> {
  const connect = database.connectDedicated;
  if (!connect || !cache.options.notify) return { close: async () => {} };
  let client: pg.Client | null = null;
  let closed = false;
  let retryMs = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  const down = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    cache.markListening(false);
    if (!closed) {
      log.warn({}, 'cache listener disconnected; serving from the database until it reconnects');
      schedule();
    }
  };
  const schedule = () => {
    timer = setTimeout(() => void open(), retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
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
        if (change) cache.invalidate(change.region, change.tag);
      });
      const { rows } = await opened.query<{ channel: string }>(`select 'tally_cache.' || current_schema() as channel`);
      await opened.query(`listen ${opened.escapeIdentifier(rows[0]!.channel)}`);
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
