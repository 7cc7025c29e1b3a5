import { sql, type Insertable } from 'kysely';
import type { AppContext } from '../../../platform/context.js';
import type { Db } from '../../../platform/db/database.js';
import { toUniqueConflict, UNIQUE_CONSTRAINTS } from '../../../platform/db/errors.js';
import type { SpendPricesTable, SpendProvider } from '../tables.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { notFound } from '../../../platform/errors/app-error.js';
import { newId } from '../../../platform/ids.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { buildSeedRows, normaliseModelName, resolveModelName, seedDataHash, type Rates } from './seed.js';

/**
 * The model price book: seeded rows (instance-wide, from prices/seed.ts) and operator rows per
 * account, which win over a seeded row of the same model from their effective day on.
 */

export type PriceSource = 'PACKAGE' | 'SEED_OVERRIDE' | 'OPERATOR';
export type PriceRow = { id: string | null; provider: SpendProvider; model: string; effectiveFrom: string; rates: Rates; source: PriceSource; createdAt: Date | null };
export type NewPrice = { provider: SpendProvider; model: string; effectiveFrom: string; rates: Rates };

// Seed: refreshed when its data (package + overrides) changed, once per database per process.

const seeded = new WeakMap<Db, Promise<void>>();

/**
 * Makes the seeded rows match this build's data. The state row's lock serialises nodes; a node
 * that finds the hash current does nothing. Changing the data also empties the stored name
 * matches, so every vendor model name is resolved again by the new rules.
 */
export function ensurePriceSeed(ctx: AppContext): Promise<void> {
  let p = seeded.get(ctx.db);
  if (!p) {
    p = refreshSeed(ctx).catch((err: unknown) => {
      seeded.delete(ctx.db);
      throw err;
    });
    seeded.set(ctx.db, p);
  }
  return p;
}

async function refreshSeed(ctx: AppContext): Promise<void> {
  const rows = buildSeedRows();
  const hash = seedDataHash(rows);
  await withTransaction(ctx.db, async (tx) => {
    const state = await tx.selectFrom('spend_price_seed_state').select('data_hash').where('id', '=', 1).forUpdate().executeTakeFirstOrThrow();
    if (state.data_hash === hash) return;
    await tx.deleteFrom('spend_price_seed').execute();
    await tx
      .insertInto('spend_price_seed')
      .values(
        rows.map((r) => ({
          provider: r.provider,
          model: r.model,
          effective_from: r.effectiveFrom,
          ...rateColumns(r.rates),
          source: r.source,
        })),
      )
      .execute();
    await tx.deleteFrom('spend_model_matches').execute();
    await tx.updateTable('spend_price_seed_state').set({ data_hash: hash, refreshed_at: ctx.clock.now() }).where('id', '=', 1).execute();
  });
}

const text = (d: Decimal | null) => (d === null ? null : d.toFixed());
const rateColumns = (r: Rates) => ({
  input_per_mtok: text(r.input),
  output_per_mtok: text(r.output),
  cache_read_per_mtok: text(r.cacheRead),
  cache_write_5m_per_mtok: text(r.cacheWrite5m),
  cache_write_1h_per_mtok: text(r.cacheWrite1h),
});
const decOrNull = (v: string | null) => (v === null ? null : dec(v));

type RateCols = { input_per_mtok: string | null; output_per_mtok: string | null; cache_read_per_mtok: string | null; cache_write_5m_per_mtok: string | null; cache_write_1h_per_mtok: string | null };
const ratesOf = (r: RateCols): Rates => ({
  input: decOrNull(r.input_per_mtok),
  output: decOrNull(r.output_per_mtok),
  cacheRead: decOrNull(r.cache_read_per_mtok),
  cacheWrite5m: decOrNull(r.cache_write_5m_per_mtok),
  cacheWrite1h: decOrNull(r.cache_write_1h_per_mtok),
});

// Name matches: vendor model name → price-book model, resolved in JS, read by the reports' SQL.

export type VendorModel = { provider: SpendProvider; model: string };

/** Stores the price-book model of each name not stored yet (the package's matcher; see README). */
export async function resolveModelNames(ctx: AppContext, accountId: string, names: VendorModel[]): Promise<void> {
  if (names.length === 0) return;
  await ensurePriceSeed(ctx);
  const unique = new Map(names.map((n) => [`${n.provider}\u0000${n.model}`, n]));
  await ctx.db
    .insertInto('spend_model_matches')
    .values(
      [...unique.values()].map((n) => {
        const m = resolveModelName(n.provider, n.model);
        return { account_id: accountId, provider: n.provider, vendor_model: n.model, price_provider: m.priceProvider, price_model: m.priceModel, matched: m.matched };
      }),
    )
    .onConflict((oc) => oc.columns(['account_id', 'provider', 'vendor_model']).doNothing())
    .execute();
}

// Operator rows and listings.

const toOperatorRow = (r: { id: string; provider: SpendProvider; model: string; effective_from: string; created_at: Date } & RateCols): PriceRow => ({
  id: r.id,
  provider: r.provider,
  model: r.model,
  effectiveFrom: r.effective_from,
  rates: ratesOf(r),
  source: 'OPERATOR',
  createdAt: r.created_at,
});

/**
 * Adds an operator row. The model name is keyed as the price book keys it: a name the package
 * matches becomes its price-book model (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`), so the
 * row prices every vendor name of that model; any other name is trimmed and lower-cased.
 */
