import type { Executor } from '../../../platform/db/database.js';
import { toJsonb } from '../../../platform/db/jsonb.js';
import type { SpendDeliveryChannel, SpendDeliveryRow, SpendEventType } from '../tables.js';
import { newId } from '../../../platform/ids.js';
import { MAX_DELIVERY_ATTEMPTS } from './domain.js';

export type { SpendDeliveryRow } from '../tables.js';

/** Outbox rows of one event, one per channel, PENDING and due now. */
export function insertDeliveries(
  db: Executor,
  input: { accountId: string; type: SpendEventType; payload: Record<string, unknown>; channels: SpendDeliveryChannel[]; now: Date },
): Promise<SpendDeliveryRow[]> {
  return insertEventDeliveries(db, { ...input, payloads: [input.payload] });
}

/** Rows per INSERT statement (9 parameters each). */
const INSERT_CHUNK = 1000;

/** Outbox rows of several events of one account and type (an evaluation's alerts): one per event and channel, in event order. */
export async function insertEventDeliveries(
  db: Executor,
  input: { accountId: string; type: SpendEventType; payloads: Record<string, unknown>[]; channels: SpendDeliveryChannel[]; now: Date },
): Promise<SpendDeliveryRow[]> {
  if (input.channels.length === 0 || input.payloads.length === 0) return [];
  const rows = input.payloads.flatMap((p) => {
    const payload = toJsonb(p);
    return input.channels.map((channel) => ({
      id: newId(input.now.getTime()),
      account_id: input.accountId,
      event_type: input.type,
      channel,
      payload,
      status: 'PENDING' as const,
      attempts: 0,
      next_attempt_at: input.now,
      created_at: input.now,
    }));
  });
  const inserted: SpendDeliveryRow[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) inserted.push(...(await db.insertInto('spend_deliveries').values(rows.slice(i, i + INSERT_CHUNK)).returningAll().execute()));
  return inserted;
}

/**
 * Claims rows for an attempt: counts the attempt and moves `next_attempt_at` to the end of a lease,
 * in one conditional statement, so two nodes (or the after-commit attempt and the retry job) never
 * send one row at once; a node that dies mid-attempt leaves the row due again when the lease ends.
 * Only rows due at `now`, not SENT, with attempts left, are claimed.
 */
export function claimDeliveries(db: Executor, ids: string[], now: Date, leaseUntil: Date): Promise<SpendDeliveryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .updateTable('spend_deliveries')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: leaseUntil }))
    .where('id', 'in', ids)
    .where('status', '<>', 'SENT')
    .where('next_attempt_at', '<=', now)
    .where('attempts', '<', MAX_DELIVERY_ATTEMPTS)
    .returningAll()
    .execute();
}

/** Ids of rows due at `now` (oldest due first), for the retry job. */
export async function dueDeliveryIds(db: Executor, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('spend_deliveries')
    .select('id')
    .where('next_attempt_at', '<=', now)
    .where('status', '<>', 'SENT')
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export function markDeliverySent(db: Executor, id: string, now: Date): Promise<unknown> {
  return db.updateTable('spend_deliveries').set({ status: 'SENT', sent_at: now, next_attempt_at: null, last_error: null }).where('id', '=', id).execute();
}

export function markDeliveryFailed(db: Executor, id: string, error: string, nextAttemptAt: Date | null): Promise<unknown> {
  return db.updateTable('spend_deliveries').set({ status: 'FAILED', last_error: error, next_attempt_at: nextAttemptAt }).where('id', '=', id).execute();
}

/** The account's latest deliveries, newest first. */
export function listDeliveries(db: Executor, accountId: string, filter: { status?: 'PENDING' | 'SENT' | 'FAILED' | undefined; limit: number }): Promise<SpendDeliveryRow[]> {
  let query = db.selectFrom('spend_deliveries').selectAll().where('account_id', '=', accountId);
  if (filter.status) query = query.where('status', '=', filter.status);
  return query.orderBy('created_seq', 'desc').limit(filter.limit).execute();
}

/** Deletes finished rows (SENT, or FAILED with no attempt left) created before `before`; the due ones stay. */
export async function purgeFinishedDeliveries(db: Executor, before: Date): Promise<number> {
  const result = await db.deleteFrom('spend_deliveries').where('created_at', '<', before).where('next_attempt_at', 'is', null).executeTakeFirst();
  return Number(result.numDeletedRows);
}
