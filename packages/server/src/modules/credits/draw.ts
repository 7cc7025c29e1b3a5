import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { AppError } from '../../platform/errors/app-error.js';
import { dec, roundCredits, type Decimal } from '../../platform/money.js';
import { availableInGrants, capacityOf, coveredUsage, planPoolDraw, type DrawSource } from './domain.js';
import { drawFromPool } from './ledger.js';
import * as repo from './repo.js';
import { findPriceAtCached, resolveWeight, resolveWeightCached } from './tariff/service.js';

export type WeightMatch = 'MODEL' | 'FEATURE_DEFAULT' | 'NONE';
export type ResolvedWeight = Awaited<ReturnType<typeof resolveWeight>>;

export type CreditQuote = {
  weight: Decimal;
  estimatedCredits: Decimal;
  weightId: string | null;
  weightMatch: WeightMatch;
  pricePerCredit: Decimal | null;
  currency: string | null;
  estimatedCost: Decimal | null;
};

export type CreditQuoteInput = {
  accountId: string;
  customerId: string;
  featureId: string | null;
  subscriptionId: string | null;
  /** The denomination of the rule's credit model; null means the feature is not credit-backed. */
  denomination: string | null;
  units: Decimal;
  model: string | null;
  now: Date;
};

const identityQuote = (units: Decimal): CreditQuote => ({
  weight: dec(1),
  estimatedCredits: roundCredits(units),
  weightId: null,
  weightMatch: 'NONE',
  pricePerCredit: null,
  currency: null,
  estimatedCost: null,
});

/** What linked pools could supply now: ACTIVE pools' balances, each capped by its link's headroom. */
type LinkedPool = { credit_pool_id: string; status: repo.PoolRow['status']; hard_limit: boolean; balance: string; draw_limit: string | null; total_drawn: string };

/** A FROZEN or ARCHIVED pool gives nothing: draws, holds and quotes pass it over. */
const isDrawable = (l: LinkedPool) => l.status === 'ACTIVE' || l.status === 'DEPLETED';

export function sourcesOf(links: LinkedPool[], available: (poolId: string, balance: Decimal) => Decimal): DrawSource[] {
  return links
    .filter(isDrawable)
    .map((l) => ({
      poolId: l.credit_pool_id,
      hardLimit: l.hard_limit,
      available: available(l.credit_pool_id, dec(l.balance)),
      linkHeadroom: l.draw_limit === null ? null : dec(l.draw_limit).minus(dec(l.total_drawn)),
    }));
}

/** The `credit` of an entitlement check (contract §4.9): the pools it counts, summed exactly. */
type CreditSummary = { denomination: string; balance: Decimal; totalGranted: Decimal; totalConsumed: Decimal; hardLimit: boolean };

type QuotedPool = LinkedPool & { total_granted: string; total_consumed: string };

/**
 * The check's `credit` from the rows its quote already read, with no statement of its own (ADR 0030,
 * Decision 4). It counts the pools the limit decision and the draw use: the subscription's linked,
 * drawable pools (a shared pool linked to it counts; a customer pool not linked to it does not).
 * `balance` is what they can give a draw by the decision's own rule (`capacityOf`: held credits are
 * already out of the pool balance; link draw limits cap it), so a refusal for credits never shows a
 * balance covering its charge; `hardLimit`: any counted pool can refuse. Null: no such pool.
 */
function summarizeCredit(denomination: string, links: QuotedPool[]): CreditSummary | null {
  const counted = links.filter(isDrawable);
  if (counted.length === 0) return null;
  const sum = (values: Decimal[]) => values.reduce((total, v) => total.plus(v), dec(0));
  return {
    denomination,
    balance: sum(sourcesOf(links, (_id, balance) => balance).map(capacityOf)),
    totalGranted: sum(counted.map((l) => dec(l.total_granted))),
    totalConsumed: sum(counted.map((l) => dec(l.total_consumed))),
    hardLimit: counted.some((l) => l.hard_limit),
  };
}

/**
 * A pre-flight quote: weight at request time (no clamp), estimated credits and cost at the book
 * price in effect now, whether hard-limit pools could cover it, and the pools' `credit` summary
 * (null: not credit-backed, no subscription, or no drawable pool in the denomination linked to it).
 * A quote, not a promise.
 */
