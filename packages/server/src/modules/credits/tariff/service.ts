import type { AppContext } from '../../../platform/context.js';
import type { Executor, Tx } from '../../../platform/db/database.js';
import { isUniqueViolation } from '../../../platform/db/errors.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { conflict, invalid, notFound } from '../../../platform/errors/app-error.js';
import type { PageQuery } from '../../../platform/http/pagination.js';
import { toPage } from '../../../platform/http/pagination.js';
import { newId } from '../../../platform/ids.js';
import { dec, type Decimal } from '../../../platform/money.js';
import {
  checkEffectiveFrom,
  checkPriceDenominations,
  checkWeightFeatures,
  classify,
  isInEffect,
  matchPriceBatch,
  matchWeightBatch,
  normaliseModel,
  pickWeight,
  SCHEDULED_ONLY_MESSAGE,
  validatePriceEntries,
  validateWeightEntries,
  weightKey,
  type EntryProblem,
  type WeightMatch,
  type TariffStatus,
} from './domain.js';
import { cachedPriceAt, cachedWeightAt, forgetTariff } from './cache.js';
import { publishWarnings, type GuardLog, type TariffWarning } from './guard.js';
import * as repo from './repo.js';
import type { PricePublish, WeightPublish } from './schema.js';

export type { WeightMatch } from './domain.js';

// Hot-path lookups for the wallets (event ingestion, entitlement quotes, purchases): one query each.

/** Weight in effect at `at` for (feature, model): exact (feature, model) row, else (feature, default) row, else identity 1.0 with weightId null and NONE. `model` is trimmed; blank/null means only the default row is eligible. */
export async function resolveWeight(db: Executor, accountId: string, featureId: string, model: string | null, at: Date): Promise<{ weight: Decimal; weightId: string | null; weightMatch: WeightMatch }> {
  const wanted = normaliseModel(model);
  const rows = await repo.weightCandidates(db, accountId, featureId, wanted, at);
  return pickWeight(rows.map((r) => ({ id: r.id, model: r.model, creditsPerUnit: dec(r.credits_per_unit), effectiveFrom: r.effective_from })), wanted, at);
}

/** The current price for a denomination at `at` (newest row with effectiveFrom <= at), or null when unpriced. */
export async function findPriceAt(db: Executor, accountId: string, denomination: string, at: Date): Promise<{ id: string; pricePerCredit: Decimal; currency: string } | null> {
  const row = await repo.priceAt(db, accountId, denomination, at);
  return row ? { id: row.id, pricePerCredit: dec(row.price_per_credit), currency: row.currency } : null;
}

/**
 * `resolveWeight` through the node cache (the entitlement check's quote): the same answer, from
 * memory while the chains' tails are cached (ADR 0013).
 */
export async function resolveWeightCached(ctx: Pick<AppContext, 'cache' | 'db'>, accountId: string, featureId: string, model: string | null, at: Date) {
  return (await cachedWeightAt(ctx.cache, ctx.db, accountId, featureId, model, at)) ?? resolveWeight(ctx.db, accountId, featureId, model, at);
}

/** `findPriceAt` through the node cache: the same answer, from memory while the chain's tail is cached. */
export async function findPriceAtCached(ctx: Pick<AppContext, 'cache' | 'db'>, accountId: string, denomination: string, at: Date) {
  const cached = await cachedPriceAt(ctx.cache, ctx.db, accountId, denomination, at);
  return cached ? (cached.price ?? null) : findPriceAt(ctx.db, accountId, denomination, at);
}

/** The weight in effect at `at` of every (feature, model) chain, ordered by feature key, default row before model rows. */
export async function effectiveWeightTable(db: Executor, accountId: string, at: Date): Promise<{ featureKey: string; model: string | null; creditsPerUnit: Decimal }[]> {
  const rows = await repo.listCurrentAndScheduledWeights(db, accountId, at);
  return rows.filter((r) => isInEffect(r.effective_from, at)).map((r) => ({ featureKey: r.feature_key, model: r.model, creditsPerUnit: dec(r.credits_per_unit) }));
}

