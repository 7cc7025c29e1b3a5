import type { AppContext } from '../../../platform/context.js';
import type { SpendProvider } from '../tables.js';
import { tariffAt, type PublishedBatch, type TariffWarning } from '../../credits/index.js';
import { computeMargins, DEFAULT_TOKEN_MIX, type BookRate, type MarginReport, type MarginRow, type TokenMix } from './domain.js';
import { currentPrices } from '../prices/service.js';
import { normaliseModelName, resolveModelName } from '../prices/seed.js';
import { dayOf } from '../reports/window.js';
import { SPEND_PROVIDERS } from '../providers.js';

/**
 * The negative-margin guard (ADR 0015): the margin report, and the warnings the credits tariff's
 * publish answers with (spend provides credits' `tariffPublishWarnings` slot).
 */

export type MarginQuery = { at: Date; mix: TokenMix; extraModels: string[]; featureId?: string | undefined; belowCostOnly: boolean };

// An unmatched name is priced only by an operator row keyed as itself; operators file such rows under
// any provider, so the book is searched in this order (the token vendors first, then the rest of the
// registry in its order, a new vendor included).
const SEARCHED_FIRST: SpendProvider[] = ['ANTHROPIC', 'OPENAI', 'LITELLM'];
const PROVIDER_ORDER: SpendProvider[] = [...SEARCHED_FIRST, ...SPEND_PROVIDERS.filter((p) => !SEARCHED_FIRST.includes(p))];

/** Model name → the price-book row in force on `at`'s day, the way the reports resolve a reseller's name. */
async function bookAt(ctx: AppContext, accountId: string, at: Date): Promise<(model: string) => BookRate | null> {
  const rows = await currentPrices(ctx, accountId, dayOf(at));
  const book = new Map(rows.map((r) => [`${r.provider}\u0000${r.model}`, r]));
  const memo = new Map<string, BookRate | null>();
  return (model) => {
    if (memo.has(model)) return memo.get(model)!;
    const m = resolveModelName('LITELLM', model);
    const found = m.matched
      ? book.get(`${m.priceProvider}\u0000${m.priceModel}`)
      : PROVIDER_ORDER.map((p) => book.get(`${p}\u0000${normaliseModelName(model)}`)).find((r) => r !== undefined);
    const rate = found ? { provider: found.provider, model: found.model, rates: found.rates } : null;
    memo.set(model, rate);
    return rate;
  };
}

async function margins(ctx: AppContext, accountId: string, at: Date, mix: TokenMix, extraModels: string[]): Promise<MarginReport> {
  const [tariff, rateOf] = await Promise.all([tariffAt(ctx.db, accountId, at), bookAt(ctx, accountId, at)]);
  return computeMargins({ tariff, rateOf, mix, extraModels });
}

/** GET /api/v1/spend/reports/margin: every credit-backed combination at `at`, which sell below cost, what could not be compared. */
export async function marginReport(ctx: AppContext, accountId: string, q: MarginQuery) {
  const report = await margins(ctx, accountId, q.at, q.mix, q.extraModels);
  const ofFeature = <T extends { featureId: string }>(rows: T[]) => (q.featureId ? rows.filter((r) => r.featureId === q.featureId) : rows);
  const rows = ofFeature(report.rows);
  return {
    at: q.at,
    priceBookDay: dayOf(q.at),
    tokensPerUnit: { input: q.mix.input, cacheRead: q.mix.cacheRead, output: q.mix.output },
    rows: q.belowCostOnly ? rows.filter((r) => r.belowCost) : rows,
    belowCostCount: rows.filter((r) => r.belowCost).length,
    notCompared: ofFeature(report.notCompared),
    unpricedModels: report.unpricedModels,
  };
}

/** Whether a combination is one the published batch wrote (a weight chain it set, or a denomination it priced). */
function touchedBy(batch: PublishedBatch, row: MarginRow): boolean {
  if (batch.kind === 'prices') return batch.denominations.includes(row.denomination);
  return batch.entries.some(
    (e) => e.featureId === row.featureId && (e.model === null ? row.weightMatch === 'FEATURE_DEFAULT' : e.model === row.model && row.weightMatch === 'MODEL'),
  );
}

const fmt = (d: { toFixed(): string }) => d.toFixed();

/**
 * The below-cost combinations a batch makes at its effectiveFrom, with the default token mix. Off
 * with the spend module: the registry is process-wide, so the switch is read per call.
 */
export async function tariffWarnings(ctx: AppContext, accountId: string, batch: PublishedBatch): Promise<TariffWarning[]> {
  if (!ctx.config.modules.build) return [];
  const report = await margins(ctx, accountId, batch.effectiveFrom, DEFAULT_TOKEN_MIX, []);
  const mix = DEFAULT_TOKEN_MIX;
  return report.rows
    .filter((r) => r.belowCost && touchedBy(batch, r))
    .map((r) => ({
      code: 'BELOW_COST' as const,
      message:
        `Feature '${r.featureKey}' on model '${r.model}' sells below cost from ${batch.effectiveFrom.toISOString()}: ` +
        `${fmt(r.creditsPerUnit)} credits per unit × ${fmt(r.pricePerCredit)} USD per '${r.denomination}' credit earns ${fmt(r.revenueCentsPerUnit)} cents, ` +
        `the model costs ${fmt(r.costCentsPerUnit)} cents per unit (assuming ${fmt(mix.input)} input and ${fmt(mix.output)} output tokens per unit); ` +
        `break-even weight ${fmt(r.breakEvenCreditsPerUnit)}`,
      featureId: r.featureId,
      featureKey: r.featureKey,
      model: r.model,
      weightMatch: r.weightMatch,
      denomination: r.denomination,
      currency: r.currency,
      creditsPerUnit: r.creditsPerUnit,
      pricePerCredit: r.pricePerCredit,
      revenueCentsPerUnit: r.revenueCentsPerUnit,
      costCentsPerUnit: r.costCentsPerUnit,
      breakEvenCreditsPerUnit: r.breakEvenCreditsPerUnit,
    }));
}
