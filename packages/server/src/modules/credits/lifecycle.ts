import type { Tx } from '../../platform/db/database.js';
import { toJsonb } from '../../platform/db/jsonb.js';
import { newId } from '../../platform/ids.js';
import { dec } from '../../platform/money.js';
import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { JobItems } from '../../platform/jobs/items.js';
import type { Plan as PlanRow } from '../catalog/index.js';
import type { Subscription as SubscriptionRow } from '../billing/index.js';
import { planRollover } from './domain.js';
import { expireGrant, grantCredits } from './ledger.js';
import * as repo from './repo.js';

/** Adds `months` calendar months, clamping the day to the target month's length. */
function addMonths(date: Date, months: number): Date {
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return target;
}

/** The customer's pool for an allocation's denomination, created on first use, and linked to the subscription. */
async function ensurePoolFor(tx: Tx, subscription: SubscriptionRow, plan: PlanRow, allocation: repo.AllocationWithModel, now: Date) {
  let pool = await repo.findCustomerPool(tx, subscription.account_id, subscription.customer_id, allocation.denomination);
  if (!pool) {
    pool = await repo.insertPool(tx, {
      id: newId(),
      account_id: subscription.account_id,
      customer_id: subscription.customer_id,
      name: `${allocation.denomination} - ${subscription.customer_id}`,
      denomination: allocation.denomination,
      currency: plan.currency,
      hard_limit: allocation.hard_limit ?? allocation.model_hard_limit,
      rollover_policy: allocation.rollover_policy,
      rollover_cap: allocation.rollover_cap,
      metadata: toJsonb({}),
      now,
    });
  }
  if (!(await repo.findLink(tx, subscription.account_id, pool.id, subscription.id))) {
    await repo.insertLink(tx, { account_id: subscription.account_id, credit_pool_id: pool.id, subscription_id: subscription.id, draw_priority: 0, draw_limit: null, total_drawn: '0', created_at: now });
  }
  const [locked] = await repo.lockPools(tx, subscription.account_id, [pool.id]);
  return locked!;
}

/**
 * Plan-included credits for a paid or started period: per allocation, first the rollover policy
 * runs over the subscription's earlier plan-included credits, then the period's grant is added.
 * Once per (subscription, pool, period start): a second call for the same period does nothing.
 */
export async function grantPeriodCredits(tx: Tx, subscription: SubscriptionRow, plan: PlanRow, period: { start: Date; end: Date }, now: Date) {
  const allocations = await repo.listAllocations(tx, subscription.account_id, [plan.id]);
  for (const allocation of allocations) {
    const pool = await ensurePoolFor(tx, subscription, plan, allocation, now);
    if (await repo.findPeriodGrant(tx, subscription.account_id, subscription.id, pool.id, period.start)) continue;
    const rollable = await repo.listRollableGrants(tx, subscription.account_id, subscription.id, pool.id);
    const expire = planRollover(pool.rollover_policy, pool.rollover_cap === null ? null : dec(pool.rollover_cap), rollable.map((g) => ({ id: g.id, remaining: dec(g.remaining) })));
    for (const e of expire) {
      await expireGrant(tx, pool, rollable.find((g) => g.id === e.grantId)!, e.amount, `Rollover (${pool.rollover_policy}) at period start`, now, { reason: 'ROLLOVER' });
    }
    await grantCredits(
      tx,
      pool,
      {
        grantType: 'PLAN_INCLUDED',
        amount: dec(allocation.credit_amount),
        subscriptionId: subscription.id,
        periodStart: period.start,
        expiresAt: allocation.grant_expires_months ? addMonths(now, allocation.grant_expires_months) : null,
        description: `Plan credits for period starting ${period.start.toISOString()}`,
      },
      now,
    );
  }
}

/** Cancellation: every plan-included grant of the subscription that still holds credits is voided. */
export async function clawBackPlanCredits(tx: Tx, subscription: SubscriptionRow, now: Date) {
  const pools = await repo.lockPools(tx, subscription.account_id, await repo.listLinkedPoolIds(tx, subscription.account_id, subscription.id));
  for (const pool of pools) {
    const grants = (await repo.listRollableGrants(tx, subscription.account_id, subscription.id, pool.id)).filter((g) => g.grant_type === 'PLAN_INCLUDED');
    for (const g of grants) await expireGrant(tx, pool, g, dec(g.remaining), 'Claw back on subscription cancellation', now, { void: true, reason: 'CLAWBACK' });
  }
}

/** Upgrade: per denomination, the new plan's allocation minus the old one's, when positive, once per change. */
export async function grantUpgradeDelta(tx: Tx, subscription: SubscriptionRow, from: PlanRow, to: PlanRow, changeId: string, now: Date) {
  const [oldAllocations, newAllocations] = await Promise.all([
    repo.listAllocations(tx, subscription.account_id, [from.id]),
    repo.listAllocations(tx, subscription.account_id, [to.id]),
  ]);
  for (const allocation of newAllocations) {
    const before = oldAllocations.find((a) => a.denomination === allocation.denomination);
    const delta = dec(allocation.credit_amount).minus(dec(before?.credit_amount ?? '0'));
    if (delta.lte(0)) continue;
    const key = `plan-change:${changeId}:${allocation.denomination}`;
    if (await repo.findGrantByKey(tx, subscription.account_id, key)) continue;
    const pool = await ensurePoolFor(tx, subscription, to, allocation, now);
    await grantCredits(tx, pool, { grantType: 'PLAN_INCLUDED', amount: delta, subscriptionId: subscription.id, idempotencyKey: key, description: `Upgrade to ${to.name ?? to.key}` }, now);
  }
}

/**
 * Expiry job: the remainder of every expired grant moves to total_expired. Each grant in its own
 * transaction; a grant that fails is skipped and reported (platform/jobs/items.ts).
 */
export async function expireDueGrants(ctx: AppContext, now: Date) {
  const items = new JobItems();
  await items.each('credit grant', (after) => repo.expiredGrants(ctx.db, now, after), (item) =>
    withTransaction(ctx.db, async (tx) => {
      const [pool] = await repo.lockPools(tx, item.account_id, [item.credit_pool_id]);
      const grant = await repo.findGrant(tx, item.account_id, item.id);
      if (!pool || !grant || grant.voided_at || dec(grant.remaining).lte(0) || !grant.expires_at || grant.expires_at > now) return;
      await expireGrant(tx, pool, grant, dec(grant.remaining), 'Grant expired', now, { reason: 'EXPIRED' });
    }),
  );
  items.finish();
}
