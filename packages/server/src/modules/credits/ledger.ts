import { sql } from 'kysely';
import type { Tx } from '../../platform/db/database.js';
import type { GrantType, TransactionType } from './tables.js';
import { AppError, conflict } from '../../platform/errors/app-error.js';
import { toJsonb } from '../../platform/db/jsonb.js';
import { arrayLiteral as arr, distinctDocuments } from '../../platform/db/array-literal.js';
import { newId } from '../../platform/ids.js';
import { dec, roundCredits, type Decimal } from '../../platform/money.js';
import { planFifoDraw, poolStatusAfter } from './domain.js';
import * as repo from './repo.js';
import { recordExpired, recordGranted, recordPoolSignals, signalsOf, type ExpiryReason } from './events.js';

/**
 * The ledger engine. Every function takes a pool row the caller has locked (repo.lockPools) inside
 * its transaction and keeps three things in step: the append-only ledger (numbered rows whose
 * balance_before is the previous balance_after), the grants' remainders, and the pool's running
 * totals, with balance = granted − consumed − expired + reversed − held = Σ grant remainders.
 * Reservations (reservations/ledger.ts) book HOLD, CAPTURE and RELEASE rows through `append` too.
 */

type Entry = {
  type: TransactionType;
  /** Signed: positive adds credits to the pool. */
  amount: Decimal;
  grantId?: string | null;
  description?: string | null;
  reversedTransactionId?: string | null;
  subscriptionId?: string | null;
  eventId?: string | null;
  idempotencyKey?: string | null;
  requestHash?: string | null;
  metadata?: Record<string, unknown>;
  /** Which grants the row drew from (deductions, expiries), recorded for reversals. */
  draws?: { grantId: string; amount: Decimal }[];
  /** New remainders of the grants the row touches, written in the same statement. */
  grantUpdates?: { grantId: string; remaining: Decimal; void?: boolean }[];
  /** Credits drawn through a subscription link (its draw limit counts them). */
  linkDrawn?: { subscriptionId: string; amount: Decimal };
  /** Signed change of the pool's held credits (HOLD, CAPTURE, RELEASE only). */
  heldChange?: Decimal;
  reservationId?: string | null;
};

/**
 * Books one ledger row against a locked pool. The row, its per-grant draws, the grants' new
 * remainders, the pool's running totals and the link's drawn total are written by one statement
 * (data-modifying CTEs), so the pool lock is held for one round trip per entry, not five.
 */
