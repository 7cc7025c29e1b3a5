import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { CreditPricesTable, CreditWeightsTable, PriceRow } from '../tables.js';
import { deleteTenantRow, findTenantRow, tenantRows } from '../../../platform/db/tenant-row.js';

export type WeightRow = Selectable<CreditWeightsTable> & { feature_key: string };
export type { PriceRow } from '../tables.js';

// The unique index is on coalesce(model, ''): filtering on the same expression lets it serve the query.
const modelKey = sql<string>`coalesce(credit_weights.model, '')`;

/** Serialises publishes (and deletes) per account: the account row is the lock. */
export const lockAccount = (db: Executor, accountId: string) =>
  db.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst();

// Weights

const weights = (db: Executor, accountId: string) =>
  db
    .selectFrom('credit_weights')
    .innerJoin('features', (j) => j.onRef('features.id', '=', 'credit_weights.feature_id').onRef('features.account_id', '=', 'credit_weights.account_id'))
    .selectAll('credit_weights')
    .select('features.key as feature_key')
    .where('credit_weights.account_id', '=', accountId);

/** The newest in-effect row of every (feature, model) chain, plus every row still scheduled. */
export const listCurrentAndScheduledWeights = (db: Executor, accountId: string, now: Date): Promise<WeightRow[]> =>
  weights(db, accountId)
    .where((eb) =>
      eb.or([
        eb('credit_weights.effective_from', '>', now),
        eb(
          'credit_weights.id',
          'in',
          eb
            .selectFrom('credit_weights')
            .select('credit_weights.id')
            .distinctOn(['credit_weights.feature_id', modelKey])
            .where('credit_weights.account_id', '=', accountId)
            .where('credit_weights.effective_from', '<=', now)
            .orderBy('credit_weights.feature_id')
            .orderBy(modelKey)
            .orderBy('credit_weights.effective_from', 'desc'),
        ),
      ]),
    )
    .orderBy('features.key')
    .orderBy(modelKey)
    .orderBy('credit_weights.effective_from')
    .execute();

/** One chain, newest first; model null is the feature-default chain. */
export const weightHistory = (db: Executor, accountId: string, featureId: string, model: string | null): Promise<WeightRow[]> =>
  weights(db, accountId)
    .where('credit_weights.feature_id', '=', featureId)
    .where(modelKey, '=', model ?? '')
    .orderBy('credit_weights.effective_from', 'desc')
    .execute();

export const weightBatchAt = (db: Executor, accountId: string, effectiveFrom: Date): Promise<WeightRow[]> =>
  weights(db, accountId).where('credit_weights.effective_from', '=', effectiveFrom).execute();

export const insertWeights = (db: Executor, rows: Insertable<CreditWeightsTable>[]) =>
  db.insertInto('credit_weights').values(rows).returningAll().execute();

export const findWeight = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'credit_weights', accountId, id, 'lock');

export const deleteWeight = (db: Executor, accountId: string, id: string) =>
  deleteTenantRow(db, 'credit_weights', accountId, id);

/**
 * Hot path: the newest row at `at` of the exact-model chain and of the default chain, in one
 * statement of at most two rows. Each branch is a backward scan of the unique index
 * (account_id, feature_id, coalesce(model, ''), effective_from) that stops at the first row.
 */
export function weightCandidates(db: Executor, accountId: string, featureId: string, model: string | null, at: Date) {
  const chain = (key: string) =>
    db
      .selectFrom('credit_weights')
      .select(['id', 'model', 'credits_per_unit', 'effective_from'])
      .where('account_id', '=', accountId)
      .where('feature_id', '=', featureId)
      .where(modelKey, '=', key)
      .where('effective_from', '<=', at)
      .orderBy('effective_from', 'desc')
      .limit(1);
  if (model === null) return chain('').execute();
  return db.selectFrom(chain(model).as('exact')).selectAll().unionAll(db.selectFrom(chain('').as('fallback')).selectAll()).execute();
}

/** Features of the account among `ids`, with the credit denominations their plan rules draw on. */
export function featuresWithDenominations(db: Executor, accountId: string, ids: string[]) {
  return db
    .selectFrom('features')
    .leftJoin('plan_feature_rules', (j) =>
      j.onRef('plan_feature_rules.feature_id', '=', 'features.id').onRef('plan_feature_rules.account_id', '=', 'features.account_id'),
    )
    .leftJoin('credit_models', (j) =>
      j.onRef('credit_models.id', '=', 'plan_feature_rules.credit_model_id').onRef('credit_models.account_id', '=', 'plan_feature_rules.account_id'),
    )
    .select(['features.id', 'features.key', 'credit_models.denomination'])
    .distinct()
    .where('features.account_id', '=', accountId)
    .where('features.id', 'in', ids)
    .execute();
}

/** Every feature of the account whose plan rules draw on a credit model, with those denominations (one row each). */
export function creditFeatures(db: Executor, accountId: string) {
  return db
    .selectFrom('features')
    .innerJoin('plan_feature_rules', (j) => j.onRef('plan_feature_rules.feature_id', '=', 'features.id').onRef('plan_feature_rules.account_id', '=', 'features.account_id'))
    .innerJoin('credit_models', (j) => j.onRef('credit_models.id', '=', 'plan_feature_rules.credit_model_id').onRef('credit_models.account_id', '=', 'plan_feature_rules.account_id'))
    .select(['features.id', 'features.key', 'credit_models.denomination'])
    .distinct()
    .where('features.account_id', '=', accountId)
    .execute();
}

