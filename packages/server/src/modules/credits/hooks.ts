import type { AppContext } from '../../platform/context.js';
import type { Job } from '../../platform/jobs/scheduler.js';
import { billingEvents } from '../billing/index.js';
import { planCreditAllocations } from '../catalog/index.js';
import { clawBackPlanCredits, expireDueGrants, grantPeriodCredits, grantUpgradeDelta } from './lifecycle.js';
import { listAllocations } from './repo.js';
import { expireDueReservations } from './reservations/service.js';
import { toAllocation } from './views.js';

/**
 * How credits joins the modules below it (called once at startup by runtime.ts): it subscribes to
 * billing's domain events, whose handlers run inside billing's transaction, and fills the catalog's
 * plan views with credit allocations.
 */
export function registerHooks(): void {
  billingEvents.periodPaid.on('credits', (tx, e) => grantPeriodCredits(tx, e.subscription, e.plan, e.period, e.now));
  billingEvents.subscriptionEnded.on('credits', (tx, e) => clawBackPlanCredits(tx, e.subscription, e.now));
  billingEvents.planChanged.on('credits', (tx, e) => grantUpgradeDelta(tx, e.subscription, e.from, e.to, e.changeId, e.now));
  planCreditAllocations.provide(async (db, accountId, planIds) => {
    const byPlan = new Map<string, Record<string, unknown>[]>();
    for (const row of await listAllocations(db, accountId, planIds)) {
      byPlan.set(row.plan_id, [...(byPlan.get(row.plan_id) ?? []), toAllocation(row) as Record<string, unknown>]);
    }
    return byPlan;
  });
}

/** The credits module's scheduled jobs (UTC cron). */
export function jobs(ctx: AppContext): Job[] {
  return [
    { name: 'credit-expiration', cron: '0 */15 * * * *', run: ({ now }) => expireDueGrants(ctx, now) },
    // Every minute: an expired hold keeps its credits out of the balance until this releases it.
    { name: 'credit-reservation-expiry', cron: '30 * * * * *', run: ({ now }) => expireDueReservations(ctx, now) },
  ];
}
