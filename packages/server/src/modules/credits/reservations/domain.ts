import { dec, type Decimal } from '../../../platform/money.js';

/**
 * Pure rules of reservations: how a settlement splits each pool's hold into the credits it consumes
 * and the credits it gives back. No database, no clock.
 */

export type HeldPortion = { grantId: string; amount: Decimal };
/** One pool's hold: the grant portions it took, oldest grant first. */
type PoolHold = { poolId: string; portions: HeldPortion[] };
type HoldSplit = { poolId: string; consumed: HeldPortion[]; released: HeldPortion[] };

/**
 * Consumes `consume` credits from the holds in the order given (the pools' draw order), each pool's
 * oldest grant portions first; whatever is not consumed is released back to the grants it came from.
 * `consume` beyond the holds' total is the caller's excess (drawn fresh), not part of the split.
 */
export function splitHolds(holds: PoolHold[], consume: Decimal): HoldSplit[] {
  let left = consume;
  return holds.map((h) => {
    const consumed: HeldPortion[] = [];
    const released: HeldPortion[] = [];
    for (const p of h.portions) {
      const take = left.lt(p.amount) ? (left.gt(0) ? left : dec(0)) : p.amount;
      if (take.gt(0)) consumed.push({ grantId: p.grantId, amount: take });
      if (p.amount.minus(take).gt(0)) released.push({ grantId: p.grantId, amount: p.amount.minus(take) });
      left = left.minus(take);
    }
    return { poolId: h.poolId, consumed, released };
  });
}

/** Per-grant draws of one ledger row, with a grant that appears twice merged (one draw row per grant). */
export function mergePortions(...lists: HeldPortion[][]): HeldPortion[] {
  const byGrant = new Map<string, Decimal>();
  for (const p of lists.flat()) byGrant.set(p.grantId, (byGrant.get(p.grantId) ?? dec(0)).plus(p.amount));
  return [...byGrant].map(([grantId, amount]) => ({ grantId, amount }));
}

export const sumOf = (portions: { amount: Decimal }[]) => portions.reduce((s, p) => s.plus(p.amount), dec(0));

/** The hold time granted: the one asked for, else the default, never beyond the install's maximum. */
export function holdSecondsOf(requested: number | undefined, maxSeconds: number): number {
  return Math.min(requested ?? Math.min(DEFAULT_HOLD_SECONDS, maxSeconds), maxSeconds);
}

/** A hold asked without `holdSeconds` lasts 5 minutes (a long streaming call), or the maximum if lower. */
const DEFAULT_HOLD_SECONDS = 300;
