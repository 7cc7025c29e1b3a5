import { createHash } from 'node:crypto';
import { calcPrice, findProvider, type MatchLogic, type ModelInfo, type ModelPrice, type Provider } from '@pydantic/genai-prices';
import type { SpendPriceSource, SpendProvider } from '../tables.js';
import { dec, type Decimal } from '../../../platform/money.js';

/**
 * The seeded half of the price book: every anthropic and openai model of `@pydantic/genai-prices`
 * with its dated price changes, plus the rows of vendor-apis.md §8.2 where the package differs or
 * lacks the model (§8.2 wins; the module README lists each difference). Pure: no I/O.
 */

/** "Since always": the package's first (undated) price of a model. */
export const SINCE_ALWAYS = '1970-01-01';

/** Rates are stored as numeric(20, 10): a rate with more places would be rounded by the column. */
export const RATE_SCALE = 10;

/** Bumped when the resolution rules below change, so stored name matches are resolved again. */
const MATCHER_REVISION = 2;

export type Rates = {
  input: Decimal | null;
  output: Decimal | null;
  cacheRead: Decimal | null;
  cacheWrite5m: Decimal | null;
  cacheWrite1h: Decimal | null;
};

export type SeedRow = { provider: 'ANTHROPIC' | 'OPENAI'; model: string; effectiveFrom: string; rates: Rates; source: SpendPriceSource };

type PackageProviderId = 'anthropic' | 'openai';
const PROVIDER_OF: Record<PackageProviderId, 'ANTHROPIC' | 'OPENAI'> = { anthropic: 'ANTHROPIC', openai: 'OPENAI' };

type OverrideModel = {
  provider: PackageProviderId;
  id: string;
  /** Only for a model the package lacks; a model it has keeps its own name-matching rules. */
  match?: MatchLogic;
  /** Oldest first; the first row is in force since always. Values in USD per million tokens, as text. */
  prices: { from: string; input: string; output: string; cacheRead: string | null; cacheWrite5m: string | null; cacheWrite1h: string | null }[];
};

/** A model id alone or followed by an 8-digit snapshot date, or written with a dot for its version. */
const claudeMatch = (id: string, dotted: string): MatchLogic => ({
  or: [{ equals: id }, { regex: `^${id}-\\d{8}$` }, { starts_with: dotted }],
});

/**
 * vendor-apis.md §8.2 rows that the package lacks or prices differently (the README's table).
 * Base rates only: tiers are per request (a daily bucket sums many), so haiku-5-5 is its ≤100K rate.
 */
export const SEED_OVERRIDES: OverrideModel[] = [
  {
    provider: 'anthropic',
    id: 'claude-sonnet-5-5',
    match: claudeMatch('claude-sonnet-5-5', 'claude-sonnet-5.5'),
    prices: [
      { from: SINCE_ALWAYS, input: '2', output: '10', cacheRead: '0.2', cacheWrite5m: '2.5', cacheWrite1h: '4' },
      { from: '2026-10-07', input: '2', output: '10', cacheRead: '0.1', cacheWrite5m: '2.5', cacheWrite1h: '4' },
    ],
  },
  {
    provider: 'anthropic',
    id: 'claude-haiku-5-5',
    match: claudeMatch('claude-haiku-5-5', 'claude-haiku-5.5'),
    prices: [{ from: SINCE_ALWAYS, input: '0.1', output: '0.5', cacheRead: '0.01', cacheWrite5m: '0.125', cacheWrite1h: '0.2' }],
  },
  {
    provider: 'anthropic',
    id: 'claude-mythos-5',
    match: claudeMatch('claude-mythos-5', 'claude-mythos-5.0'),
    prices: [{ from: SINCE_ALWAYS, input: '10', output: '50', cacheRead: '1', cacheWrite5m: '12.5', cacheWrite1h: '20' }],
  },
  {
    provider: 'anthropic',
    id: 'claude-mythos-5-1',
    match: claudeMatch('claude-mythos-5-1', 'claude-mythos-5.1'),
    prices: [{ from: SINCE_ALWAYS, input: '10', output: '50', cacheRead: '0.25', cacheWrite5m: '12.5', cacheWrite1h: '20' }],
  },
  {
    // The package drops it to 4 / 20 from 2026-08-21; §8.2 lists 5 / 0.50 / 30 / 6.25.
    provider: 'openai',
    id: 'gpt-5.6-sol',
    prices: [{ from: SINCE_ALWAYS, input: '5', output: '30', cacheRead: '0.5', cacheWrite5m: '6.25', cacheWrite1h: null }],
  },
];