export async function append(tx: Tx, pool: repo.PoolRow, entry: Entry, now: Date): Promise<repo.TransactionRow> {
  const before = dec(pool.balance);
  const after = before.plus(entry.amount);
  const magnitude = entry.amount.abs();
  if (entry.type === 'GRANT') pool.total_granted = dec(pool.total_granted).plus(magnitude).toFixed();
  if (entry.type === 'DEDUCTION') pool.total_consumed = dec(pool.total_consumed).plus(magnitude).toFixed();
  if (entry.type === 'EXPIRATION') pool.total_expired = dec(pool.total_expired).plus(magnitude).toFixed();
  if (entry.type === 'REVERSAL') pool.total_reversed = dec(pool.total_reversed).plus(entry.amount).toFixed();
  const heldChange = entry.heldChange ?? dec(0);
  if (!heldChange.isZero()) pool.total_held = dec(pool.total_held).plus(heldChange).toFixed();
  // A capture consumes the held credits it settles plus any excess it draws from the balance.
  if (entry.type === 'CAPTURE') pool.total_consumed = dec(pool.total_consumed).minus(entry.amount).minus(heldChange).toFixed();
  pool.balance = after.toFixed();
  const fired = signalsOf(pool, before, after);
  pool.ledger_seq = String(Number(pool.ledger_seq) + 1);
  pool.status = poolStatusAfter(pool.status, pool.hard_limit, after);
  pool.modified_at = now;
  const id = newId();
  const acc = pool.account_id;
  const draws = entry.draws ?? [];
  const updates = entry.grantUpdates ?? [];
  const parts = [
    sql`t as (
      insert into credit_transactions (id, account_id, credit_pool_id, seq, credit_grant_id, transaction_type, amount, balance_before,
        balance_after, description, reversed_transaction_id, subscription_id, event_id, idempotency_key, request_hash, metadata, created_at, held_change, reservation_id)
      values (${id}, ${acc}, ${pool.id}, ${pool.ledger_seq}, ${entry.grantId ?? null}, ${entry.type}, ${entry.amount.toFixed()}, ${before.toFixed()},
        ${after.toFixed()}, ${entry.description ?? null}, ${entry.reversedTransactionId ?? null}, ${entry.subscriptionId ?? null}, ${entry.eventId ?? null},
        ${entry.idempotencyKey ?? null}, ${entry.requestHash ?? null}, ${toJsonb(entry.metadata ?? {})}::jsonb, ${now}, ${heldChange.toFixed()}, ${entry.reservationId ?? null})
      returning *)`,
    sql`p as (
      update credit_pools set balance = ${pool.balance}, total_granted = ${pool.total_granted}, total_consumed = ${pool.total_consumed},
        total_expired = ${pool.total_expired}, total_reversed = ${pool.total_reversed}, total_held = ${pool.total_held}, ledger_seq = ${pool.ledger_seq},
        status = ${pool.status}, low_balance_armed = ${pool.low_balance_armed}, depleted_armed = ${pool.depleted_armed}, modified_at = ${now}
      where account_id = ${acc} and id = ${pool.id})`,
  ];
  // The ledger's unique keys (migration 0036): claimed by the same statement, so a repeated seq, key
  // or reversal fails it with the key table's unique violation and nothing of it is written.
  parts.push(sql`ks as (insert into credit_transaction_seqs (account_id, credit_pool_id, seq, transaction_id) values (${acc}, ${pool.id}, ${pool.ledger_seq}, ${id}))`);
  if (entry.idempotencyKey) {
    parts.push(sql`ki as (insert into credit_transaction_idempotency_keys (account_id, idempotency_key, transaction_id) values (${acc}, ${entry.idempotencyKey}, ${id}))`);
  }
  if (entry.reversedTransactionId) {
    parts.push(sql`kr as (insert into credit_transaction_reversals (account_id, reversed_transaction_id, transaction_id) values (${acc}, ${entry.reversedTransactionId}, ${id}))`);
  }
  if (draws.length > 0) {
    parts.push(sql`d as (
      insert into credit_transaction_draws (account_id, transaction_id, credit_grant_id, amount)
      values ${sql.join(draws.map((d) => sql`(${acc}::uuid, ${id}::uuid, ${d.grantId}::uuid, ${d.amount.toFixed()}::numeric)`))})`);
  }
  if (updates.length > 0) {
    parts.push(sql`g as (
      update credit_grants set remaining = v.remaining, voided_at = case when v.void then ${now}::timestamptz else credit_grants.voided_at end
      from (values ${sql.join(updates.map((u) => sql`(${u.grantId}::uuid, ${u.remaining.toFixed()}::numeric, ${u.void === true}::boolean)`))}) as v(id, remaining, void)
      where credit_grants.account_id = ${acc} and credit_grants.id = v.id)`);
  }
  if (entry.linkDrawn) {
    parts.push(sql`l as (
      update credit_pool_links set total_drawn = total_drawn + ${entry.linkDrawn.amount.toFixed()}::numeric
      where account_id = ${acc} and credit_pool_id = ${pool.id} and subscription_id = ${entry.linkDrawn.subscriptionId})`);
  }
  const { rows } = await sql<repo.TransactionRow>`with ${sql.join(parts)} select * from t`.execute(tx);
  await recordPoolSignals(tx, pool, fired, now);
  return rows[0]!;
}

