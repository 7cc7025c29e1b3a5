import type { AppContext } from '../../../platform/context.js';
import { withAdvisoryLock } from '../../../platform/db/advisory-lock.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { notFound } from '../../../platform/errors/app-error.js';
import { evaluateBudgets } from '../alerts/service.js';
import { callVendor, getConnectionRow, markConnectionError, toConnectionView, vendorRefusal } from '../connections/service.js';
import * as connections from '../connections/repo.js';
import type { DeliveryLog } from '../deliveries/service.js';
import type { ConnectionRow } from '../connections/repo.js';
import { chunkRowsOf, chunksOf, rowCountOf, zeroRowMessage } from './domain.js';
import { countStoredRows, insertChunkRows } from './repo.js';
import { chunkDaysOf, type DayWindow } from '../vendors/index.js';

/**
 * The chunked sync (contract §7.2). Per chunk of ≤ chunkDaysOf(provider) days: the vendor is called
 * with no transaction open, then one transaction replaces the connection's rows in the chunk
 * (usage buckets, vendor costs, actor metrics). A chunk that comes back empty where rows are stored
 * keeps them and the connection ends in ERROR (an outage must not erase history). Syncs of one
 * connection never interleave: a per-connection lock (in-process, plus a PostgreSQL advisory lock
 * across nodes) is held from the first chunk to the last.
 */

export type SyncLog = DeliveryLog;
export type SyncResult = { connectionId: string; from: string; to: string; rowsWritten: number };

export async function syncConnection(ctx: AppContext, input: { accountId: string; connectionId: string; window: DayWindow; log: SyncLog }): Promise<SyncResult> {
  const { accountId, connectionId, window, log } = input;
  await getConnectionRow(ctx, accountId, connectionId); // 404 before waiting on a lock
  return withConnectionLock(ctx, connectionId, async () => {
    // Read again under the lock: the key, status or the connection itself may have changed.
    let row = await getConnectionRow(ctx, accountId, connectionId);
    const chunks = chunksOf(window, chunkDaysOf(row.provider));
    await connections.updateConnection(ctx.db, accountId, connectionId, { sync_chunks_done: 0, sync_chunks_total: chunks.length });
    const owner = { accountId, connectionId, provider: row.provider };
    const kept: { chunk: DayWindow; stored: number }[] = [];
    let rowsWritten = 0;
    for (const [index, chunk] of chunks.entries()) {
      const outcome = await callVendor(ctx, row, (client) => client.pull(chunk));
      if (!outcome.ok) {
        log.warn({ connectionId, chunk, error: outcome.message }, 'spend sync: the vendor refused a chunk');
        throw vendorRefusal(outcome.message, toConnectionView(outcome.row));
      }
      row = outcome.row;
      const rows = chunkRowsOf(outcome.value, chunk);
      const written = await withTransaction(ctx.db, async (tx) => {
        if (!(await connections.lockLiveConnection(tx, accountId, connectionId))) throw notFound(`Connection ${connectionId} not found`);
        const count = rowCountOf(rows);
        const stored = count === 0 ? await countStoredRows(tx, owner, chunk) : 0;
        if (stored > 0) kept.push({ chunk, stored });
        else {
          await connections.deletePulledRows(tx, accountId, connectionId, chunk);
          await insertChunkRows(tx, owner, rows);
        }
        await connections.updateConnection(tx, accountId, connectionId, { sync_chunks_done: index + 1 });
        return stored > 0 ? 0 : count;
      });
      rowsWritten += written;
      log.info(
        { connectionId, provider: row.provider, chunk, chunksDone: index + 1, chunksTotal: chunks.length, rowsWritten: written, ...(rows.outside ? { rowsOutsideChunk: rows.outside } : {}), ...(written === 0 && kept.at(-1)?.chunk === chunk ? { keptStoredRows: kept.at(-1)!.stored } : {}) },
        'spend sync chunk',
      );
    }
    if (kept.length > 0) {
      const message = zeroRowMessage(kept);
      log.warn({ connectionId, kept }, 'spend sync: empty chunks kept their stored rows');
      throw vendorRefusal(message, toConnectionView(await markConnectionError(ctx, row, message)));
    }
    await connections.updateConnection(ctx.db, accountId, connectionId, { status: 'ACTIVE', last_error: null, last_synced_at: ctx.clock.now(), modified_at: ctx.clock.now() });
    await evaluateBudgetsAfterSync(ctx, row, log);
    return { connectionId, from: window.from, to: window.to, rowsWritten };
  });
}

/**
 * Contract §7.2 "a successful sync runs a budget evaluation afterwards": called once after every sync
 * that ended ACTIVE, outside any transaction. Its failure is logged and never fails the sync (the
 * pulled rows are committed; the minute-30 job evaluates again).
 */
export async function evaluateBudgetsAfterSync(ctx: AppContext, connection: ConnectionRow, log: SyncLog): Promise<void> {
  try {
    await evaluateBudgets(ctx, connection.account_id, log);
  } catch (err) {
    log.warn({ accountId: connection.account_id, connectionId: connection.id, error: (err as Error).message }, 'spend sync: the budget evaluation after the sync failed');
  }
}

const inProcess = new Map<string, Promise<void>>();

/**
 * Runs fn holding the connection's sync lock. In-process waiters queue on a promise chain; on
 * PostgreSQL a transaction-scoped advisory lock held in an idle transaction of its own
 * (`withAdvisoryLock`, safe behind a transaction pooler) also keeps other nodes out. PGlite is one
 * process by its data-directory lock, so the chain is enough there.
 */
async function withConnectionLock<T>(ctx: AppContext, connectionId: string, fn: () => Promise<T>): Promise<T> {
  const previous = inProcess.get(connectionId) ?? Promise.resolve();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const mine = previous.then(() => gate);
  inProcess.set(connectionId, mine);
  await previous;
  try {
    // Other nodes: a transaction-scoped advisory lock held while fn runs (ADR 0021).
    const outcome = await withAdvisoryLock(ctx.database, `spend_sync:${connectionId}`, 'wait', fn);
    if (!outcome.acquired) throw new Error('a waiting advisory lock is always acquired');
    return outcome.value;
  } finally {
    release();
    if (inProcess.get(connectionId) === mine) inProcess.delete(connectionId);
  }
}
