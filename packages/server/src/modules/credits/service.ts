import { createHash } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { toUniqueConflict, UNIQUE_CONSTRAINTS } from '../../platform/db/errors.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, conflict, invalid, invalidField, notFound } from '../../platform/errors/app-error.js';
import { toJsonb } from '../../platform/db/jsonb.js';
import { stringifyJson } from '../../platform/http/json.js';
import { newId } from '../../platform/ids.js';
import { dec, type Decimal } from '../../platform/money.js';
import { findInvoice, findSubscription } from '../billing/index.js';
import { findPlan } from '../catalog/index.js';
import { getCustomerById } from '../customers/index.js';
import { armedForThreshold, availableInGrants } from './domain.js';
import { drawFromPool, grantCredits, reverseTransaction } from './ledger.js';
import * as repo from './repo.js';
import { recordAutoTopups } from './auto-topup/record.js';
import { MAX_CREDIT_AMOUNT, type DeductionCreate, type GrantCreate, type ModelCreate, type PoolCreate, type PoolUpdate } from './schema.js';
import { findPriceAt } from './tariff/service.js';
import { toAllocation, toGrant, toLink, toModel, toPool, toTransaction } from './views.js';

const MAX_UNIT_PRICE = dec(1_000_000);
const MAX_METADATA_BYTES = 8 * 1024;

const requestHash = (body: unknown) => createHash('sha256').update(stringifyJson(body)).digest('hex');

// Models

export async function createModel(ctx: AppContext, accountId: string, input: ModelCreate) {
  const now = ctx.clock.now();
  try {
    return toModel(
      await repo.insertModel(ctx.db, {
        id: newId(),
        account_id: accountId,
        description: input.description ?? null,
        ...walletColumns(input),
        deleted_at: null,
        created_at: now,
        modified_at: now,
      }),
    );
  } catch (err) {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.creditModelDenomination]: `Credit model with denomination '${input.denomination}' already exists` });
  }
}

export async function getModel(ctx: AppContext, accountId: string, id: string) {
  const row = await repo.findModel(ctx.db, accountId, id);
  if (!row) throw notFound(`Credit model not found: ${id}`);
  return row;
}

/** The account's live credit models (soft-deleted ones left out). */
export async function listModels(ctx: AppContext, accountId: string) {
  return (await repo.listModels(ctx.db, accountId)).map(toModel);
}

export async function deleteModel(ctx: AppContext, accountId: string, id: string) {
  await getModel(ctx, accountId, id);
  await repo.softDeleteModel(ctx.db, accountId, id, ctx.clock.now());
}

// Plan allocations

export async function allocateToPlan(ctx: AppContext, accountId: string, input: { modelId: string; planId: string; creditAmount: string; grantExpiresMonths?: number | undefined; hardLimit?: boolean | undefined }) {
  const amount = dec(input.creditAmount);
  if (amount.lte(0)) throw invalidField('creditAmount', 'must be positive');
  await getModel(ctx, accountId, input.modelId);
  if (!(await findPlan(ctx.db, accountId, input.planId))) throw notFound(`Plan not found: ${input.planId}`);
  try {
    await repo.insertAllocation(ctx.db, {
      id: newId(),
      account_id: accountId,
      plan_id: input.planId,
      credit_model_id: input.modelId,
      credit_amount: amount.toFixed(),
      grant_expires_months: input.grantExpiresMonths ?? null,
      hard_limit: input.hardLimit ?? null,
      created_at: ctx.clock.now(),
    });
  } catch (err) {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.planCreditAllocation]: 'Allocation already exists for this plan and credit model' });
  }
  const all = await repo.listAllocations(ctx.db, accountId, [input.planId]);
  return toAllocation(all.find((a) => a.credit_model_id === input.modelId)!);
}

export async function listPlanAllocations(ctx: AppContext, accountId: string, planId: string) {
  if (!(await findPlan(ctx.db, accountId, planId))) throw notFound(`Plan not found: ${planId}`);
  return (await repo.listAllocations(ctx.db, accountId, [planId])).map(toAllocation);
}

