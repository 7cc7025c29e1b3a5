import type { SpendProvider } from '../tables.js';
import { dec, Decimal } from '../../../platform/money.js';
import type { TariffSnapshot } from '../../credits/index.js';
import { cacheRatesKnown, meteredCents, pricesEvery } from '../prices/cost.js';
import type { Rates } from '../prices/seed.js';

/**
 * The negative-margin guard (ADR 0015), pure: for every credit-backed (feature, model) combination,
 * what one usage unit earns (weight × price per credit) against what the model costs for the
 * assumed tokens of one unit (the spend price book's per-million rates). Exact decimals throughout;
 * nothing is rounded except the break-even weight, rounded up to the tariff's 6 dp.
 */

/** Tokens one usage unit is assumed to carry (decimals: a unit may be a fraction of a call or of a token). */
export type TokenMix = { input: Decimal; cacheRead: Decimal; output: Decimal };

/** One unit is one call of 1,000 input and 1,000 output tokens unless the caller says otherwise. */
export const DEFAULT_TOKEN_MIX: TokenMix = { input: dec(1000), cacheRead: dec(0), output: dec(1000) };

/** The price-book row that prices a model name, or null when the book has none. */
export type BookRate = { provider: SpendProvider; model: string; rates: Rates };

export type WeightMatch = 'MODEL' | 'FEATURE_DEFAULT' | 'NONE';

export type MarginRow = {
  featureId: string;
  featureKey: string;
  model: string;
  weightMatch: WeightMatch;
  weightId: string | null;
  creditsPerUnit: Decimal;
  denomination: string;
  currency: 'USD';
  pricePerCredit: Decimal;
  priceProvider: SpendProvider;
  priceModel: string;
  revenueCentsPerUnit: Decimal;
  costCentsPerUnit: Decimal;
  marginCentsPerUnit: Decimal;
  belowCost: boolean;
  breakEvenCreditsPerUnit: Decimal;
  cacheRateKnown: boolean;
};

export type NotComparedReason = 'NO_DENOMINATION' | 'SEVERAL_DENOMINATIONS' | 'NO_CREDIT_PRICE' | 'CURRENCY_NOT_USD' | 'NO_MODEL_TO_CHECK';

export type NotCompared = { featureId: string; featureKey: string; model: string | null; denomination: string | null; currency: string | null; reason: NotComparedReason };

export type MarginReport = { rows: MarginRow[]; notCompared: NotCompared[]; unpricedModels: string[] };

export type MarginInput = {
  tariff: TariffSnapshot;
  /** Prices a model name (the weight's exact string); null: not in the book. */
  rateOf: (model: string) => BookRate | null;
  mix: TokenMix;
  /** Models besides those the tariff names, to check feature-default (and identity) weights against. */
  extraModels: string[];
};

const TARIFF_SCALE = 6;

/** Cost of one unit in cents (the one pricing rule, prices/cost.ts), or null when the book cannot price a token class the mix has. */
export function unitCost(mix: TokenMix, rates: Rates): { cents: Decimal; cacheRateKnown: boolean } | null {
  const tokens = { uncachedInput: mix.input, cacheRead: mix.cacheRead, output: mix.output };
  if (!pricesEvery(tokens, rates)) return null;
  return { cents: meteredCents(tokens, rates), cacheRateKnown: cacheRatesKnown(tokens, rates) };
}

type Feature = { featureId: string; featureKey: string; denominations: string[] };
type Revenue = { denomination: string; pricePerCredit: Decimal } | { denomination: string | null; currency: string | null; reason: NotComparedReason };

/** Which price per credit a feature's weight earns: its one denomination's price in effect, in USD. */
function revenueOf(feature: Feature, prices: Map<string, { pricePerCredit: Decimal; currency: string }>): Revenue {
  if (feature.denominations.length === 0) return { denomination: null, currency: null, reason: 'NO_DENOMINATION' };
  if (feature.denominations.length > 1) return { denomination: feature.denominations.join(', '), currency: null, reason: 'SEVERAL_DENOMINATIONS' };
  const denomination = feature.denominations[0]!;
  const price = prices.get(denomination);
  if (!price) return { denomination, currency: null, reason: 'NO_CREDIT_PRICE' };
  if (price.currency !== 'USD') return { denomination, currency: price.currency, reason: 'CURRENCY_NOT_USD' };
  return { denomination, pricePerCredit: price.pricePerCredit };
}