/** The price in effect at `at` of every priced denomination, ordered by denomination. */
export async function currentPrices(db: Executor, accountId: string, at: Date): Promise<{ denomination: string; pricePerCredit: Decimal; currency: string }[]> {
  const rows = await repo.listCurrentAndScheduledPrices(db, accountId, at);
  return rows.filter((r) => isInEffect(r.effective_from, at)).map((r) => ({ denomination: r.denomination, pricePerCredit: dec(r.price_per_credit), currency: r.currency }));
}

export type TariffSnapshot = {
  /** Features drawing on credits, with the denominations their plan rules link (more than one: not weightable). */
  creditFeatures: { featureId: string; featureKey: string; denominations: string[] }[];
  /** The weight in effect of every (feature, model) chain; model null is the feature default. */
  weights: { id: string; featureId: string; featureKey: string; model: string | null; creditsPerUnit: Decimal }[];
  /** The price in effect of every priced denomination. */
  prices: { denomination: string; pricePerCredit: Decimal; currency: string }[];
};

/** The tariff as it stands at `at` (past, now or a scheduled instant): what the negative-margin guard compares against cost. */
export async function tariffAt(db: Executor, accountId: string, at: Date): Promise<TariffSnapshot> {
  const [features, weights, prices] = await Promise.all([
    repo.creditFeatures(db, accountId),
    repo.listCurrentAndScheduledWeights(db, accountId, at),
    currentPrices(db, accountId, at),
  ]);
  const byFeature = new Map<string, TariffSnapshot['creditFeatures'][number]>();
  for (const f of features) {
    const entry = byFeature.get(f.id) ?? { featureId: f.id, featureKey: f.key, denominations: [] };
    entry.denominations.push(f.denomination);
    byFeature.set(f.id, entry);
  }
  return {
    creditFeatures: [...byFeature.values()].map((f) => ({ ...f, denominations: f.denominations.sort() })),
    weights: weights
      .filter((r) => isInEffect(r.effective_from, at))
      .map((r) => ({ id: r.id, featureId: r.feature_id, featureKey: r.feature_key, model: r.model, creditsPerUnit: dec(r.credits_per_unit) })),
    prices,
  };
}

// Row mapping

