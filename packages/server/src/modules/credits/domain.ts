import { Decimal, dec, floorCredits } from '../../platform/money.js';

/**
 * Pure credit rules: FIFO draw plans, draw-down across pools, rollover and pool status. They take
 * balances as arguments and return plans; ledger.ts applies them inside the caller's transaction.
 */

export type DrawableGrant = { id: string; remaining: Decimal; expiresAt: Date | null };

/** FIFO across grants (the caller orders them oldest first); never draws from an expired grant. */
export function planFifoDraw(grants: DrawableGrant[], amount: Decimal, now: Date): { grantId: string; amount: Decimal }[] {
  const plan: { grantId: string; amount: Decimal }[] = [];
  let left = amount;
  for (const g of grants) {
    if (left.lte(0)) break;
    if (g.remaining.lte(0) || (g.expiresAt && g.expiresAt <= now)) continue;
    const take = minOf(g.remaining, left);
    plan.push({ grantId: g.id, amount: take });
    left = left.minus(take);
  }
  return plan;
}

/** Credits a grant set can supply now (unexpired remainders). */
export function availableInGrants(grants: DrawableGrant[], now: Date): Decimal {
  return grants.reduce((sum, g) => (g.expiresAt && g.expiresAt <= now ? sum : sum.plus(g.remaining)), dec(0));
}

export type DrawSource = {
  poolId: string;
  hardLimit: boolean;
  /** Credits the pool can give now: unexpired grant remainders (ACTIVE pools only). */
  available: Decimal;
  /** drawLimit − totalDrawn on the subscription's link; null = no cap. */
  linkHeadroom: Decimal | null;
};

type PoolDrawPlan = {
  /** Per pool, in draw order. */
  draws: { poolId: string; amount: Decimal }[];
  covered: Decimal;
  uncovered: Decimal;
  /** A hard-limit pool is linked and the pools together cannot cover the charge: refuse the event. */
  refused: boolean;
};

/** What a source can give a draw: its available credits, capped by its link's headroom (never below zero). */
export function capacityOf(s: DrawSource): Decimal {
  return s.linkHeadroom === null ? s.available : minOf(s.available, maxOf(s.linkHeadroom, dec(0)));
}

/**
 * Draws a charge across a subscription's pools in draw-priority order (the caller sorts them),
 * each capped by its link's draw limit. If any pool is hard-limit and the total available is short,
 * the whole charge is refused; otherwise what cannot be covered stays billable usage.
 */
export function planPoolDraw(sources: DrawSource[], charge: Decimal): PoolDrawPlan {
  const capacity = sources.map(capacityOf);
  const total = capacity.reduce((sum, c) => sum.plus(c), dec(0));
  if (sources.some((s) => s.hardLimit) && total.lt(charge)) {
    return { draws: [], covered: dec(0), uncovered: charge, refused: true };
  }
  const draws: { poolId: string; amount: Decimal }[] = [];
  let left = charge;
  sources.forEach((s, i) => {
    if (left.lte(0)) return;
    const take = minOf(capacity[i]!, left);
    if (take.gt(0)) draws.push({ poolId: s.poolId, amount: take });
    left = left.minus(take);
  });
  return { draws, covered: charge.minus(left), uncovered: left, refused: false };
}

type RolloverGrant = { id: string; remaining: Decimal };

/**
 * What a rollover policy expires at a period boundary, over the subscription's PLAN_INCLUDED and
 * ROLLOVER grants (oldest first). NONE expires all; FULL keeps all; CAPPED keeps at most `cap`,
 * expiring the oldest credits first.
 */
export function planRollover(policy: 'NONE' | 'FULL' | 'CAPPED', cap: Decimal | null, grants: RolloverGrant[]): { grantId: string; amount: Decimal }[] {
  if (policy === 'FULL') return [];
  if (policy === 'NONE') return grants.filter((g) => g.remaining.gt(0)).map((g) => ({ grantId: g.id, amount: g.remaining }));
  const total = grants.reduce((sum, g) => sum.plus(g.remaining), dec(0));
  let excess = total.minus(cap ?? dec(0));
  const plan: { grantId: string; amount: Decimal }[] = [];
  for (const g of grants) {
    if (excess.lte(0)) break;
    const take = minOf(g.remaining, excess);
    if (take.gt(0)) plan.push({ grantId: g.id, amount: take });
    excess = excess.minus(take);
  }
  return plan;
}

/** A hard-limit pool is DEPLETED at a zero balance and ACTIVE again once topped up. */
export function poolStatusAfter(status: 'ACTIVE' | 'FROZEN' | 'DEPLETED' | 'ARCHIVED', hardLimit: boolean, balance: Decimal) {
  if (status === 'FROZEN' || status === 'ARCHIVED') return status;
  return hardLimit && balance.lte(0) ? 'DEPLETED' : 'ACTIVE';
}

/** The once-only flags of a pool's credits.balance_low and credits.depleted (migration 0039). */
export type PoolSignalState = { threshold: Decimal | null; hardLimit: boolean; lowArmed: boolean; depletedArmed: boolean };

/**
 * What one committed balance change fires and how it leaves the flags (api-contract-events.md §E5.6).
 * balance_low: an armed pool that goes from ≥ threshold to < threshold fires and is disarmed; a
 * change that leaves it ≥ threshold re-arms it. depleted (hard-limit only): a change that lowers the
 * balance to ≤ 0 fires when armed and disarms; any change that raises the balance re-arms it.
 */
export function computePoolSignals(state: PoolSignalState, before: Decimal, after: Decimal) {
  let { lowArmed, depletedArmed } = state;
  let lowBalance = false;
  let depleted = false;
  if (state.threshold !== null) {
    if (after.gte(state.threshold)) lowArmed = true;
    else if (lowArmed && before.gte(state.threshold)) [lowBalance, lowArmed] = [true, false];
  }
  if (after.gt(before)) depletedArmed = true;
  else if (state.hardLimit && depletedArmed && after.lt(before) && after.lte(0)) [depleted, depletedArmed] = [true, false];
  return { lowBalance, depleted, lowArmed, depletedArmed };
}

/** Setting a threshold fires nothing: it arms the pool when the balance is at or above it, else disarms it. */
export const armedForThreshold = (threshold: Decimal | null, balance: Decimal) => threshold === null || balance.gte(threshold);

/** Credits → usage units they cover (for the event context): FLOOR at 6 dp. */
export function coveredUsage(credits: Decimal, weight: Decimal): Decimal {
  return floorCredits(credits.div(weight));
}

function minOf(a: Decimal, b: Decimal) {
  return a.lt(b) ? a : b;
}
function maxOf(a: Decimal, b: Decimal) {
  return a.gt(b) ? a : b;
}