/**
 * The combinations, with the weight ingestion would apply (tariff precedence): each model row of a
 * feature; and, for every model the tariff names anywhere (or the caller adds) that a feature has
 * no row for, the feature's default row, else the identity weight 1 (credit-backed features only).
 */
export function computeMargins(input: MarginInput): MarginReport {
  const { tariff, mix } = input;
  const prices = new Map(tariff.prices.map((p) => [p.denomination, p]));
  const features = new Map<string, Feature>(tariff.creditFeatures.map((f) => [f.featureId, f]));
  for (const w of tariff.weights) if (!features.has(w.featureId)) features.set(w.featureId, { featureId: w.featureId, featureKey: w.featureKey, denominations: [] });
  const vocabulary = [...new Set([...tariff.weights.flatMap((w) => (w.model === null ? [] : [w.model])), ...input.extraModels])].sort();

  const rows: MarginRow[] = [];
  const notCompared: NotCompared[] = [];
  const unpriced = new Set<string>();
  for (const model of vocabulary) if (input.rateOf(model) === null) unpriced.add(model);

  for (const feature of [...features.values()].sort((a, b) => a.featureKey.localeCompare(b.featureKey) || a.featureId.localeCompare(b.featureId))) {
    const own = tariff.weights.filter((w) => w.featureId === feature.featureId);
    const revenue = revenueOf(feature, prices);
    if ('reason' in revenue) {
      // Not credit-backed as one priced USD denomination: its rows are listed, not expanded.
      for (const w of own) notCompared.push({ featureId: feature.featureId, featureKey: feature.featureKey, model: w.model, denomination: revenue.denomination, currency: revenue.currency, reason: revenue.reason });
      if (own.length === 0) notCompared.push({ featureId: feature.featureId, featureKey: feature.featureKey, model: null, denomination: revenue.denomination, currency: revenue.currency, reason: revenue.reason });
      continue;
    }
    const byModel = new Map(own.filter((w) => w.model !== null).map((w) => [w.model!, w]));
    const fallback = own.find((w) => w.model === null) ?? null;
    let fallbackUsed = false;
    for (const model of vocabulary) {
      const exact = byModel.get(model);
      if (!exact) fallbackUsed = true;
      const weight = exact ?? fallback;
      const match: WeightMatch = exact ? 'MODEL' : fallback ? 'FEATURE_DEFAULT' : 'NONE';
      const rate = input.rateOf(model);
      const cost = rate && unitCost(mix, rate.rates);
      if (!rate || !cost) {
        unpriced.add(model);
        continue;
      }
      const creditsPerUnit = weight?.creditsPerUnit ?? dec(1);
      const centsPerCredit = revenue.pricePerCredit.times(100);
      const revenueCents = creditsPerUnit.times(centsPerCredit);
      const margin = revenueCents.minus(cost.cents);
      rows.push({
        featureId: feature.featureId,
        featureKey: feature.featureKey,
        model,
        weightMatch: match,
        weightId: weight?.id ?? null,
        creditsPerUnit,
        denomination: revenue.denomination,
        currency: 'USD',
        pricePerCredit: revenue.pricePerCredit,
        priceProvider: rate.provider,
        priceModel: rate.model,
        revenueCentsPerUnit: revenueCents,
        costCentsPerUnit: cost.cents,
        marginCentsPerUnit: margin,
        belowCost: margin.isNegative() && !margin.isZero(),
        breakEvenCreditsPerUnit: cost.cents.div(centsPerCredit).toDecimalPlaces(TARIFF_SCALE, Decimal.ROUND_UP),
        cacheRateKnown: cost.cacheRateKnown,
      });
    }
    if (fallback && !fallbackUsed) {
      notCompared.push({ featureId: feature.featureId, featureKey: feature.featureKey, model: null, denomination: revenue.denomination, currency: 'USD', reason: 'NO_MODEL_TO_CHECK' });
    }
  }
  return { rows, notCompared, unpricedModels: [...unpriced].sort() };
}