function toWeight(row: repo.WeightRow) {
  return {
    id: row.id,
    featureId: row.feature_id,
    featureKey: row.feature_key,
    model: row.model,
    creditsPerUnit: dec(row.credits_per_unit),
    effectiveFrom: row.effective_from,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}
export type Weight = ReturnType<typeof toWeight> & { status: TariffStatus };

function toPrice(row: repo.PriceRow) {
  return {
    id: row.id,
    denomination: row.denomination,
    currency: row.currency,
    pricePerCredit: dec(row.price_per_credit),
    effectiveFrom: row.effective_from,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}
export type Price = ReturnType<typeof toPrice> & { status: TariffStatus };

const weightChain = (w: { featureId: string; model: string | null }) => weightKey(w.featureId, w.model);
const priceChain = (p: { denomination: string }) => p.denomination;
const classifyWeights = (rows: repo.WeightRow[], now: Date): Weight[] => classify(rows.map(toWeight), weightChain, now);
const classifyPrices = (rows: repo.PriceRow[], now: Date): Price[] => classify(rows.map(toPrice), priceChain, now);

/** All problems go to `fields[]`; the message is the first one, worded `Entry <i>: …`. */
function rejectEntries(problems: EntryProblem[]): void {
  if (problems.length === 0) return;
  throw invalid(problems[0]!.message, { fields: problems.map((p) => ({ field: `entries[${p.index}].${p.field}`, message: p.reason })) });
}

function rejectPastInstant(effectiveFrom: Date, now: Date): void {
  const message = checkEffectiveFrom(effectiveFrom, now);
  if (message) throw invalid(message, { fields: [{ field: 'effectiveFrom', message: 'must be in the future' }] });
}

// A concurrent identical batch cannot reach the insert (the account lock serialises publishes);
// the unique index is the backstop, and its violation means "something is already there".
async function insertOnce<T>(effectiveFrom: Date, what: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A different ${what} is already published at ${effectiveFrom.toISOString()} — pick another effective time`);
    throw err;
  }
}

/** A publish's answer: the rows, and the negative-margin guard's warnings (computed after commit; never a refusal). */
export type Published<T> = { rows: T[]; warnings: TariffWarning[] };

// Weights

/** Publishes a batch: validated, serialised per account, all rows in one transaction. An identical replay returns the stored rows. */
export async function publishWeights(ctx: AppContext, accountId: string, createdBy: string, input: WeightPublish, log: GuardLog): Promise<Published<Weight>> {
  const now = ctx.clock.now();
  rejectPastInstant(input.effectiveFrom, now);
  const { entries, problems } = validateWeightEntries(input.entries);
  rejectEntries(problems);
  const rows = await withTransaction(ctx.db, async (tx) => {
    await repo.lockAccount(tx, accountId);
    const found = await repo.featuresWithDenominations(tx, accountId, [...new Set(entries.map((e) => e.featureId))]);
    const features = new Map<string, { key: string; denominations: string[] }>();
    for (const f of found) {
      const feature = features.get(f.id) ?? { key: f.key, denominations: [] };
      if (f.denomination !== null && !feature.denominations.includes(f.denomination)) feature.denominations.push(f.denomination);
      features.set(f.id, feature);
    }
    rejectEntries(checkWeightFeatures(entries, features));

    const stored = await repo.weightBatchAt(tx, accountId, input.effectiveFrom);
    if (stored.length > 0) {
      const replay = matchWeightBatch(entries, stored.map((row) => ({ ...toWeight(row), row })));
      if (!replay) throw conflict(`A different tariff is already published at ${input.effectiveFrom.toISOString()} — pick another effective time`);
      return classifyWeights(replay.map((r) => r.row), now);
    }
    await forgetTariff(ctx.cache, tx, accountId);
    const inserted = await insertOnce(input.effectiveFrom, 'tariff', () =>
      repo.insertWeights(
        tx,
        entries.map((e) => ({
          id: newId(),
          account_id: accountId,
          feature_id: e.featureId,
          model: e.model,
          credits_per_unit: e.creditsPerUnit.toFixed(),
          effective_from: input.effectiveFrom,
          created_by: createdBy,
          created_at: now,
        })),
      ),
    );
    return classifyWeights(inserted.map((row) => ({ ...row, feature_key: features.get(row.feature_id)!.key })), now);
  });
  const batch = { kind: 'weights' as const, effectiveFrom: input.effectiveFrom, entries: entries.map((e) => ({ featureId: e.featureId, model: e.model })) };
  return { rows, warnings: await publishWarnings(ctx, accountId, batch, log) };
}

/** The current row of each (feature, model) plus every scheduled row. */
export async function listWeights(ctx: AppContext, accountId: string): Promise<Weight[]> {
  const now = ctx.clock.now();
  return classifyWeights(await repo.listCurrentAndScheduledWeights(ctx.db, accountId, now), now);
}

export async function weightHistory(ctx: AppContext, accountId: string, featureId: string, model: string | undefined): Promise<Weight[]> {
  return classifyWeights(await repo.weightHistory(ctx.db, accountId, featureId, normaliseModel(model)), ctx.clock.now());
}

export const deleteWeight = (ctx: AppContext, accountId: string, id: string) => deleteScheduled(ctx, accountId, id, 'Credit weight', repo.findWeight, repo.deleteWeight);

/**
 * Deletes a scheduled tariff row (a weight or a price) under the account's tariff lock; a row
 * already in effect is history and stays. The node caches forget the tariff.
 */
async function deleteScheduled(
  ctx: AppContext,
  accountId: string,
  id: string,
  noun: string,
  find: (tx: Tx, accountId: string, id: string) => Promise<{ effective_from: Date } | undefined>,
  remove: (tx: Tx, accountId: string, id: string) => Promise<unknown>,
): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    await repo.lockAccount(tx, accountId);
    const row = await find(tx, accountId, id);
    if (!row) throw notFound(`${noun} not found: ${id}`);
    if (isInEffect(row.effective_from, ctx.clock.now())) throw invalid(SCHEDULED_ONLY_MESSAGE);
    await remove(tx, accountId, id);
    await forgetTariff(ctx.cache, tx, accountId);
  });
}

// Prices

/** Same batch rules as weights; each denomination must name a live credit model of the account. */
export async function publishPrices(ctx: AppContext, accountId: string, createdBy: string, input: PricePublish, log: GuardLog): Promise<Published<Price>> {
  const now = ctx.clock.now();
  rejectPastInstant(input.effectiveFrom, now);
  const { entries, problems } = validatePriceEntries(input.entries);
  rejectEntries(problems);
  const rows = await withTransaction(ctx.db, async (tx) => {
    await repo.lockAccount(tx, accountId);
    rejectEntries(checkPriceDenominations(entries, await repo.liveDenominations(tx, accountId, entries.map((e) => e.denomination))));

    const stored = await repo.priceBatchAt(tx, accountId, input.effectiveFrom);
    if (stored.length > 0) {
      const replay = matchPriceBatch(entries, stored.map(toPrice));
      if (!replay) throw conflict(`A different price book is already published at ${input.effectiveFrom.toISOString()} — pick another effective time`);
      return classify(replay, priceChain, now);
    }
    await forgetTariff(ctx.cache, tx, accountId);
    const inserted = await insertOnce(input.effectiveFrom, 'price book', () =>
      repo.insertPrices(
        tx,
        entries.map((e) => ({
          id: newId(),
          account_id: accountId,
          denomination: e.denomination,
          currency: e.currency,
          price_per_credit: e.pricePerCredit.toFixed(),
          effective_from: input.effectiveFrom,
          created_by: createdBy,
          created_at: now,
        })),
      ),
    );
    return classifyPrices(inserted, now);
  });
  const batch = { kind: 'prices' as const, effectiveFrom: input.effectiveFrom, denominations: entries.map((e) => e.denomination) };
  return { rows, warnings: await publishWarnings(ctx, accountId, batch, log) };
}

export async function listPrices(ctx: AppContext, accountId: string): Promise<Price[]> {
  const now = ctx.clock.now();
  return classifyPrices(await repo.listCurrentAndScheduledPrices(ctx.db, accountId, now), now);
}

export async function priceHistory(ctx: AppContext, accountId: string, denomination: string): Promise<Price[]> {
  return classifyPrices(await repo.priceHistory(ctx.db, accountId, denomination), ctx.clock.now());
}

export const deletePrice = (ctx: AppContext, accountId: string, id: string) => deleteScheduled(ctx, accountId, id, 'Credit price', repo.findPrice, repo.deletePrice);

/** Client API: the price in effect now for each priced denomination; scheduled rows never show. */
/** Every price in effect now, unpaged (the MCP `getCreditPrices` tool). */
export async function listAllPricesInEffect(ctx: AppContext, accountId: string) {
  const now = ctx.clock.now();
  return classifyPrices(await repo.listPricesInEffect(ctx.db, accountId, now), now);
}

export async function listPricesInEffect(ctx: AppContext, accountId: string, page: PageQuery) {
  const now = ctx.clock.now();
  const [rows, total] = await Promise.all([repo.listPricesInEffect(ctx.db, accountId, now, page), repo.countPricedDenominations(ctx.db, accountId, now)]);
  return toPage(classifyPrices(rows, now), total, page);
}
