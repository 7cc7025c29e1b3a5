import type { Executor, Tx } from '../../platform/db/database.js';
import { notFound } from '../../platform/errors/app-error.js';
import type { Decimal } from '../../platform/money.js';
import { grantCredits } from './ledger.js';
import * as repo from './repo.js';

/**
 * What the payments module needs from credits to sell them: the customer's pool, and a PURCHASED
 * grant keyed by the payment (one grant per payment intent or checkout session, however often the
 * processor reports it).
 */

type PurchasablePool = { id: string; denomination: string; currency: string | null; status: string };

/** One of the customer's pools; 404 "Credit pool not found" for another customer's or account's. */
export async function getCustomerPool(db: Executor, accountId: string, customerId: string, poolId: string): Promise<PurchasablePool> {
  const pool = await repo.findPool(db, accountId, poolId);
  if (!pool || pool.customer_id !== customerId) throw notFound(`Credit pool not found: ${poolId}`);
  return { id: pool.id, denomination: pool.denomination, currency: pool.currency, status: pool.status };
}

type PurchaseGrantInput = {
  accountId: string;
  poolId: string;
  amount: Decimal;
  unitPrice: Decimal;
  currency: string;
  /** The payment's key (`pi_<paymentIntentId>`, `checkout_<sessionId>`): a repeat returns the first grant. */
  idempotencyKey: string;
  description: string;
  metadata: Record<string, unknown>;
  /**
   * Called with the new grant's id when the grant is created (not on a replay), in the same
   * transaction, before its credits.granted: the payment's `payment.succeeded` goes here (§E5.5).
   */
  onGranted?: (grantId: string) => Promise<void>;
};

/** Grants purchased credits inside the caller's transaction; idempotent by `idempotencyKey`. */
export async function grantPurchasedCredits(tx: Tx, input: PurchaseGrantInput, now: Date): Promise<{ grantId: string; created: boolean }> {
  const [pool] = await repo.lockPools(tx, input.accountId, [input.poolId]);
  if (!pool) throw notFound(`Credit pool not found: ${input.poolId}`);
  const existing = await repo.findGrantByKey(tx, input.accountId, input.idempotencyKey);
  if (existing) return { grantId: existing.id, created: false };
  const { grant } = await grantCredits(
    tx,
    pool,
    {
      grantType: 'PURCHASED',
      amount: input.amount,
      unitPrice: input.unitPrice,
      currency: input.currency,
      description: input.description,
      idempotencyKey: input.idempotencyKey,
      metadata: input.metadata,
      ...(input.onGranted ? { beforeGrantedEvent: input.onGranted } : {}),
    },
    now,
  );
  return { grantId: grant.id, created: true };
}
