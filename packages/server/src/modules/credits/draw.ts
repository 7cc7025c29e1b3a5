import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import { toJsonb } from '../../platform/db/jsonb.js';
import { newId } from '../../platform/ids.js';
import { dec, roundCredits, type Decimal } from '../../platform/money.js';
import { availableInGrants, capacityOf, coveredUsage, planFifoDraw, planPoolDraw, poolStatusAfter, type DrawSource } from './domain.js';
import { appendUsageDraws, type UsageDrawEntry } from './ledger.js';
import { recordDepleted, recordPoolSignals, signalsOf, type PoolSignals } from './events.js';
import * as repo from './repo.js';
import { findPriceAtCached, resolveWeight, resolveWeightCached } from './tariff/service.js';
import { belowAutoTopupThreshold, recordAutoTopups, type AutoTopupContext } from './auto-topup/record.js';

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
 * Draw-down for many events in one transaction (usage's batch ingestion and hot-pool grouping):
 * setup (lock every pool the events can draw from, in pool-id order, and read links and grants
 * once) → compute (`draw`, in memory, one event at a time in the caller's order, each exactly as
 * a quote would see it and as the events before it left the pools: same sources, same FIFO, same hard-limit rule) → execute
 * (`flush`: one statement writes every ledger row, per-grant draw, grant remainder, pool total and
 * link total). One ledger row per pool an event draws from, numbered in event order.
 */
type CreditDrawTarget = { subscriptionId: string; denomination: string };

type BatchDrawInput = CreditDrawInput & { weight: ResolvedWeight };

export interface CreditDrawer {
  /** One event's draw against the state left by the events before it; null: nothing linked, 'refused': a hard limit. */
  draw(input: BatchDrawInput): CreditReceipt | null | 'refused';
  /** Writes what `draw` planned (nothing if no event drew). */
  flush(): Promise<void>;
}

/** A pool as the draws of this transaction leave it: parsed once, written back by `flush`. */
type PoolState = { row: repo.PoolRow; balance: Decimal; consumed: Decimal; seq: bigint; grants: GrantState[] };
/** A grant in the shape the FIFO rule takes (`DrawableGrant`), with its row. */
type GrantState = { id: string; remaining: Decimal; expiresAt: Date | null; row: repo.DrawGrant };

/**
 * Locks the pools linked to the targets (one statement, pool-id order) and loads their links and live
 * grants. Every amount is parsed once here and kept as a Decimal while the events are decided (ADR
 * 0029: re-parsing each grant's remainder for every event was most of a batch's draw cost).
 */
export async function openCreditDraws(tx: Tx, accountId: string, targets: CreditDrawTarget[], now: Date, autoTopup: AutoTopupContext): Promise<CreditDrawer> {
  const subscriptionIds = [...new Set(targets.map((t) => t.subscriptionId))];
  const denominations = [...new Set(targets.map((t) => t.denomination))];
  const pools = subscriptionIds.length === 0 ? [] : await repo.lockPoolsOf(tx, accountId, subscriptionIds, denominations);
  const poolIds = pools.map((p) => p.id);
  // Read under the pool locks: total_drawn changes only while its pool is locked.
  const { links, grants } = poolIds.length === 0 ? { links: [], grants: [] } : await repo.readDrawState(tx, accountId, poolIds, subscriptionIds);
  const poolById = new Map<string, PoolState>(pools.map((p) => [p.id, { row: p, balance: dec(p.balance), consumed: dec(p.total_consumed), seq: BigInt(p.ledger_seq), grants: [] }]));
  for (const g of grants) poolById.get(g.credit_pool_id)!.grants.push({ id: g.id, remaining: dec(g.remaining), expiresAt: g.expires_at, row: g });
  const linked = new Map<string, repo.LinkState[]>();
  const linksOf = (subscriptionId: string, denomination: string) => {
    const key = `${subscriptionId}|${denomination}`;
    let found = linked.get(key);
    if (!found) {
      found = links
        .filter((l) => l.subscriptionId === subscriptionId && poolById.get(l.poolId)?.row.denomination === denomination)
        .sort((a, b) => a.drawPriority - b.drawPriority || a.linkedAt.getTime() - b.linkedAt.getTime());
      linked.set(key, found);
    }
    return found;
  };
  const metadataOf = renderedOnce((input: BatchDrawInput) => toJsonb(usageDrawMetadata(input, input.weight)));
  const entries: UsageDrawEntry[] = [];
  const touchedGrants = new Set<GrantState>();
  const touchedPools = new Set<PoolState>();
  // credits.balance_low / credits.depleted fired by these draws or refusals (flags already flipped on
  // the locked rows, written back by flush with the balances): recorded by flush, in order.
  const fired: ({ kind: 'signals'; snapshot: repo.PoolRow; signals: PoolSignals } | { kind: 'refused'; snapshot: repo.PoolRow; charge: Decimal })[] = [];

  return {
    draw(input) {
      if (!input.denomination || !input.featureId || !input.subscriptionId) return null;
      const linkedPools = linksOf(input.subscriptionId, input.denomination);
      if (linkedPools.length === 0) return null;
      const weight = input.weight;
      const charge = roundCredits(input.units.times(weight.weight));
      const sources: DrawSource[] = [];
      for (const l of linkedPools) {
        const p = poolById.get(l.poolId)!;
        if (p.row.status !== 'ACTIVE' && p.row.status !== 'DEPLETED') continue;
        sources.push({ poolId: p.row.id, hardLimit: p.row.hard_limit, available: availableInGrants(p.grants, input.now), linkHeadroom: l.drawLimit === null ? null : l.drawLimit.minus(l.totalDrawn) });
      }
      const plan = planPoolDraw(sources, charge);
      if (plan.refused) {
        for (const src of sources) {
          const pool = poolById.get(src.poolId)!;
          if (!src.hardLimit || !pool.row.depleted_armed) continue;
          pool.row.depleted_armed = false;
          touchedPools.add(pool);
          fired.push({ kind: 'refused', snapshot: { ...pool.row, balance: pool.balance.toFixed(), total_consumed: pool.consumed.toFixed(), ledger_seq: String(pool.seq) }, charge });
        }
        return 'refused';
      }
      for (const d of plan.draws) {
        const pool = poolById.get(d.poolId)!;
        const fifo = planFifoDraw(pool.grants, d.amount, input.now);
        for (const f of fifo) {
          const grant = pool.grants.find((g) => g.id === f.grantId)!;
          grant.remaining = grant.remaining.minus(f.amount);
          touchedGrants.add(grant);
        }
        const before = pool.balance;
        const after = before.minus(d.amount);
        pool.balance = after;
        pool.consumed = pool.consumed.plus(d.amount);
        pool.seq += 1n;
        pool.row.status = poolStatusAfter(pool.row.status, pool.row.hard_limit, after);
        const signals = signalsOf(pool.row, before, after);
        if (signals.lowBalance || signals.depleted) {
          const snapshot = { ...pool.row, balance: after.toFixed(), total_consumed: pool.consumed.toFixed(), ledger_seq: String(pool.seq), modified_at: now };
          fired.push({ kind: 'signals', snapshot, signals });
        }
        touchedPools.add(pool);
        const link = linkedPools.find((l) => l.poolId === d.poolId)!;
        link.totalDrawn = link.totalDrawn.plus(d.amount);
        entries.push({ id: newId(), poolId: d.poolId, seq: String(pool.seq), amount: d.amount.neg(), before, after, subscriptionId: input.subscriptionId, eventId: input.eventId, metadata: metadataOf(input), draws: fifo });
      }
      let remainingBalance = dec(0);
      for (const l of linkedPools) remainingBalance = remainingBalance.plus(poolById.get(l.poolId)!.balance);
      return {
        creditsDeducted: plan.covered,
        weightApplied: weight.weight,
        weightId: weight.weightId,
        weightMatch: weight.weightMatch,
        remainingBalance,
        usageCovered: coveredUsage(plan.covered, weight.weight),
      };
    },
    async flush() {
      if (touchedPools.size === 0) return;
      for (const g of touchedGrants) g.row.remaining = g.remaining.toFixed();
      for (const p of touchedPools) Object.assign(p.row, { balance: p.balance.toFixed(), total_consumed: p.consumed.toFixed(), ledger_seq: String(p.seq) });
      if (entries.length > 0) await appendUsageDraws(tx, accountId, entries, [...touchedGrants].map((g) => g.row), [...touchedPools].map((p) => p.row), now);
      // Only refusals: the refused events write nothing, their pools' disarmed flags and events are all.
      else await repo.disarmDepleted(tx, accountId, [...touchedPools].map((p) => p.row.id));
      for (const f of fired) {
        if (f.kind === 'signals') await recordPoolSignals(tx, f.snapshot, f.signals, now);
        else await recordDepleted(tx, f.snapshot, 'EVENT_REFUSED', f.charge, now);
      }
      // Auto top-up (money §2.3): only pools whose locked row carries a threshold they are now below.
      const low = [...touchedPools].filter((p) => belowAutoTopupThreshold(p.row));
      if (low.length > 0) {
        const lastEntry = new Map(entries.map((e) => [e.poolId, e.id]));
        const drawn = low.flatMap((p) => (lastEntry.has(p.row.id) ? [{ pool: p.row, transactionId: lastEntry.get(p.row.id)! }] : []));
        await recordAutoTopups(autoTopup, tx, drawn, now);
      }
      entries.length = 0;
      fired.length = 0;
      touchedPools.clear();
      touchedGrants.clear();
    },
  };
}

/**
 * The ledger metadata of a draw, rendered once per distinct (weight, units, instants): events of one
 * batch mostly share all of them, and the rendering was a tenth of a batch's draw cost.
 */
function renderedOnce(render: (input: BatchDrawInput) => string) {
  const rendered = new Map<string, string>();
  return (input: BatchDrawInput) => {
    const w = input.weight;
    const key = `${w.weightId}|${w.weight.toString()}|${w.weightMatch}|${input.units.toString()}|${input.occurredAt.getTime()}|${input.ingestedAt.getTime()}`;
    let text = rendered.get(key);
    if (text === undefined) {
      text = render(input);
      rendered.set(key, text);
    }
    return text;
  };
}
