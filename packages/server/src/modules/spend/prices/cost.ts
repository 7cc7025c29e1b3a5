import { sql, type RawBuilder } from 'kysely';
import { dec, type Decimal } from '../../../platform/money.js';
import type { Rates } from './seed.js';

/**
 * The metered-cost rule, in one place (vendor-apis §8.2): metered cents = Σ over the token classes
 * of tokens × the class's rate (USD per million tokens) × 100 / 1,000,000 (i.e. × 0.0001), the
 * batch tier at half. A cache class without its own rate falls back to the input rate; a class
 * with no rate at all adds nothing, so callers decide first whether the tokens are priced
 * (`pricesEvery`). Exact decimals, never rounded (reports keep fractional cents, §6.5).
 *
 * The rule is written once, as the tables below; `meteredCents` applies it to decimals (the margin
 * guard) and `meteredCentsSql` writes it as a NUMERIC expression (usage, reconcile, allocation and
 * simulate reports). prices/cost.test and test/integration/spend/pricing.test check they agree.
 */

/** Each token class: the rate that prices it, and the rate it falls back to when the book has none. */
export const TOKEN_CLASSES = {
  uncachedInput: { rate: 'input', fallback: null },
  cacheRead: { rate: 'cacheRead', fallback: 'input' },
  cacheWrite5m: { rate: 'cacheWrite5m', fallback: 'input' },
  cacheWrite1h: { rate: 'cacheWrite1h', fallback: 'input' },
  output: { rate: 'output', fallback: null },
} as const satisfies Record<string, { rate: keyof Rates; fallback: keyof Rates | null }>;

export type TokenClass = keyof typeof TOKEN_CLASSES;

/** Token counts per class; a class left out has no tokens. */
export type Tokens<T> = Partial<Record<TokenClass, T>>;

/** Batch-tier usage is priced at this factor (decimal text, exact in SQL and in Decimal). */
export const BATCH_FACTOR = '0.5';

/** USD per million tokens → cents per token. */
export const CENTS_PER_MTOK_TOKEN = '0.0001';

const CLASSES = Object.keys(TOKEN_CLASSES) as TokenClass[];

const present = <T>(tokens: Tokens<T>) => CLASSES.filter((c) => tokens[c] !== undefined);

/** The rate pricing a class: its own, else its fallback's (cache classes: input), else null. */
export function rateOf(rates: Rates, tokenClass: TokenClass): Decimal | null {
  const { rate, fallback } = TOKEN_CLASSES[tokenClass];
  return rates[rate] ?? (fallback === null ? null : rates[fallback]);
}

/** Metered cents of `tokens` at `rates` (a class without a rate adds nothing), the batch tier at half. */
export function meteredCents(tokens: Tokens<Decimal>, rates: Rates, batch = false): Decimal {
  let sum = dec(0);
  for (const c of present(tokens)) {
    const rate = rateOf(rates, c);
    if (rate !== null) sum = sum.plus(tokens[c]!.times(rate));
  }
  return sum.times(batch ? BATCH_FACTOR : 1).times(CENTS_PER_MTOK_TOKEN);
}

/** Every class that has tokens has a rate (its own or its fallback). */
export function pricesEvery(tokens: Tokens<Decimal>, rates: Rates): boolean {
  return present(tokens).every((c) => tokens[c]!.isZero() || rateOf(rates, c) !== null);
}

/** Every cache class that has tokens has its own rate (no input-rate fallback was needed). */
export function cacheRatesKnown(tokens: Tokens<Decimal>, rates: Rates): boolean {
  return present(tokens).every((c) => TOKEN_CLASSES[c].fallback === null || tokens[c]!.isZero() || rates[TOKEN_CLASSES[c].rate] !== null);
}

// The same rule as SQL (NUMERIC: exact, and linear in the tokens, so a sum of per-bucket results
// equals the result on the summed tokens).

type Expr = RawBuilder<unknown>;

/** The rate columns of a relation, one expression per rate. */
export type SqlRates = Record<keyof Rates, Expr>;

/** Each key's column of relation `alias`. */
function columnsOf<K extends string>(alias: string, columns: Record<K, string>): Record<K, Expr> {
  return Object.fromEntries(Object.entries<string>(columns).map(([key, column]) => [key, sql.ref(`${alias}.${column}`)])) as Record<K, Expr>;
}

/** The rate columns the price-book lookups name (`ri`, `ro`, `rcr`, `rcw5`, `rcw1`) of relation `alias`. */
export function bookRates(alias: string): SqlRates {
  return columnsOf(alias, { input: 'ri', output: 'ro', cacheRead: 'rcr', cacheWrite5m: 'rcw5', cacheWrite1h: 'rcw1' });
}

function rateSql(rates: SqlRates, tokenClass: TokenClass): Expr {
  const { rate, fallback } = TOKEN_CLASSES[tokenClass];
  return fallback === null ? rates[rate] : sql`coalesce(${rates[rate]}, ${rates[fallback]})`;
}

/** `meteredCents` in SQL; `batch` a boolean expression (omitted: never batch). */
export function meteredCentsSql(tokens: Tokens<Expr>, rates: SqlRates, batch?: Expr): Expr {
  const parts = sql.join(
    present(tokens).map((c) => sql`coalesce(${tokens[c]!} * ${rateSql(rates, c)}, 0)`),
    sql` + `,
  );
  const factor = batch === undefined ? sql`` : sql`(case when ${batch} then ${sql.raw(BATCH_FACTOR)} else 1 end) * `;
  return sql`(${factor}(${parts}) * ${sql.raw(CENTS_PER_MTOK_TOKEN)})`;
}

/**
 * The tokens are priced: none at all, or the book has a row (`bookRow` not null) with a rate for
 * every class that has tokens (`pricesEvery`).
 */
export function pricedSql(tokens: Tokens<Expr>, rates: SqlRates, bookRow: Expr): Expr {
  const classes = present(tokens);
  const none = sql.join(classes.map((c) => sql`${tokens[c]!} = 0`), sql` and `);
  const every = sql.join(classes.map((c) => sql`(${tokens[c]!} = 0 or ${rateSql(rates, c)} is not null)`), sql` and `);
  return sql`((${none}) or (${bookRow} is not null and ${every}))`;
}

/** `cacheRatesKnown` in SQL. */
export function cacheRatesKnownSql(tokens: Tokens<Expr>, rates: SqlRates): Expr {
  const cache = present(tokens).filter((c) => TOKEN_CLASSES[c].fallback !== null);
  return sql`(${sql.join(cache.map((c) => sql`(${tokens[c]!} = 0 or ${rates[TOKEN_CLASSES[c].rate]} is not null)`), sql` and `)})`;
}

/** The token columns of a usage group (`u`, `cr`, `cw5`, `cw1`, `o`) of relation `alias`. */
export function groupTokens(alias: string): Tokens<Expr> {
  return columnsOf(alias, { uncachedInput: 'u', cacheRead: 'cr', cacheWrite5m: 'cw5', cacheWrite1h: 'cw1', output: 'o' });
}