const PRICE_KEYS = {
  input: 'input_mtok',
  output: 'output_mtok',
  cacheRead: 'cache_read_mtok',
  cacheWrite5m: 'cache_write_mtok',
  cacheWrite1h: 'cache_write_1h_mtok',
} as const satisfies Record<keyof Rates, string>;

/**
 * One package rate as an exact decimal. The package's data holds JS numbers; each is taken through
 * its shortest round-trip decimal text (`String(n)`: 0.3 → "0.3"), never through arithmetic. A
 * tiered rate contributes its base (tiers apply per request, and a daily bucket sums requests).
 */
export function packageRate(value: unknown): Decimal | null {
  if (value === undefined || value === null) return null;
  const n = typeof value === 'object' && 'base' in value ? (value as { base: unknown }).base : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw new Error(`genai-prices: unexpected rate ${JSON.stringify(value)}`);
  const d = dec(String(n));
  if (d.decimalPlaces() > RATE_SCALE) throw new Error(`genai-prices: rate ${String(n)} has more than ${RATE_SCALE} decimal places`);
  return d;
}

function ratesOf(price: ModelPrice): Rates {
  return {
    input: packageRate(price[PRICE_KEYS.input]),
    output: packageRate(price[PRICE_KEYS.output]),
    cacheRead: packageRate(price[PRICE_KEYS.cacheRead]),
    cacheWrite5m: packageRate(price[PRICE_KEYS.cacheWrite5m]),
    cacheWrite1h: packageRate(price[PRICE_KEYS.cacheWrite1h]),
  };
}

/**
 * A model's dated prices, oldest first. The package picks the last entry whose start_date has
 * passed, falling back to the first, so the first entry is in force since always whatever its
 * constraint. Time-of-day prices (off-peak discounts) do not apply to daily buckets: skipped.
 */
function datedPrices(model: ModelInfo): { from: string; price: ModelPrice }[] {
  if (!Array.isArray(model.prices)) return [{ from: SINCE_ALWAYS, price: model.prices }];
  const byDay = new Map<string, ModelPrice>();
  model.prices.forEach((entry, i) => {
    const c = entry.constraint;
    if (c && c.type === 'time_of_date') return;
    byDay.set(i === 0 || !c ? SINCE_ALWAYS : c.start_date, entry.prices);
  });
  return [...byDay].sort(([a], [b]) => a.localeCompare(b)).map(([from, price]) => ({ from, price }));
}

const hasTokenRate = (r: Rates) => r.input !== null || r.output !== null;

function packageProvider(id: PackageProviderId): Provider {
  const p = findProvider({ providerId: id });
  if (!p) throw new Error(`genai-prices: provider ${id} missing`);
  return p;
}

/** Every seeded row: the package's models (without those §8.2 overrides) and the overrides. */
export function buildSeedRows(): SeedRow[] {
  const rows: SeedRow[] = [];
  for (const pid of ['anthropic', 'openai'] as const) {
    const overridden = new Set(SEED_OVERRIDES.filter((o) => o.provider === pid).map((o) => o.id));
    for (const model of packageProvider(pid).models) {
      if (overridden.has(model.id)) continue;
      for (const { from, price } of datedPrices(model)) {
        const rates = ratesOf(price);
        if (hasTokenRate(rates)) rows.push({ provider: PROVIDER_OF[pid], model: model.id, effectiveFrom: from, rates, source: 'PACKAGE' });
      }
    }
  }
  for (const o of SEED_OVERRIDES) {
    for (const p of o.prices) {
      const rates: Rates = {
        input: dec(p.input),
        output: dec(p.output),
        cacheRead: p.cacheRead === null ? null : dec(p.cacheRead),
        cacheWrite5m: p.cacheWrite5m === null ? null : dec(p.cacheWrite5m),
        cacheWrite1h: p.cacheWrite1h === null ? null : dec(p.cacheWrite1h),
      };
      rows.push({ provider: PROVIDER_OF[o.provider], model: o.id, effectiveFrom: p.from, rates, source: 'SEED_OVERRIDE' });
    }
  }
  return rows;
}

