import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { AppError } from '../errors/app-error.js';

/** How long a stored outcome is replayed; the purge job deletes older records. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const HEADER = 'idempotency-key';

type Reservation = { accountId: string; scope: string; key: string };

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
    idempotency?: Reservation;
  }
}

/**
 * `Idempotency-Key` on mutating Client API calls. The key is reserved (IN_PROGRESS) in its own
 * committed insert before the handler runs, so of two concurrent first requests exactly one
 * executes; the other gets 409 `idempotency_conflict` ("still in progress"). The outcome is stored
 * before the response leaves (2xx and 4xx; a 5xx releases the key so a retry re-executes). Identity
 * is (account, "METHOD path", key); the request hash is SHA-256 of the raw body bytes.
 *
 * Known limit: a process that dies after its handler committed but before the outcome was stored
 * leaves the key IN_PROGRESS until the purge, so retries get 409 instead of a second execution.
 */
export function registerIdempotency(app: FastifyInstance, db: Db, clock: Clock): void {
  // preValidation, so that validation failures (4xx) are stored and replayed like any other answer.
  app.addHook('preValidation', async (request, reply) => {
    const key = request.headers[HEADER];
    if (key === undefined || !MUTATING.has(request.method) || !request.principal) return;
    const path = request.url.split('?', 1)[0]!;
    if (!path.startsWith('/api/v1/client/')) return;
    if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
      throw new AppError('validation_failed', 'Idempotency-Key must be 1-255 characters');
    }
    const reservation = { accountId: request.principal.accountId, scope: `${request.method} ${path}`, key };
    const requestHash = createHash('sha256').update(request.rawBody ?? '').digest('hex');
    if (await reserve(db, reservation, requestHash, clock.now())) {
      request.idempotency = reservation;
      return;
    }
    return replay(db, reservation, requestHash, reply);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const reservation = request.idempotency;
    if (!reservation) return payload;
    reply.header('Idempotency-Key', reservation.key);
    if (reply.statusCode >= 500) {
      await db
        .deleteFrom('idempotency_records')
        .where('account_id', '=', reservation.accountId)
        .where('scope', '=', reservation.scope)
        .where('idempotency_key', '=', reservation.key)
        .execute();
    } else {
      await db
        .updateTable('idempotency_records')
        .set({
          state: 'COMPLETED',
          response_status: reply.statusCode,
          response_content_type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
          response_body: typeof payload === 'string' ? payload : payload == null ? '' : String(payload),
        })
        .where('account_id', '=', reservation.accountId)
        .where('scope', '=', reservation.scope)
        .where('idempotency_key', '=', reservation.key)
        .execute();
    }
    return payload;
  });
}

/** Inserts an IN_PROGRESS record, or takes over an expired one. True when this request owns the key. */
async function reserve(db: Db, r: Reservation, requestHash: string, now: Date): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_records')
    .values({
      account_id: r.accountId,
      scope: r.scope,
      idempotency_key: r.key,
      request_hash: requestHash,
      state: 'IN_PROGRESS',
      created_at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('idempotency_key')
    .executeTakeFirst();
  if (inserted) return true;
  const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
  const takenOver = await db
    .updateTable('idempotency_records')
    .set({ request_hash: requestHash, state: 'IN_PROGRESS', created_at: now, response_status: null, response_body: null })
    .where('account_id', '=', r.accountId)
    .where('scope', '=', r.scope)
    .where('idempotency_key', '=', r.key)
    .where('created_at', '<', expiredBefore)
    .returning('idempotency_key')
    .executeTakeFirst();
  return takenOver !== undefined;
}

async function replay(db: Db, r: Reservation, requestHash: string, reply: FastifyReply) {
  const existing = await db
    .selectFrom('idempotency_records')
    .selectAll()
    .where('account_id', '=', r.accountId)
    .where('scope', '=', r.scope)
    .where('idempotency_key', '=', r.key)
    .executeTakeFirst();
  if (!existing || existing.state === 'IN_PROGRESS') {
    // Missing means its first request failed with a 5xx a moment ago; a retry will re-execute.
    throw new AppError('idempotency_conflict', 'Request with this Idempotency-Key is still in progress');
  }
  if (existing.request_hash !== requestHash) {
    throw new AppError(
      'idempotency_conflict',
      `Idempotency-Key '${r.key}' was already used with a different request body`,
    );
  }
  return reply
    .code(existing.response_status ?? 200)
    .header('content-type', existing.response_content_type ?? 'application/json; charset=utf-8')
    .header('Idempotency-Key', r.key)
    .header('Idempotent-Replayed', 'true')
    .send(existing.response_body ?? '');
}

/** Deletes records older than the replay window; run by the hourly purge job. */
export async function purgeExpiredIdempotencyRecords(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_records')
    .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