export async function removeAllocation(ctx: AppContext, accountId: string, modelId: string, planId: string) {
  const result = await repo.deleteAllocation(ctx.db, accountId, planId, modelId);
  if (Number(result.numDeletedRows) === 0) throw notFound('Allocation not found');
}

// Pools and links

export async function createPool(ctx: AppContext, accountId: string, input: PoolCreate) {
  if (!(await repo.findModelByDenomination(ctx.db, accountId, input.denomination))) {
    throw invalidField('denomination', `no credit model with denomination '${input.denomination}' on this account`);
  }
  if (input.customerId) await getCustomerById(ctx.db, accountId, input.customerId);
  const threshold = checkedThreshold(input.lowBalanceThreshold ?? null);
  const now = ctx.clock.now();
  try {
    return toPool(
      await repo.insertPool(ctx.db, {
        id: newId(),
        account_id: accountId,
        customer_id: input.customerId ?? null,
        currency: input.currency ?? null,
        ...walletColumns(input),
        // A new pool's balance is 0, below any threshold: disarmed until credits bring it up.
        low_balance_threshold: threshold?.toFixed() ?? null,
        low_balance_armed: armedForThreshold(threshold, dec(0)),
        now,
      }),
    );
  } catch (err) {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.creditPoolName]: `Credit pool with name '${input.name}' already exists` });
  }
}

/** The §E7.1 rule of `lowBalanceThreshold`, with the contract's messages (which repeat the field name). */
function checkedThreshold(value: Decimal | number | string | null): Decimal | null {
  if (value === null) return null;
  const d = dec(value);
  if (d.lte(0)) throw invalidField('lowBalanceThreshold', 'lowBalanceThreshold must be positive');
  if (d.decimalPlaces() > 6) throw invalidField('lowBalanceThreshold', 'lowBalanceThreshold allows at most 6 decimals');
  if (d.gt(MAX_CREDIT_AMOUNT)) throw invalidField('lowBalanceThreshold', `lowBalanceThreshold exceeds maximum ${MAX_CREDIT_AMOUNT}`);
  return d;
}

/**
 * PATCH of a pool's low-balance threshold, under the pool lock: it fires nothing, and arms the pool
 * when its balance is at or above the new threshold, else disarms it (null stops the event).
 */
export async function updatePool(ctx: AppContext, accountId: string, poolId: string, input: PoolUpdate) {
  const threshold = checkedThreshold(input.lowBalanceThreshold);
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const pool = await lockPool(tx, accountId, poolId);
    return toPool(await repo.updateLowBalanceThreshold(tx, accountId, pool.id, threshold?.toFixed() ?? null, armedForThreshold(threshold, dec(pool.balance)), now));
  });
}

/** The account's pools, oldest first; with a customer id only that customer's (internal id, Admin API). */
export async function listAccountPools(ctx: AppContext, accountId: string, customerId?: string) {
  return (await repo.listPools(ctx.db, accountId, customerId ? { customerId } : {})).map(toPool);
}

export async function getPool(ctx: AppContext, accountId: string, id: string) {
  const row = await repo.findPool(ctx.db, accountId, id);
  if (!row) throw notFound(`Credit pool not found: ${id}`);
  return row;
}

export async function linkPool(ctx: AppContext, accountId: string, input: { poolId: string; subscriptionId: string; drawPriority: number; drawLimit?: string | undefined }) {
  const pool = await getPool(ctx, accountId, input.poolId);
  const subscription = await findSubscription(ctx.db, accountId, input.subscriptionId);
  if (!subscription) throw notFound(`Subscription not found: ${input.subscriptionId}`);
  if (pool.customer_id && pool.customer_id !== subscription.customer_id) throw invalid("A customer's pool can only be linked to that customer's subscriptions");
  try {
    return toLink(
      await repo.insertLink(ctx.db, {
        account_id: accountId,
        credit_pool_id: pool.id,
        subscription_id: subscription.id,
        draw_priority: input.drawPriority,
        draw_limit: input.drawLimit ?? null,
        total_drawn: '0',
        created_at: ctx.clock.now(),
      }),
    );
  } catch (err) {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.creditPoolLink]: 'Pool already linked to subscription' });
  }
}

