import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../clock.js';
import type { Db, Tx } from '../db/database.js';
import { runRecorded, type TransactionRecorder } from '../db/transaction.js';
import { AppError } from '../errors/app-error.js';
import { newId } from '../ids.js';
import type { NodeBoot } from '../node-boot.js';
import { Decimal, isDecimal } from '../money.js';
import type { SecretBox } from '../security/secrets.js';

/** How long a stored outcome is replayed; the purge job deletes older records. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * How long a request owns its key without committing anything new. A retry within it answers 409
 * "still in progress"; after it, a retry takes the key over (its first owner is presumed dead).
 */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const HEADER = 'idempotency-key';

type Identity = { accountId: string; scope: string; key: string };
/** One request's ownership of a key: its attempt id fences every write it makes to the record. */
type Claim = Identity & {
  attemptId: string;
  /** Encoded results of the transactions committed under this key so far (by any attempt). */
  committed: unknown[];
  /** `committed_results` as stored (sealed, or `[]`): the fence each journal write compares against. */
  stored: string;
  /** How many of `committed` an earlier attempt left: those transactions are not run again. */
  inherited: number;
  replayed: boolean;
  active: boolean;
};

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
    idempotency?: Claim;
  }
}

/**
 * `Idempotency-Key` on mutating Client API calls (contract §1.6, ADR 0004). Identity is (account,
 * "METHOD path", key); the request hash is SHA-256 of the raw body bytes.
 *
 * - Claim: an IN_PROGRESS record with a fresh attempt id and a lease is inserted (committed)
 *   before the handler runs, so of two concurrent first requests exactly one executes; the other
 *   gets 409 `idempotency_conflict` ("still in progress").
 * - Every transaction the handler opens (withTransaction, withStatement) appends its result to the
 *   record inside that transaction, fenced by the attempt id: effects and "these effects happened"
 *   commit together, and an attempt that lost its lease cannot commit at all.
 * - The reply (2xx, 4xx) is stored before it leaves. A 5xx, and a gated answer (402, a gated 403:
 *   api-contract-agent-v2.md §1.4), releases the key if nothing committed; if something did, the
 *   record stays and its lease ends at once, so a retry runs again with the committed work replayed.
 * - A retry after the lease of a record its owner never finished takes it over and runs the handler
 *   again, with the transactions already committed replaced by their recorded results: nothing
 *   committed runs twice, and the reply is rebuilt from what was committed.
 * - A lease names the node and boot epoch that hold it (ADR 0033): once that node has booted again,
 *   its previous process is gone, and a retry takes the key over at once instead of after the lease.
 * - The stored reply and the journal are sealed with `secrets` (ADR 0004, decision 3): a reply or a
 *   transaction result may carry a credential (a new customer key), and the record lives 24 hours.
 */
export function registerIdempotency(app: FastifyInstance, db: Db, clock: Clock, secrets: SecretBox, node: () => NodeBoot | undefined): void {
  const seal = sealer(secrets);
  // preValidation, so that validation failures (4xx) are stored and replayed like any other answer.
  app.addHook('preValidation', async (request, reply) => {
    const key = request.headers[HEADER];
    if (key === undefined || !MUTATING.has(request.method) || !request.principal) return;
    const path = request.url.split('?', 1)[0]!;
    if (!path.startsWith('/api/v1/client/')) return;
    if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
      throw new AppError('validation_failed', 'Idempotency-Key must be 1-255 characters');
    }
    const identity = { accountId: request.principal.accountId, scope: `${request.method} ${path}`, key };
    const requestHash = createHash('sha256').update(request.rawBody ?? '').digest('hex');
    const claim = await claimKey(db, seal, identity, requestHash, clock.now(), node());
    if (claim) {
      request.idempotency = claim;
      return;
    }
    return replay(db, seal, identity, requestHash, reply);
  });

  // The handler (and the hooks after this one) run with their transactions recorded.
  app.addHook('preHandler', (request, _reply, done) => {
    const claim = request.idempotency;
    if (!claim) return done();
    runRecorded(recorder(claim, clock, seal), done);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    claim.active = false;
    reply.header('Idempotency-Key', claim.key);
    if (claim.replayed) reply.header('Idempotent-Replayed', 'true');
    // A gated answer (api-contract-agent-v2.md §1.4) is not stored: a retry after its gate clears runs again.
    if (reply.statusCode >= 500 || request.gated) await release(db, claim, clock.now());
    else {
      await ownRecord(db.updateTable('idempotency_records'), claim)
        .set({
          state: 'COMPLETED',
          lease_until: null,
          response_status: reply.statusCode,
          response_content_type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
          response_body: seal.close(claim, 'response_body', typeof payload === 'string' ? payload : payload == null ? '' : String(payload)),
        })
        .execute();
    }
    return payload;
  });
}

