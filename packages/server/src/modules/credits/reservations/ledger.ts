import type { Tx } from '../../../platform/db/database.js';
import { AppError, notFound } from '../../../platform/errors/app-error.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { availableInGrants, planFifoDraw, planPoolDraw, type DrawSource } from '../domain.js';
import { append, drawFromPool, expireGrant } from '../ledger.js';
import * as creditRepo from '../repo.js';
import { mergePortions, splitHolds, sumOf, type HeldPortion } from './domain.js';
import * as repo from './repo.js';

/**
 * The reservation engine on locked pools. A hold takes credits out of the pools' balances and grants
 * (FIFO, per-grant draws recorded) into their held totals; a settlement (capture, release, expiry)
 * consumes part of each hold, draws any excess fresh, and gives the rest back to the very grants it
 * came from. Every step is a ledger row written through `append` (ledger.ts).
 */

type Grant = creditRepo.GrantRow;

/** Linked, drawable pools in draw order (priority, then link age), as draw-down sources. */
function sourcesOf(pools: repo.PoolForReservation[], grants: Grant[], now: Date, neverRefuse: boolean): DrawSource[] {
  return pools
    .filter((p) => p.linked_at !== null && (p.status === 'ACTIVE' || p.status === 'DEPLETED'))
    .sort((a, b) => a.draw_priority! - b.draw_priority! || a.linked_at!.getTime() - b.linked_at!.getTime())
    .map((p) => ({
      poolId: p.id,
      hardLimit: p.hard_limit && !neverRefuse,
      available: availableInGrants(grants.filter((g) => g.credit_pool_id === p.id).map((g) => ({ id: g.id, remaining: dec(g.remaining), expiresAt: g.expires_at })), now),
      linkHeadroom: p.draw_limit === null ? null : dec(p.draw_limit).minus(dec(p.total_drawn ?? '0')),
    }));
}

/**
 * 409 insufficient_credits for a hold, naming the hard-limit pools that refused it: the caller
 * records their credits.depleted (EVENT_REFUSED) once the refused hold has rolled back (events.ts).
 */
export class HoldRefused extends AppError {
  constructor(
    denomination: string,
    readonly poolIds: string[],
    readonly requestedCredits: Decimal,
  ) {
    super('insufficient_credits', `Credit pool depleted - hard limit active for denomination ${denomination}`);
  }
}

type HoldPlan = { pools: repo.PoolForReservation[]; grants: Grant[]; draws: { poolId: string; amount: Decimal }[]; held: Decimal };

/**
 * What a hold of `amount` would take: the subscription's linked pools are locked and drawn like an
 * event's charge (draw priority, link limits, FIFO). A hard-limit pool that cannot cover it refuses
 * (409 insufficient_credits); soft pools hold what they have (possibly nothing).
 */
export async function planHold(tx: Tx, input: { accountId: string; subscriptionId: string; denomination: string; amount: Decimal; now: Date }): Promise<HoldPlan> {
  const pools = await repo.lockReservationPools(tx, input.accountId, input.subscriptionId, input.denomination, []);
  if (pools.length === 0) throw notFound(`No credit pool in denomination '${input.denomination}' is linked to the customer's active subscription`);
  const grants = await creditRepo.listLiveGrants(tx, input.accountId, pools.map((p) => p.id));
  const sources = sourcesOf(pools, grants, input.now, false);
  const plan = planPoolDraw(sources, input.amount);
  if (plan.refused) throw new HoldRefused(input.denomination, sources.filter((s) => s.hardLimit).map((s) => s.poolId), input.amount);
  return { pools, grants, draws: plan.draws, held: plan.covered };
}

/** Books the plan's HOLD rows (one per pool) for the reservation just inserted. */
export async function applyHold(tx: Tx, plan: HoldPlan, reservation: repo.ReservationRow, now: Date) {
  for (const d of plan.draws) {
    const pool = plan.pools.find((p) => p.id === d.poolId)!;
    await drawFromPool(
      tx,
      pool,
      {
        type: 'HOLD',
        amount: d.amount,
        grants: plan.grants.filter((g) => g.credit_pool_id === pool.id),
        description: 'Credit reservation hold',
        subscriptionId: reservation.subscription_id,
        heldChange: d.amount,
        reservationId: reservation.id,
        metadata: reservation.flow_id ? { flow_id: reservation.flow_id } : {},
        linkDrawn: { subscriptionId: reservation.subscription_id, amount: d.amount },
      },
      now,
    );
  }
}

type Settlement = { captured: Decimal; remainingBalance: Decimal };
export type Outcome = 'CAPTURED' | 'RELEASED' | 'EXPIRED';

/**
 * Settles a HELD reservation the caller has locked: consumes `capture` credits (0 for a release or
 * an expiry) from its holds, draws what exceeds the holds fresh from the linked pools as far as they
 * go (never below zero, on soft and hard pools alike: the call already happened), and releases the
 * rest. Per pool: a CAPTURE row (amount = −excess, held_change = −consumed from the hold) and a
 * RELEASE row (amount = held_change = +released / −released).
 */
