import type { NodeCache } from '../../../platform/cache/node-cache.js';
import type { Executor, Tx } from '../../../platform/db/database.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { normaliseModel, pickWeight, weightKey, type ResolvedWeight } from './domain.js';
import * as repo from './repo.js';

/**
 * Tariff rows in the node cache (ADR 0013). An entry is the tail of one chain (a weight chain or a
 * denomination's prices): its newest row at load time and every row scheduled after it. Time
 * passing needs no invalidation (the scheduled rows are there); a publish or delete of the account's
 * tariff drops all of its tails on every node. A lookup at an instant before the tail's first row
 * (an older occurredAt) is not covered and reads the database.
 */
const TARIFF = 'tariff';

type Tail<R extends { effectiveFrom: Date }> = {
  accountId: string;
  /** Newest first. */
  rows: R[];
  /** No row was in effect at load time: the tail is the whole chain. */
  complete: boolean;
};
type WeightTail = Tail<{ id: string; model: string | null; creditsPerUnit: Decimal; effectiveFrom: Date }>;
type PriceTail = Tail<{ id: string; pricePerCredit: Decimal; currency: string; effectiveFrom: Date }>;

const tails = <T extends Tail<{ effectiveFrom: Date }>>(cache: NodeCache) => cache.region<T>(TARIFF, (tail) => tail.accountId);

const covers = (tail: Tail<{ effectiveFrom: Date }>, at: Date) => tail.complete || tail.rows.at(-1)!.effectiveFrom <= at;

/** Called in every transaction that publishes or deletes tariff rows of the account. */
export const forgetTariff = (cache: NodeCache, tx: Tx, accountId: string) => cache.invalidateOnCommit(tx, TARIFF, accountId);

async function weightTail(cache: NodeCache, db: Executor, accountId: string, featureId: string, model: string | null, at: Date): Promise<WeightTail> {
  const tail = await tails<WeightTail>(cache).get(`w${weightKey(featureId, model)}${accountId}`, async () => {
    const rows = await repo.weightChainTail(db, accountId, featureId, model, at);
    const mapped = rows.map((r) => ({ id: r.id, model: r.model, creditsPerUnit: dec(r.credits_per_unit), effectiveFrom: r.effective_from }));
    return { accountId, rows: mapped, complete: mapped.length === 0 || mapped.at(-1)!.effectiveFrom > at };
  });
  return tail!;
}

async function priceTail(cache: NodeCache, db: Executor, accountId: string, denomination: string, at: Date): Promise<PriceTail> {
  const tail = await tails<PriceTail>(cache).get(`p${JSON.stringify(denomination)}${accountId}`, async () => {
    const rows = await repo.priceChainTail(db, accountId, denomination, at);
    const mapped = rows.map((r) => ({ id: r.id, pricePerCredit: dec(r.price_per_credit), currency: r.currency, effectiveFrom: r.effective_from }));
    return { accountId, rows: mapped, complete: mapped.length === 0 || mapped.at(-1)!.effectiveFrom > at };
  });
  return tail!;
}

/**
 * The weight in effect at `at`, as `resolveWeight` answers it, from cached chain tails; null when
 * a tail does not reach back to `at` (the caller reads the database).
 */
export async function cachedWeightAt(cache: NodeCache, db: Executor, accountId: string, featureId: string, model: string | null, at: Date): Promise<ResolvedWeight | null> {
  const wanted = normaliseModel(model);
  const chains = await Promise.all([
    weightTail(cache, db, accountId, featureId, null, at),
    ...(wanted === null ? [] : [weightTail(cache, db, accountId, featureId, wanted, at)]),
  ]);
  if (!chains.every((tail) => covers(tail, at))) return null;
  return pickWeight(chains.flatMap((tail) => tail.rows), wanted, at);
}

/** The price in effect at `at` (undefined: unpriced), or null when the cached tail does not reach back to `at`. */
export async function cachedPriceAt(cache: NodeCache, db: Executor, accountId: string, denomination: string, at: Date) {
  const tail = await priceTail(cache, db, accountId, denomination, at);
  if (!covers(tail, at)) return null;
  const row = tail.rows.find((r) => r.effectiveFrom <= at);
  return { price: row ? { id: row.id, pricePerCredit: row.pricePerCredit, currency: row.currency } : undefined };
}