type Filterable<Q> = { where(column: 'account_id' | 'scope' | 'idempotency_key' | 'attempt_id' | 'state', op: '=', value: string): Q };

const ofKey = <Q extends Filterable<Q>>(query: Q, r: Identity): Q =>
  query.where('account_id', '=', r.accountId).where('scope', '=', r.scope).where('idempotency_key', '=', r.key);

/** The record, only while this attempt still owns it. */
const ownRecord = <Q extends Filterable<Q>>(query: Q, claim: Claim): Q =>
  ofKey(query, claim).where('attempt_id', '=', claim.attemptId).where('state', '=', 'IN_PROGRESS');

/**
 * Seals what a record stores of a reply or of its transactions (ADR 0004, decision 3). The context
 * binds a sealed value to its record and column: it does not open in another record or the other
 * column. Records written before sealing hold plain text, which `open` passes through: a sealed
 * value has the shape `v1.<keyId>.<iv>.<ciphertext>.<tag>`, which no JSON text nor empty body has.
 */
type Sealer = {
  close(r: Identity, column: SealedColumn, plaintext: string): string;
  open(r: Identity, column: SealedColumn, stored: string): string;
};
type SealedColumn = 'response_body' | 'committed_results';

const SEALED = /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

function sealer(secrets: SecretBox): Sealer {
  // JSON, not a separator: scope and key are free text and could contain any separator.
  const context = (r: Identity, column: SealedColumn) => `idempotency:${JSON.stringify([r.accountId, r.scope, r.key, column])}`;
  return {
    close: (r, column, plaintext) => secrets.seal(plaintext, context(r, column)),
    open: (r, column, stored) => (SEALED.test(stored) ? secrets.open(stored, context(r, column)) : stored),
  };
}

/** The empty journal: stored in plain, since it holds nothing (and `release` matches it as such). */
const EMPTY_JOURNAL = '[]';

function recorder(claim: Claim, clock: Clock, seal: Sealer): TransactionRecorder {
  return {
    get active() {
      return claim.active;
    },
    recorded(index) {
      if (index >= claim.inherited) return undefined;
      claim.replayed = true;
      return { value: decodeResult(claim.committed[index]) };
    },
    async record(tx: Tx, index: number, value: unknown) {
      const after = [...claim.committed.slice(0, index), encodeResult(value)];
      const stored = seal.close(claim, 'committed_results', JSON.stringify(after));
      const now = clock.now();
      const owned = await ownRecord(tx.updateTable('idempotency_records'), claim)
        .set({ committed_results: stored, lease_until: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS) })
        .where('committed_results', '=', claim.stored)
        .returning('attempt_id')
        .executeTakeFirst();
      // Another request took the key over (this one outlived its lease): roll this work back.
      if (!owned) throw new AppError('idempotency_conflict', 'Request with this Idempotency-Key was taken over by a retry');
      claim.committed = after;
      claim.stored = stored;
    },
  };
}

/**
 * A 5xx: if nothing committed under the key, delete the record so a retry executes afresh; if
 * something did (the database decides, not this process's memory), end the lease now so a retry
 * takes over at once and replays what committed.
 */
async function release(db: Db, claim: Claim, now: Date) {
  const deleted = await ownRecord(db.deleteFrom('idempotency_records'), claim).where('committed_results', '=', EMPTY_JOURNAL).executeTakeFirst();
  if (Number(deleted.numDeletedRows) > 0) return;
  await ownRecord(db.updateTable('idempotency_records'), claim).set({ lease_until: now }).execute();
}

/**
 * Claims the key: a new record, a record older than the replay window, or an unfinished record
 * whose lease ran out (same body only). Undefined when another request owns it or it is finished.
 */