// Prices

// distinct on (denomination) … order by effective_from desc: the newest in-effect row per denomination.
const currentPriceIds = (db: Executor, accountId: string, now: Date) =>
  db
    .selectFrom('credit_prices')
    .select('id')
    .distinctOn('denomination')
    .where('account_id', '=', accountId)
    .where('effective_from', '<=', now)
    .orderBy('denomination')
    .orderBy('effective_from', 'desc');

export const listCurrentAndScheduledPrices = (db: Executor, accountId: string, now: Date): Promise<PriceRow[]> =>
  tenantRows(db, 'credit_prices', accountId)
    .where((eb) => eb.or([eb('effective_from', '>', now), eb('id', 'in', currentPriceIds(db, accountId, now))]))
    .orderBy('denomination')
    .orderBy('effective_from')
    .execute();

/** The in-effect price of each priced denomination, paged by denomination. */
/** The price in effect per denomination, by denomination; one page of them, or all without `page`. */
export function listPricesInEffect(db: Executor, accountId: string, now: Date, page?: { limit: number; offset: number }): Promise<PriceRow[]> {
  const q = tenantRows(db, 'credit_prices', accountId)
    .where('id', 'in', currentPriceIds(db, accountId, now))
    .orderBy('denomination');
  return (page ? q.limit(page.limit).offset(page.offset) : q).execute();
}

export async function countPricedDenominations(db: Executor, accountId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('credit_prices')
    .select((eb) => eb.fn.count<string>('denomination').distinct().as('n'))
    .where('account_id', '=', accountId)
    .where('effective_from', '<=', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const priceHistory = (db: Executor, accountId: string, denomination: string): Promise<PriceRow[]> =>
  db.selectFrom('credit_prices').selectAll().where('account_id', '=', accountId).where('denomination', '=', denomination).orderBy('effective_from', 'desc').execute();

export const priceBatchAt = (db: Executor, accountId: string, effectiveFrom: Date): Promise<PriceRow[]> =>
  db.selectFrom('credit_prices').selectAll().where('account_id', '=', accountId).where('effective_from', '=', effectiveFrom).execute();

export const insertPrices = (db: Executor, rows: Insertable<CreditPricesTable>[]) =>
  db.insertInto('credit_prices').values(rows).returningAll().execute();

export const findPrice = (db: Executor, accountId: string, id: string) =>
  findTenantRow(db, 'credit_prices', accountId, id, 'lock');

export const deletePrice = (db: Executor, accountId: string, id: string) =>
  deleteTenantRow(db, 'credit_prices', accountId, id);

/** Hot path: newest row with effective_from ≤ at, a backward scan of the (account, denomination, effective_from) unique index. */
export const priceAt = (db: Executor, accountId: string, denomination: string, at: Date) =>
  db
    .selectFrom('credit_prices')
    .select(['id', 'price_per_credit', 'currency'])
    .where('account_id', '=', accountId)
    .where('denomination', '=', denomination)
    .where('effective_from', '<=', at)
    .orderBy('effective_from', 'desc')
    .limit(1)
    .executeTakeFirst();

/** Denominations among `wanted` that name a live (non-deleted) credit model of the account. */
export async function liveDenominations(db: Executor, accountId: string, wanted: string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('credit_models')
    .select('denomination')
    .where('account_id', '=', accountId)
    .where('denomination', 'in', wanted)
    .where('deleted_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.denomination));
}

// Chain tails for the node cache (tariff/cache.ts): the newest row at `at` and every later row.


/** One weight chain from its newest row at `at` on (every scheduled row included), newest first. */
export function weightChainTail(db: Executor, accountId: string, featureId: string, model: string | null, at: Date) {
  const chain = (alias: 'w' | 'floor') =>
    db
      .selectFrom(`credit_weights as ${alias}`)
      .where(`${alias}.account_id`, '=', accountId)
      .where(`${alias}.feature_id`, '=', featureId)
      .where(sql<string>`coalesce(${sql.ref(`${alias}.model`)}, '')`, '=', model ?? '');
  return chain('w')
    .select(['w.id', 'w.model', 'w.credits_per_unit', 'w.effective_from'])
    .where('w.effective_from', '>=', (eb) =>
      eb.fn.coalesce(chain('floor').select((e) => e.fn.max('floor.effective_from').as('m')).where('floor.effective_from', '<=', at), sql<Date>`'-infinity'::timestamptz`),
    )
    .orderBy('w.effective_from', 'desc')
    .execute();
}

/** One denomination's price chain from its newest row at `at` on, newest first. */
export function priceChainTail(db: Executor, accountId: string, denomination: string, at: Date) {
  const chain = (alias: 'p' | 'floor') =>
    db.selectFrom(`credit_prices as ${alias}`).where(`${alias}.account_id`, '=', accountId).where(`${alias}.denomination`, '=', denomination);
  return chain('p')
    .select(['p.id', 'p.price_per_credit', 'p.currency', 'p.effective_from'])
    .where('p.effective_from', '>=', (eb) =>
      eb.fn.coalesce(chain('floor').select((e) => e.fn.max('floor.effective_from').as('m')).where('floor.effective_from', '<=', at), sql<Date>`'-infinity'::timestamptz`),
    )
    .orderBy('p.effective_from', 'desc')
    .execute();
}