type GrantInput = {
  grantType: GrantType;
  amount: Decimal;
  subscriptionId?: string | null;
  invoiceId?: string | null;
  unitPrice?: Decimal | null;
  currency?: string | null;
  expiresAt?: Date | null;
  description?: string | null;
  periodStart?: Date | null;
  idempotencyKey?: string | null;
  requestHash?: string | null;
  metadata?: Record<string, unknown>;
  /** Runs after the grant is booked and before its credits.granted: the payment a purchase's grant settles is recorded first, knowing the grant (§E5.5). */
  beforeGrantedEvent?: (grantId: string) => Promise<void>;
};

/** Adds a grant to a locked pool, books it as a GRANT ledger row and records credits.granted. */
export async function grantCredits(tx: Tx, pool: repo.PoolRow, input: GrantInput, now: Date) {
  const amount = roundCredits(input.amount);
  const grant = await repo.insertGrant(tx, {
    id: newId(),
    account_id: pool.account_id,
    credit_pool_id: pool.id,
    subscription_id: input.subscriptionId ?? null,
    invoice_id: input.invoiceId ?? null,
    grant_type: input.grantType,
    amount: amount.toFixed(),
    remaining: amount.toFixed(),
    unit_price: input.unitPrice ? input.unitPrice.toFixed() : null,
    currency: input.currency ?? null,
    expires_at: input.expiresAt ?? null,
    description: input.description ?? null,
    voided_at: null,
    period_start: input.periodStart ?? null,
    idempotency_key: input.idempotencyKey ?? null,
    request_hash: input.requestHash ?? null,
    metadata: toJsonb(input.metadata ?? {}),
    created_at: now,
  });
  const transaction = await append(tx, pool, { type: 'GRANT', amount, grantId: grant.id, description: input.description ?? null, subscriptionId: input.subscriptionId ?? null }, now);
  await input.beforeGrantedEvent?.(grant.id);
  await recordGranted(tx, grant, pool, now);
  return { grant, transaction };
}

export type DrawInput = {
  type: 'DEDUCTION' | 'EXPIRATION' | 'HOLD';
  amount: Decimal;
  /** The pool's live grants, FIFO; their `remaining` is updated in place. */
  grants: repo.GrantRow[];
  description?: string | null;
  subscriptionId?: string | null;
  eventId?: string | null;
  idempotencyKey?: string | null;
  requestHash?: string | null;
  metadata?: Record<string, unknown>;
  linkDrawn?: { subscriptionId: string; amount: Decimal };
  /** HOLD: the credits drawn move into the pool's held total. */
  heldChange?: Decimal;
  reservationId?: string;
};

/** Takes `amount` from a locked pool FIFO across its unexpired grants; the caller checked it is available. */
export async function drawFromPool(tx: Tx, pool: repo.PoolRow, input: DrawInput, now: Date) {
  const plan = planFifoDraw(
    input.grants.map((g) => ({ id: g.id, remaining: dec(g.remaining), expiresAt: g.expires_at })),
    input.amount,
    now,
  );
  const drawn = plan.reduce((sum, d) => sum.plus(d.amount), dec(0));
  if (!drawn.eq(input.amount)) throw new Error(`ledger: pool ${pool.id} cannot supply ${input.amount.toFixed()} (has ${drawn.toFixed()})`);
  const grantUpdates = plan.map((d) => {
    const grant = input.grants.find((g) => g.id === d.grantId)!;
    grant.remaining = dec(grant.remaining).minus(d.amount).toFixed();
    return { grantId: grant.id, remaining: dec(grant.remaining) };
  });
  return append(tx, pool, { ...input, amount: input.amount.neg(), draws: plan, grantUpdates }, now);
}

/** Moves what is left of one grant to total_expired (expiry, rollover, claw-back) and records credits.expired. */
export async function expireGrant(
  tx: Tx,
  pool: repo.PoolRow,
  grant: repo.GrantRow,
  amount: Decimal,
  description: string,
  now: Date,
  options: { void?: boolean; reason: ExpiryReason },
) {
  const left = dec(grant.remaining).minus(amount);
  grant.remaining = left.toFixed();
  const row = await append(
    tx,
    pool,
    {
      type: 'EXPIRATION',
      amount: amount.neg(),
      grantId: grant.id,
      description,
      subscriptionId: grant.subscription_id,
      draws: [{ grantId: grant.id, amount }],
      grantUpdates: [{ grantId: grant.id, remaining: left, void: options.void === true }],
    },
    now,
  );
  await recordExpired(tx, row, pool, options.reason, now);
  return row;
}