async function claimKey(db: Db, seal: Sealer, r: Identity, requestHash: string, now: Date, node: NodeBoot | undefined): Promise<Claim | undefined> {
  const attemptId = newId();
  const leaseUntil = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS);
  const claim = (stored: string): Claim => {
    const committed = JSON.parse(seal.open(r, 'committed_results', stored)) as unknown[];
    return { ...r, attemptId, committed, stored, inherited: committed.length, replayed: false, active: true };
  };
  const owner = { owner_node: node?.nodeId ?? null, owner_epoch: node?.epoch ?? null };
  const fresh = { request_hash: requestHash, state: 'IN_PROGRESS' as const, attempt_id: attemptId, lease_until: leaseUntil, ...owner, committed_results: EMPTY_JOURNAL, created_at: now };
  const inserted = await db
    .insertInto('idempotency_records')
    .values({ account_id: r.accountId, scope: r.scope, idempotency_key: r.key, ...fresh })
    .onConflict((oc) => oc.doNothing())
    .returning('idempotency_key')
    .executeTakeFirst();
  if (inserted) return claim(EMPTY_JOURNAL);
  const expired = await ofKey(db.updateTable('idempotency_records'), r)
    .set({ ...fresh, response_status: null, response_content_type: null, response_body: null })
    .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS))
    .returning('idempotency_key')
    .executeTakeFirst();
  if (expired) return claim(EMPTY_JOURNAL);
  const abandoned = await ofKey(db.updateTable('idempotency_records'), r)
    .set({ attempt_id: attemptId, lease_until: leaseUntil, ...owner })
    .where('state', '=', 'IN_PROGRESS')
    .where('request_hash', '=', requestHash)
    .where((eb) =>
      eb.or([
        eb('lease_until', '<=', now),
        // Its holder's node has booted since: the process that held it is gone (ADR 0033).
        eb.exists(
          eb
            .selectFrom('node_boots as b')
            .select('b.node_id')
            .whereRef('b.node_id', '=', 'idempotency_records.owner_node')
            .whereRef('b.epoch', '>', 'idempotency_records.owner_epoch'),
        ),
      ]),
    )
    .returning('committed_results')
    .executeTakeFirst();
  return abandoned ? claim(abandoned.committed_results) : undefined;
}

async function replay(db: Db, seal: Sealer, r: Identity, requestHash: string, reply: FastifyReply) {
  const existing = await ofKey(db.selectFrom('idempotency_records').selectAll(), r).executeTakeFirst();
  if (existing && existing.request_hash !== requestHash) {
    throw new AppError('idempotency_conflict', `Idempotency-Key '${r.key}' was already used with a different request body`);
  }
  if (!existing || existing.state === 'IN_PROGRESS') {
    // Missing means its first request failed with a 5xx a moment ago; a retry will re-execute.
    throw new AppError('idempotency_conflict', 'Request with this Idempotency-Key is still in progress');
  }
  return reply
    .code(existing.response_status ?? 200)
    .header('content-type', existing.response_content_type ?? 'application/json; charset=utf-8')
    .header('Idempotency-Key', r.key)
    .header('Idempotent-Replayed', 'true')
    .send(seal.open(r, 'response_body', existing.response_body ?? ''));
}

/** Deletes records older than the replay window; run by the hourly purge job. */
export async function purgeExpiredIdempotencyRecords(db: Db, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_records')
    .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * A transaction's result as JSON that decodes to the same JS values: Dates, Decimals, bigints,
 * undefined and non-finite numbers are tagged, and every plain object is wrapped (`{ $: 'o' }`),
 * so no value can be mistaken for a tag. Other class instances keep their own enumerable fields
 * only; functions and symbols are dropped. Key order is kept, so a rebuilt reply is byte-identical.
 */
export function encodeResult(value: unknown): unknown {
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return { $: 'u' };
    case 'bigint':
      return { $: 'n', v: value.toString() };
    case 'number':
      return Number.isFinite(value) ? value : { $: 'f', v: String(value) };
    case 'string':
    case 'boolean':
      return value;
  }
  if (value === null) return null;
  if (value instanceof Date) return { $: 'd', v: value.getTime() };
  if (isDecimal(value)) return { $: 'dec', v: value.toString() };
  if (Array.isArray(value)) return value.map(encodeResult);
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) fields[k] = encodeResult(v);
  return { $: 'o', v: fields };
}

export function decodeResult(encoded: unknown): unknown {
  if (encoded === null || typeof encoded !== 'object') return encoded;
  if (Array.isArray(encoded)) return encoded.map(decodeResult);
  const { $: tag, v } = encoded as { $: string; v: unknown };
  switch (tag) {
    case 'u':
      return undefined;
    case 'n':
      return BigInt(v as string);
    case 'f':
      return Number(v);
    case 'd':
      return new Date(v as number);
    case 'dec':
      return new Decimal(v as string);
    case 'o':
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, decodeResult(x)]));
    default:
      throw new Error(`Unknown tag in a recorded transaction result: ${tag}`);
  }
}