export async function quoteCredits(
  ctx: Pick<AppContext, 'cache' | 'db'>,
  input: CreditQuoteInput,
): Promise<{ quote: CreditQuote; limitReached: boolean; credit: CreditSummary | null }> {
  if (!input.denomination || !input.featureId) return { quote: identityQuote(input.units), limitReached: false, credit: null };
  // Tariff rows may come from the node cache; the pools' balances never do.
  const [weight, price] = await Promise.all([
    resolveWeightCached(ctx, input.accountId, input.featureId, input.model, input.now),
    findPriceAtCached(ctx, input.accountId, input.denomination, input.now),
  ]);
  const estimatedCredits = roundCredits(input.units.times(weight.weight));
  const quote: CreditQuote = {
    weight: weight.weight,
    estimatedCredits,
    weightId: weight.weightId,
    weightMatch: weight.weightMatch,
    pricePerCredit: price?.pricePerCredit ?? null,
    currency: price?.currency ?? null,
    estimatedCost: price ? roundCredits(estimatedCredits.times(price.pricePerCredit)) : null,
  };
  if (!input.subscriptionId) return { quote, limitReached: false, credit: null };
  const links = await repo.listLinkedPools(ctx.db, input.accountId, input.subscriptionId, input.denomination);
  return {
    quote,
    limitReached: planPoolDraw(sourcesOf(links, (_id, balance) => balance), estimatedCredits).refused,
    credit: summarizeCredit(input.denomination, links),
  };
}

export type CreditDrawInput = CreditQuoteInput & {
  /** The weight at the clamped occurredAt, when the caller resolved it before taking locks. */
  weight?: ResolvedWeight;
  eventId: string;
  occurredAt: Date;
  ingestedAt: Date;
};

export type CreditReceipt = {
  creditsDeducted: Decimal;
  weightApplied: Decimal;
  weightId: string | null;
  weightMatch: WeightMatch;
  remainingBalance: Decimal;
  /** Usage units the deducted credits cover (FLOOR, 6 dp); the rest stays billable. */
  usageCovered: Decimal;
};

/** The ledger metadata of a usage event's draw, the same on the single and the batch path. */
export function usageDrawMetadata(input: Pick<CreditDrawInput, 'units' | 'occurredAt' | 'ingestedAt'>, weight: ResolvedWeight) {
  return {
    credit_feature_weight_id: weight.weightId,
    credits_per_unit: weight.weight,
    usage_units: input.units,
    weight_match: weight.weightMatch,
    occurred_at: input.occurredAt.toISOString(),
    ingested_at: input.ingestedAt.toISOString(),
  };
}

/**
 * Draws an event's charge (usageUnits × weight at the clamped occurredAt, rounded once) from the
 * subscription's linked pools in the rule's denomination, inside the ingestion transaction: pools in
 * draw-priority order, each FIFO across its grants, capped by link draw limits. A hard-limit pool
 * that cannot cover the charge refuses the event (409 insufficient_credits). Null: not credit-backed.
 */
export async function drawCredits(tx: Tx, input: CreditDrawInput): Promise<CreditReceipt | null> {
  if (!input.denomination || !input.featureId || !input.subscriptionId) return null;
  const linked = await repo.lockLinkedPools(tx, input.accountId, input.subscriptionId, input.denomination);
  if (linked.length === 0) return null;
  const weight = input.weight ?? (await resolveWeight(tx, input.accountId, input.featureId, input.model, input.occurredAt));
  const charge = roundCredits(input.units.times(weight.weight));
  const grants = await repo.listLiveGrants(tx, input.accountId, linked.map((p) => p.id));
  const grantsOf = (poolId: string) => grants.filter((g) => g.credit_pool_id === poolId);
  const sources = sourcesOf(
    linked.map((p) => ({ credit_pool_id: p.id, status: p.status, hard_limit: p.hard_limit, balance: p.balance, draw_limit: p.draw_limit, total_drawn: p.total_drawn })),
    (poolId) => availableInGrants(grantsOf(poolId).map((g) => ({ id: g.id, remaining: dec(g.remaining), expiresAt: g.expires_at })), input.now),
  );
  const plan = planPoolDraw(sources, charge);
  if (plan.refused) {
    throw new AppError('insufficient_credits', `Credit pool depleted - hard limit active for denomination ${input.denomination}`);
  }
  for (const d of plan.draws) {
    const pool = linked.find((p) => p.id === d.poolId)!;
    await drawFromPool(
      tx,
      pool,
      {
        type: 'DEDUCTION',
        amount: d.amount,
        grants: grantsOf(pool.id),
        description: 'Usage event',
        subscriptionId: input.subscriptionId,
        eventId: input.eventId,
        metadata: usageDrawMetadata(input, weight),
        linkDrawn: { subscriptionId: input.subscriptionId, amount: d.amount },
      },
      input.now,
    );
  }
  return {
    creditsDeducted: plan.covered,
    weightApplied: weight.weight,
    weightId: weight.weightId,
    weightMatch: weight.weightMatch,
    remainingBalance: linked.reduce((sum, p) => sum.plus(dec(p.balance)), dec(0)),
    usageCovered: coveredUsage(plan.covered, weight.weight),
  };
}