/**
 * Reverses one ledger row, once. A reversed deduction or expiry gives back to exactly the grants it
 * drew from; a reversed grant takes its amount back out of that grant, which must still hold it.
 */
export async function reverseTransaction(tx: Tx, pool: repo.PoolRow, original: repo.TransactionRow, description: string | null, now: Date) {
  if (original.transaction_type === 'REVERSAL') throw conflict('A reversal cannot be reversed');
  if (original.transaction_type === 'HOLD' || original.transaction_type === 'RELEASE') {
    throw conflict(`A ${original.transaction_type} is settled through its reservation (capture or release), not reversed`);
  }
  if (await repo.findReversalOf(tx, pool.account_id, original.id)) throw conflict(`Transaction ${original.id} is already reversed`);
  // A capture consumed its held part and its excess: reversing it gives back both.
  const amount = original.transaction_type === 'CAPTURE' ? dec(original.amount).plus(dec(original.held_change)).neg() : dec(original.amount).neg();
  if (original.transaction_type === 'GRANT') {
    const grant = (await repo.findGrant(tx, pool.account_id, original.credit_grant_id!))!;
    if (dec(grant.remaining).lt(dec(original.amount))) {
      throw new AppError('insufficient_credits', `Credit pool depleted - grant ${grant.id} no longer holds the ${dec(original.amount).toFixed()} credits to reverse`);
    }
    const left = dec(grant.remaining).minus(dec(original.amount));
    return append(tx, pool, { type: 'REVERSAL', amount, grantId: grant.id, reversedTransactionId: original.id, description, grantUpdates: [{ grantId: grant.id, remaining: left, void: left.isZero() }] }, now);
  }
  const draws = await repo.listDraws(tx, pool.account_id, original.id);
  const grantUpdates = [];
  for (const d of draws) {
    const grant = (await repo.findGrant(tx, pool.account_id, d.credit_grant_id))!;
    grantUpdates.push({ grantId: grant.id, remaining: dec(grant.remaining).plus(dec(d.amount)) });
  }
  return append(tx, pool, { type: 'REVERSAL', amount, reversedTransactionId: original.id, description, subscriptionId: original.subscription_id, eventId: original.event_id, grantUpdates }, now);
}

/** One planned DEDUCTION row of a usage event's draw: its pool's next seq, the balance around it, the grants it drew. */
export type UsageDrawEntry = {
  id: string;
  poolId: string;
  seq: string;
  /** Signed (negative). */
  amount: Decimal;
  before: Decimal;
  after: Decimal;
  subscriptionId: string;
  eventId: string;
  /** The rendered jsonb metadata. */
  metadata: string;
  draws: { grantId: string; amount: Decimal }[];
};

/**
 * The usage draws of many events (draw.ts `openCreditDraws`): every planned ledger row with its per-grant draws, the grants' final remainders, the pools' final
 * totals and event flags and the links' drawn totals, in one statement of array parameters (one statement text
 * whatever the batch size, so it stays one named prepared statement).
 */
