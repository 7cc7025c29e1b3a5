import type { Tx } from '../../platform/db/database.js';
import type { GrantType, TransactionType } from '../../platform/db/tables.js';
import { AppError, conflict } from '../../platform/errors/app-error.js';
import { stringifyJsonForStorage } from '../../platform/http/json.js';
import { newId } from '../../platform/ids.js';
import { dec, roundCredits, type Decimal } from '../../platform/money.js';
import { planFifoDraw, poolStatusAfter } from './domain.js';
import * as repo from './repo.js';

/**
 * The ledger engine. Every function takes a pool row the caller has locked (repo.lockPools) inside
 * its transaction and keeps three things in step: the append-only ledger (numbered rows whose
 * balance_before is the previous balance_after), the grants' remainders, and the pool's running
 * totals, with balance = granted − consumed − expired + reversed = Σ grant remainders.
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
  draws?: { grantId: string; amount: Decimal }[];
};

async function append(tx: Tx, pool: repo.PoolRow, entry: Entry, now: Date): Promise<repo.TransactionRow> {
  const before = dec(pool.balance);
  const after = before.plus(entry.amount);
  const magnitude = entry.amount.abs();
  if (entry.type === 'GRANT') pool.total_granted = dec(pool.total_granted).plus(magnitude).toFixed();
  if (entry.type === 'DEDUCTION') pool.total_consumed = dec(pool.total_consumed).plus(magnitude).toFixed();
  if (entry.type === 'EXPIRATION') pool.total_expired = dec(pool.total_expired).plus(magnitude).toFixed();
  if (entry.type === 'REVERSAL') pool.total_reversed = dec(pool.total_reversed).plus(entry.amount).toFixed();
  pool.balance = after.toFixed();
  pool.ledger_seq = String(Number(pool.ledger_seq) + 1);
  pool.status = poolStatusAfter(pool.status, pool.hard_limit, after);
  pool.modified_at = now;
  const row = await repo.insertTransaction(tx, {
    id: newId(),
    account_id: pool.account_id,
    credit_pool_id: pool.id,
    seq: pool.ledger_seq,
    credit_grant_id: entry.grantId ?? null,
    transaction_type: entry.type,
    amount: entry.amount.toFixed(),
    balance_before: before.toFixed(),
    balance_after: after.toFixed(),
    description: entry.description ?? null,
    reversed_transaction_id: entry.reversedTransactionId ?? null,
    subscription_id: entry.subscriptionId ?? null,
    event_id: entry.eventId ?? null,
    idempotency_key: entry.idempotencyKey ?? null,
    request_hash: entry.requestHash ?? null,
    metadata: stringifyJsonForStorage(entry.metadata ?? {}),
    created_at: now,
  });
  await repo.insertDraws(
    tx,
    (entry.draws ?? []).map((d) => ({ account_id: pool.account_id, transaction_id: row.id, credit_grant_id: d.grantId, amount: d.amount.toFixed() })),
  );
  await repo.updatePoolTotals(tx, pool);
  return row;
}

export type GrantInput = {
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
};

/** Adds a grant to a locked pool and books it as a GRANT ledger row. */
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
    metadata: stringifyJsonForStorage(input.metadata ?? {}),
    created_at: now,
  });
  const transaction = await append(tx, pool, { type: 'GRANT', amount, grantId: grant.id, description: input.description ?? null, subscriptionId: input.subscriptionId ?? null }, now);
  return { grant, transaction };
}

export type DrawInput = {
  type: 'DEDUCTION' | 'EXPIRATION';
  amount: Decimal;
  /** The pool's live grants, FIFO; their `remaining` is updated in place. */
  grants: repo.GrantRow[];
  description?: string | null;
  subscriptionId?: string | null;
  eventId?: string | null;
  idempotencyKey?: string | null;
  requestHash?: string | null;
  metadata?: Record<string, unknown>;
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
  for (const d of plan) {
    const grant = input.grants.find((g) => g.id === d.grantId)!;
    grant.remaining = dec(grant.remaining).minus(d.amount).toFixed();
    await repo.setGrantRemaining(tx, pool.account_id, grant.id, grant.remaining);
  }
  return append(tx, pool, { ...input, amount: input.amount.neg(), draws: plan }, now);
}

/** Moves what is left of one grant to total_expired (expiry, rollover, claw-back). */
export async function expireGrant(tx: Tx, pool: repo.PoolRow, grant: repo.GrantRow, amount: Decimal, description: string, now: Date, options: { void?: boolean } = {}) {
  const left = dec(grant.remaining).minus(amount);
  grant.remaining = left.toFixed();
  await repo.setGrantRemaining(tx, pool.account_id, grant.id, grant.remaining, options.void ? now : undefined);
  return append(tx, pool, { type: 'EXPIRATION', amount: amount.neg(), grantId: grant.id, description, subscriptionId: grant.subscription_id, draws: [{ grantId: grant.id, amount }] }, now);
}

/**
 * Reverses one ledger row, once. A reversed deduction or expiry gives back to exactly the grants it
 * drew from; a reversed grant takes its amount back out of that grant, which must still hold it.
 */
export async function reverseTransaction(tx: Tx, pool: repo.PoolRow, original: repo.TransactionRow, description: string | null, now: Date) {
  if (original.transaction_type === 'REVERSAL') throw conflict('A reversal cannot be reversed');
  if (await repo.findReversalOf(tx, pool.account_id, original.id)) throw conflict(`Transaction ${original.id} is already reversed`);
  const amount = dec(original.amount).neg();
  if (original.transaction_type === 'GRANT') {
    const grant = (await repo.findGrant(tx, pool.account_id, original.credit_grant_id!))!;
    if (dec(grant.remaining).lt(dec(original.amount))) {
      throw new AppError('insufficient_credits', `Credit pool depleted - grant ${grant.id} no longer holds the ${dec(original.amount).toFixed()} credits to reverse`);
    }
    const left = dec(grant.remaining).minus(dec(original.amount));
    await repo.setGrantRemaining(tx, pool.account_id, grant.id, left.toFixed(), left.isZero() ? now : undefined);
    return append(tx, pool, { type: 'REVERSAL', amount, grantId: grant.id, reversedTransactionId: original.id, description }, now);
  }
  const draws = await repo.listDraws(tx, pool.account_id, original.id);
  for (const d of draws) {
    const grant = (await repo.findGrant(tx, pool.account_id, d.credit_grant_id))!;
    await repo.setGrantRemaining(tx, pool.account_id, grant.id, dec(grant.remaining).plus(dec(d.amount)).toFixed());
  }
  return append(tx, pool, { type: 'REVERSAL', amount, reversedTransactionId: original.id, description, subscriptionId: original.subscription_id, eventId: original.event_id }, now);
}