/** A pool's links to subscriptions (draw priority, limit and what each has drawn), oldest first. */
export async function listPoolLinks(ctx: AppContext, accountId: string, poolId: string) {
  await getPool(ctx, accountId, poolId);
  return (await repo.listLinksOfPool(ctx.db, accountId, poolId)).map(toLink);
}

export async function unlinkPool(ctx: AppContext, accountId: string, poolId: string, subscriptionId: string) {
  const result = await repo.deleteLink(ctx.db, accountId, poolId, subscriptionId);
  if (Number(result.numDeletedRows) === 0) throw notFound('Link not found');
}

// Grants, deductions, reversals

/**
 * Every id a grant or deduction names must be one of this account's: another account's (or an
 * unknown) subscription, customer, usage event or invoice is 404, checked before anything is written.
 */
async function requireOwnedReferences(
  tx: Tx,
  accountId: string,
  refs: { subscriptionId?: string | undefined; customerId?: string | undefined; eventId?: string | undefined; invoiceId?: string | undefined },
) {
  if (refs.subscriptionId && !(await findSubscription(tx, accountId, refs.subscriptionId))) throw notFound(`Subscription not found: ${refs.subscriptionId}`);
  if (refs.customerId) await getCustomerById(tx, accountId, refs.customerId);
  if (refs.eventId && !(await repo.usageEventExists(tx, accountId, refs.eventId))) throw notFound(`Event not found: ${refs.eventId}`);
  if (refs.invoiceId && !(await findInvoice(tx, accountId, refs.invoiceId))) throw notFound(`Invoice not found: ${refs.invoiceId}`);
}

/**
 * The row a manual grant or deduction stored under the same idempotencyKey (the body's key, ledger
 * rows keep it): the same body replays it; a different body is 409 idempotency_conflict.
 */
async function storedUnderKey<T extends { request_hash: string | null }>(key: string | undefined, hash: string, find: (key: string) => Promise<T | undefined>): Promise<T | undefined> {
  if (!key) return undefined;
  const existing = await find(key);
  if (existing && existing.request_hash !== hash) throw new AppError('idempotency_conflict', `Idempotency-Key '${key}' was already used with a different request body`);
  return existing;
}

/** What a model and a pool are both created with (their schemas share the fields), as columns: name, denomination, the wallet's rules. */
const walletColumns = (input: Pick<ModelCreate, 'name' | 'denomination' | 'hardLimit' | 'rolloverPolicy' | 'rolloverCap' | 'metadata'>) => ({
  name: input.name,
  denomination: input.denomination,
  hard_limit: input.hardLimit ?? false,
  rollover_policy: input.rolloverPolicy ?? ('NONE' as const),
  rollover_cap: input.rolloverCap ? input.rolloverCap.toFixed() : null,
  metadata: toJsonb(input.metadata),
});

/** Locks one pool of the account, or 404. */
async function lockPool(tx: Tx, accountId: string, poolId: string) {
  const [pool] = await repo.lockPools(tx, accountId, [poolId]);
  if (!pool) throw notFound(`Credit pool not found: ${poolId}`);
  return pool;
}

/**
 * A manual grant. A PURCHASED grant without unitPrice is stamped with the book price in effect now
 * (unpriced: none); an explicit unitPrice wins; a currency without a unitPrice is refused. A repeated
 * idempotencyKey returns the first grant (same body) or 409 (different body).
 */