/** Identifies the seeded data and the matcher: a change (package upgrade, new override) refreshes the seed. */
export function seedDataHash(rows: SeedRow[]): string {
  const text = JSON.stringify({ revision: MATCHER_REVISION, rows, matchers: (['anthropic', 'openai'] as const).map((p) => matcherProvider(p).models.map((m) => [m.id, m.match])) });
  return createHash('sha256').update(text).digest('hex');
}

// Name matching: the package's own matcher (calcPrice resolves the name; its price is ignored).

const matchers = new Map<PackageProviderId, Provider>();

/** The package's provider with the §8.2-only models first, so `claude-sonnet-5-5` is not taken by `claude-sonnet-5`'s prefix rule. */
function matcherProvider(pid: PackageProviderId): Provider {
  let p = matchers.get(pid);
  if (!p) {
    const base = packageProvider(pid);
    const extra: ModelInfo[] = SEED_OVERRIDES.filter((o) => o.provider === pid && o.match).map((o) => ({
      id: o.id,
      match: o.match!,
      // A valid price object for the matcher only; the seed rows above carry the real rates.
      prices: { input_mtok: 0, output_mtok: 0 },
    }));
    p = { ...base, models: [...extra, ...base.models] };
    matchers.set(pid, p);
  }
  return p;
}

const AT = new Date('2026-01-01T00:00:00Z');

function matchIn(pid: PackageProviderId, name: string): string | null {
  try {
    return calcPrice({}, name, { provider: matcherProvider(pid), timestamp: AT })?.model.id ?? null;
  } catch {
    return null;
  }
}

export type ModelMatch = { priceProvider: SpendProvider; priceModel: string; matched: boolean };

/** How a name is keyed when nothing matches it: trimmed, lower-cased (as the package compares). */
export const normaliseModelName = (name: string) => name.trim().toLowerCase();

/**
 * The price-book model a vendor's model name resolves to. ANTHROPIC and OPENAI names are looked up
 * in their own provider; the resellers (Cursor, Copilot, LiteLLM) in the provider whose model rule
 * the name fits (a `anthropic/` or `openai/` prefix first picks it). Unmatched: the name itself
 * under its own provider, so only an operator row can price it.
 */
export function resolveModelName(provider: SpendProvider, name: string): ModelMatch {
  const key = normaliseModelName(name);
  const tries: [PackageProviderId, string][] =
    provider === 'ANTHROPIC'
      ? [['anthropic', key]]
      : provider === 'OPENAI'
        ? [['openai', key]]
        : resellerTries(key);
  for (const [pid, n] of tries) {
    const id = matchIn(pid, n) ?? (pid === 'anthropic' ? matchIn(pid, familyFirst(n)) : null);
    if (id) return { priceProvider: PROVIDER_OF[pid], priceModel: id, matched: true };
  }
  return { priceProvider: provider, priceModel: key, matched: false };
}

/**
 * Resellers (Cursor) write Claude names version first (`claude-4.5-sonnet`, `claude-4-sonnet-thinking`),
 * which the package knows only for some models: tried again family first (`claude-sonnet-4.5`).
 */
function familyFirst(name: string): string {
  return name.replace(/^claude-(\d+(?:[.-]\d+)?)-(opus|sonnet|haiku)(?=$|-)/, 'claude-$2-$1');
}

function resellerTries(key: string): [PackageProviderId, string][] {
  const slash = key.indexOf('/');
  if (slash > 0) {
    const prefix = key.slice(0, slash);
    const rest = key.slice(slash + 1);
    if (prefix === 'anthropic' || prefix === 'openai') return [[prefix, rest]];
  }
  return key.includes('claude') ? [['anthropic', key], ['openai', key]] : [['openai', key], ['anthropic', key]];
}