export async function appendUsageDraws(tx: Tx, accountId: string, entries: UsageDrawEntry[], grants: { id: string; remaining: string }[], pools: repo.PoolRow[], now: Date) {
  const draws = entries.flatMap((e) => e.draws.map((d) => ({ transactionId: e.id, grantId: d.grantId, amount: d.amount.toFixed() })));
  const linkTotals = new Map<string, { poolId: string; subscriptionId: string; amount: Decimal }>();
  for (const e of entries) {
    const k = `${e.poolId}|${e.subscriptionId}`;
    const t = linkTotals.get(k) ?? { poolId: e.poolId, subscriptionId: e.subscriptionId, amount: dec(0) };
    linkTotals.set(k, { ...t, amount: t.amount.plus(e.amount.neg()) });
  }
  const lt = [...linkTotals.values()];
  const metadata = distinctDocuments(entries.map((e) => e.metadata));
  await sql`
    with t as (
      insert into credit_transactions (id, account_id, credit_pool_id, seq, credit_grant_id, transaction_type, amount, balance_before,
        balance_after, description, reversed_transaction_id, subscription_id, event_id, idempotency_key, request_hash, metadata, created_at)
      select v.id, ${accountId}::uuid, v.pool_id, v.seq, null, 'DEDUCTION', v.amount, v.before, v.after, 'Usage event', null, v.sub_id, v.event_id, null, null, (${metadata.docs}::jsonb[])[v.meta], ${now}::timestamptz
        from unnest(${arr(entries.map((e) => e.id))}::uuid[], ${arr(entries.map((e) => e.poolId))}::uuid[], ${arr(entries.map((e) => e.seq))}::bigint[],
                    ${arr(entries.map((e) => e.amount.toFixed()))}::numeric[], ${arr(entries.map((e) => e.before.toFixed()))}::numeric[],
                    ${arr(entries.map((e) => e.after.toFixed()))}::numeric[], ${arr(entries.map((e) => e.subscriptionId))}::uuid[],
                    ${arr(entries.map((e) => e.eventId))}::uuid[], ${metadata.index}::int[])
             as v(id, pool_id, seq, amount, before, after, sub_id, event_id, meta)
      returning credit_pool_id, seq, id),
    ks as (
      insert into credit_transaction_seqs (account_id, credit_pool_id, seq, transaction_id)
      select ${accountId}::uuid, t.credit_pool_id, t.seq, t.id from t),
    d as (
      insert into credit_transaction_draws (account_id, transaction_id, credit_grant_id, amount)
      select ${accountId}::uuid, v.tid, v.gid, v.amount
        from unnest(${arr(draws.map((d) => d.transactionId))}::uuid[], ${arr(draws.map((d) => d.grantId))}::uuid[], ${arr(draws.map((d) => d.amount))}::numeric[]) as v(tid, gid, amount)),
    g as (
      update credit_grants set remaining = v.remaining
        from unnest(${arr(grants.map((g) => g.id))}::uuid[], ${arr(grants.map((g) => g.remaining))}::numeric[]) as v(id, remaining)
       where credit_grants.account_id = ${accountId} and credit_grants.id = v.id),
    p as (
      update credit_pools set balance = v.balance, total_consumed = v.consumed, ledger_seq = v.seq, status = v.status,
             low_balance_armed = v.low_armed, depleted_armed = v.depleted_armed, modified_at = ${now}::timestamptz
        from unnest(${arr(pools.map((p) => p.id))}::uuid[], ${arr(pools.map((p) => p.balance))}::numeric[], ${arr(pools.map((p) => p.total_consumed))}::numeric[],
                    ${arr(pools.map((p) => p.ledger_seq))}::bigint[], ${arr(pools.map((p) => p.status))}::text[],
                    ${arr(pools.map((p) => String(p.low_balance_armed)))}::boolean[], ${arr(pools.map((p) => String(p.depleted_armed)))}::boolean[])
             as v(id, balance, consumed, seq, status, low_armed, depleted_armed)
       where credit_pools.account_id = ${accountId} and credit_pools.id = v.id),
    l as (
      update credit_pool_links set total_drawn = credit_pool_links.total_drawn + v.amount
        from unnest(${arr(lt.map((x) => x.poolId))}::uuid[], ${arr(lt.map((x) => x.subscriptionId))}::uuid[], ${arr(lt.map((x) => x.amount.toFixed()))}::numeric[]) as v(pool_id, sub_id, amount)
       where credit_pool_links.account_id = ${accountId} and credit_pool_links.credit_pool_id = v.pool_id and credit_pool_links.subscription_id = v.sub_id)
    select count(*) from t`.execute(tx);
}