export async function settle(tx: Tx, r: repo.ReservationRow, outcome: Outcome, capture: Decimal, now: Date, eventId: string | null): Promise<Settlement> {
  const holds = await repo.listHolds(tx, r.account_id, r.id);
  const pools = await repo.lockReservationPools(tx, r.account_id, r.subscription_id, r.denomination, holds.map((h) => h.poolId));
  const order = (poolId: string) => {
    const p = pools.find((x) => x.id === poolId)!;
    return p.linked_at === null ? [Number.MAX_SAFE_INTEGER, 0] : [p.draw_priority!, p.linked_at.getTime()];
  };
  holds.sort((a, b) => order(a.poolId)[0]! - order(b.poolId)[0]! || order(a.poolId)[1]! - order(b.poolId)[1]!);
  const held = holds.reduce((s, h) => s.plus(dec(h.held).neg()), dec(0));
  const split = splitHolds(
    holds.map((h) => ({ poolId: h.poolId, portions: h.draws.map((d) => ({ grantId: d.credit_grant_id, amount: dec(d.amount) })) })),
    capture.lt(held) ? capture : held,
  );
  const excess = capture.minus(held);
  let grants: Grant[] = [];
  let excessDraws: { poolId: string; amount: Decimal }[] = [];
  if (excess.gt(0)) {
    grants = await creditRepo.listLiveGrants(tx, r.account_id, pools.filter((p) => p.linked_at !== null).map((p) => p.id));
    excessDraws = planPoolDraw(sourcesOf(pools, grants, now, true), excess).draws;
  }
  let captured = dec(0);
  for (const pool of pools) {
    const s = split.find((x) => x.poolId === pool.id);
    const fromHold = s?.consumed ?? [];
    const extra = excessDraws.find((d) => d.poolId === pool.id)?.amount ?? dec(0);
    if (sumOf(fromHold).plus(extra).gt(0)) {
      captured = captured.plus(sumOf(fromHold)).plus(extra);
      await bookCapture(tx, pool, r, fromHold, extra, grants, eventId, now);
    }
    if (s && s.released.length > 0) await bookRelease(tx, pool, r, outcome, s.released, now);
  }
  const remainingBalance = pools.filter((p) => p.linked_at !== null).reduce((sum, p) => sum.plus(dec(p.balance)), dec(0));
  return { captured, remainingBalance };
}

async function bookCapture(tx: Tx, pool: repo.PoolForReservation, r: repo.ReservationRow, fromHold: HeldPortion[], extra: Decimal, grants: Grant[], eventId: string | null, now: Date) {
  const poolGrants = grants.filter((g) => g.credit_pool_id === pool.id);
  const fresh = extra.gt(0) ? planFifoDraw(poolGrants.map((g) => ({ id: g.id, remaining: dec(g.remaining), expiresAt: g.expires_at })), extra, now) : [];
  const grantUpdates = fresh.map((d) => {
    const grant = poolGrants.find((g) => g.id === d.grantId)!;
    grant.remaining = dec(grant.remaining).minus(d.amount).toFixed();
    return { grantId: grant.id, remaining: dec(grant.remaining) };
  });
  await append(
    tx,
    pool,
    {
      type: 'CAPTURE',
      amount: extra.neg(),
      heldChange: sumOf(fromHold).neg(),
      reservationId: r.id,
      description: 'Credit reservation capture',
      subscriptionId: r.subscription_id,
      eventId,
      draws: mergePortions(fromHold, fresh),
      grantUpdates,
      ...(extra.gt(0) && pool.linked_at !== null ? { linkDrawn: { subscriptionId: r.subscription_id, amount: extra } } : {}),
      metadata: r.flow_id ? { flow_id: r.flow_id } : {},
    },
    now,
  );
}

/**
 * Gives held credits back to the grants they came from. A grant voided meanwhile (a cancellation's
 * claw-back) does not keep them: they are expired at once, as the claw-back would have.
 */
async function bookRelease(tx: Tx, pool: repo.PoolForReservation, r: repo.ReservationRow, outcome: Outcome, released: HeldPortion[], now: Date) {
  const rows = await Promise.all(released.map((p) => creditRepo.findGrant(tx, r.account_id, p.grantId)));
  const amount = sumOf(released);
  const linkBack = pool.linked_at !== null ? (dec(pool.total_drawn ?? '0').lt(amount) ? dec(pool.total_drawn ?? '0') : amount) : dec(0);
  await append(
    tx,
    pool,
    {
      type: 'RELEASE',
      amount,
      heldChange: amount.neg(),
      reservationId: r.id,
      description: { CAPTURED: 'Credit reservation: unused hold released', RELEASED: 'Credit reservation released', EXPIRED: 'Credit reservation expired' }[outcome],
      subscriptionId: r.subscription_id,
      draws: released,
      grantUpdates: released.map((p, i) => ({ grantId: p.grantId, remaining: dec(rows[i]!.remaining).plus(p.amount) })),
      ...(linkBack.gt(0) ? { linkDrawn: { subscriptionId: r.subscription_id, amount: linkBack.neg() } } : {}),
      metadata: r.flow_id ? { flow_id: r.flow_id } : {},
    },
    now,
  );
  if (pool.total_drawn !== null) pool.total_drawn = dec(pool.total_drawn).minus(linkBack).toFixed();
  for (const [i, p] of released.entries()) {
    const grant = rows[i]!;
    if (grant.voided_at === null) continue;
    grant.remaining = dec(grant.remaining).plus(p.amount).toFixed();
    await expireGrant(tx, pool, grant, p.amount, 'Released hold of a voided grant', now, { reason: 'CLAWBACK' });
  }
}