export async function addPrice(ctx: AppContext, accountId: string, createdBy: string | null, input: NewPrice): Promise<PriceRow> {
  await ensurePriceSeed(ctx);
  const m = resolveModelName(input.provider, input.model);
  const row: Insertable<SpendPricesTable> = {
    id: newId(),
    account_id: accountId,
    provider: m.priceProvider,
    model: m.priceModel,
    effective_from: input.effectiveFrom,
    input_per_mtok: input.rates.input!.toFixed(),
    output_per_mtok: input.rates.output!.toFixed(),
    cache_read_per_mtok: text(input.rates.cacheRead),
    cache_write_5m_per_mtok: text(input.rates.cacheWrite5m),
    cache_write_1h_per_mtok: text(input.rates.cacheWrite1h),
    created_by: createdBy,
    created_at: ctx.clock.now(),
  };
  try {
    const stored = await ctx.db.insertInto('spend_prices').values(row).returningAll().executeTakeFirstOrThrow();
    return toOperatorRow(stored);
  } catch (err) {
    throw toUniqueConflict(err, {
      [UNIQUE_CONSTRAINTS.spendPriceAt]: `A price for ${m.priceProvider} ${m.priceModel} effective ${input.effectiveFrom} already exists; delete it first`,
    });
  }
}

export async function deletePrice(ctx: AppContext, accountId: string, id: string): Promise<void> {
  const gone = await ctx.db.deleteFrom('spend_prices').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  if (gone.numDeletedRows === 0n) throw notFound(`Price ${id} not found`);
}

/** Every row of the book (seeded and this account's), oldest first per model; optional filters. */
export async function listPrices(ctx: AppContext, accountId: string, filter: { provider?: SpendProvider; model?: string }): Promise<PriceRow[]> {
  await ensurePriceSeed(ctx);
  const model = filter.model === undefined ? undefined : normaliseModelName(filter.model);
  let seed = ctx.db.selectFrom('spend_price_seed').selectAll();
  let ops = ctx.db.selectFrom('spend_prices').selectAll().where('account_id', '=', accountId);
  if (filter.provider) {
    seed = seed.where('provider', '=', filter.provider as never);
    ops = ops.where('provider', '=', filter.provider);
  }
  if (model !== undefined) {
    seed = seed.where('model', '=', model);
    ops = ops.where('model', '=', model);
  }
  const [seedRows, opRows] = await Promise.all([seed.execute(), ops.execute()]);
  const rows: PriceRow[] = [
    ...seedRows.map((r) => ({ id: null, provider: r.provider, model: r.model, effectiveFrom: r.effective_from, rates: ratesOf(r), source: r.source, createdAt: null })),
    ...opRows.map(toOperatorRow),
  ];
  const order = { PACKAGE: 0, SEED_OVERRIDE: 0, OPERATOR: 1 } as const;
  return rows.sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model) || order[a.source] - order[b.source] || a.effectiveFrom.localeCompare(b.effectiveFrom));
}

export type CurrentPrice = { provider: SpendProvider; model: string; effectiveFrom: string; rates: Rates; source: PriceSource };

/** The row in force on `day` for every model of the book: the account's if one is, else the seeded one. */
export async function currentPrices(ctx: AppContext, accountId: string, day: string): Promise<CurrentPrice[]> {
  await ensurePriceSeed(ctx);
  const { rows } = await sql<RateCols & { provider: SpendProvider; model: string; effective_from: string; source: PriceSource }>`
    select distinct on (provider, model) provider, model, effective_from, input_per_mtok, output_per_mtok, cache_read_per_mtok,
           cache_write_5m_per_mtok, cache_write_1h_per_mtok, source
    from (
      select provider, model, effective_from, input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_5m_per_mtok,
             cache_write_1h_per_mtok, 'OPERATOR' as source, 1 as rank
      from spend_prices where account_id = ${accountId} and effective_from <= ${day}::date
      union all
      select provider, model, effective_from, input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_5m_per_mtok,
             cache_write_1h_per_mtok, source, 2 as rank
      from spend_price_seed where effective_from <= ${day}::date
    ) book
    order by provider, model, rank, effective_from desc`.execute(ctx.db);
  return rows.map((r) => ({ provider: r.provider, model: r.model, effectiveFrom: r.effective_from, rates: ratesOf(r), source: r.source }));
}

/**
 * The SQL of the rate in force for a (price provider, price model, day): the account's newest
 * operator row on or before the day, else the newest seeded row. Used as a LATERAL subquery by the
 * reports; `pri` is null when the book has no row (the model is unpriced that day).
 */
export function rateInForce(accountId: string, provider: ReturnType<typeof sql.ref>, model: ReturnType<typeof sql.ref>, day: ReturnType<typeof sql.ref>) {
  return sql`(
    select * from (
      (select 1 as pri, input_per_mtok as ri, output_per_mtok as ro, cache_read_per_mtok as rcr, cache_write_5m_per_mtok as rcw5, cache_write_1h_per_mtok as rcw1
         from spend_prices sp
        where sp.account_id = ${accountId} and sp.provider = ${provider} and sp.model = ${model} and sp.effective_from <= ${day}
        order by sp.effective_from desc limit 1)
      union all
      (select 2 as pri, input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_5m_per_mtok, cache_write_1h_per_mtok
         from spend_price_seed ss
        where ss.provider = ${provider} and ss.model = ${model} and ss.effective_from <= ${day}
        order by ss.effective_from desc limit 1)
    ) candidates order by pri limit 1
  )`;
}