export async function createGrant(ctx: AppContext, accountId: string, input: GrantCreate) {
  if (input.currency && !input.unitPrice) throw invalidField('currency', 'currency requires unitPrice — omit both to use the price book');
  if (input.unitPrice) {
    if (input.unitPrice.lte(0)) throw invalidField('unitPrice', 'unitPrice must be positive');
    if (input.unitPrice.gt(MAX_UNIT_PRICE)) throw invalidField('unitPrice', 'unitPrice exceeds maximum 1000000');
    if (input.unitPrice.decimalPlaces() > 6) throw invalidField('unitPrice', 'unitPrice allows at most 6 decimals');
  }
  const hash = requestHash(input);
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const pool = await lockPool(tx, accountId, input.creditPoolId);
    const existing = await storedUnderKey(input.idempotencyKey, hash, (key) => repo.findGrantByKey(tx, accountId, key));
    if (existing) return { grant: toGrant(existing), replayed: true };
    await requireOwnedReferences(tx, accountId, input);
    let unitPrice = input.unitPrice ?? null;
    let currency = input.unitPrice ? (input.currency?.toUpperCase() ?? pool.currency ?? 'USD') : null;
    if (!unitPrice && input.grantType === 'PURCHASED') {
      const price = await findPriceAt(tx, accountId, pool.denomination, now);
      unitPrice = price?.pricePerCredit ?? null;
      currency = price?.currency ?? null;
    }
    const { grant } = await grantCredits(
      tx,
      pool,
      {
        grantType: input.grantType,
        amount: input.amount,
        subscriptionId: input.subscriptionId ?? null,
        invoiceId: input.invoiceId ?? null,
        unitPrice,
        currency,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
        description: input.description ?? null,
        idempotencyKey: input.idempotencyKey ?? null,
        requestHash: hash,
        metadata: input.metadata ?? {},
      },
      now,
    );
    return { grant: toGrant(grant), replayed: false };
  });
}

/** A manual deduction: FIFO across the pool's grants; never takes a pool below zero. */
export async function createDeduction(ctx: AppContext, accountId: string, input: DeductionCreate) {
  if (input.metadata && Buffer.byteLength(toJsonb(input.metadata)) > MAX_METADATA_BYTES) {
    throw invalidField('metadata', 'Deduction metadata too large (max ~8KB)');
  }
  const hash = requestHash(input);
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const pool = await lockPool(tx, accountId, input.creditPoolId);
    const existing = await storedUnderKey(input.idempotencyKey, hash, (key) => repo.findTransactionByKey(tx, accountId, key));
    if (existing) return toTransaction(existing);
    await requireOwnedReferences(tx, accountId, input);
    if (pool.status === 'FROZEN') throw conflict(`Cannot deduct from frozen pool: ${pool.id}`);
    const grants = await repo.listLiveGrants(tx, accountId, [pool.id]);
    if (availableInGrants(grants.map((g) => ({ id: g.id, remaining: dec(g.remaining), expiresAt: g.expires_at })), now).lt(input.amount)) {
      throw new AppError('insufficient_credits', `Credit pool depleted - ${pool.hard_limit ? 'hard limit active for' : 'insufficient balance in'} pool ${pool.id}`);
    }
    const transaction = await drawFromPool(
      tx,
      pool,
      {
        type: 'DEDUCTION',
        amount: input.amount,
        grants,
        description: input.description ?? null,
        subscriptionId: input.subscriptionId ?? null,
        eventId: input.eventId ?? null,
        idempotencyKey: input.idempotencyKey ?? null,
        requestHash: hash,
        metadata: input.metadata ?? {},
      },
      now,
    );
    await recordAutoTopups(ctx, tx, [{ pool, transactionId: transaction.id }], now);
    return toTransaction(transaction);
  });
}

export async function reverse(ctx: AppContext, accountId: string, transactionId: string, description: string | undefined) {
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const original = await repo.findTransaction(tx, accountId, transactionId);
    if (!original) throw notFound(`Transaction not found: ${transactionId}`);
    const pool = await lockPool(tx, accountId, original.credit_pool_id);
    return toTransaction(await reverseTransaction(tx, pool, original, description ?? null, now));
  });
}

export async function listPoolGrants(ctx: AppContext, accountId: string, poolId: string) {
  await getPool(ctx, accountId, poolId);
  return (await repo.listGrants(ctx.db, accountId, poolId)).map(toGrant);
}

export async function listPoolTransactions(ctx: AppContext, accountId: string, poolId: string) {
  await getPool(ctx, accountId, poolId);
  return (await repo.listTransactions(ctx.db, accountId, poolId)).map(toTransaction);
}

export { toModel, toPool };
