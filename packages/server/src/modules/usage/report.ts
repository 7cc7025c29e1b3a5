import type { AppContext } from '../../platform/context.js';
import type { Principal } from '../../platform/http/principal.js';
import { dec } from '../../platform/money.js';
import { listCustomerSubscriptions, projectEndOfPeriod } from '../billing/index.js';
import { findPlan, fromStoredRuleValue, listRulesOfPlans } from '../catalog/index.js';
import { resolveCallerCustomer } from '../customers/index.js';
import { findPriceAt, listAccountPools } from '../credits/index.js';
import { computeAverageDailyBurn, computeDepletionDate } from './burn.js';
import { periodContaining } from './domain.js';
import { listSubscriptionCounters } from './repo.js';

/**
 * The burndown for one customer: per active subscription and per rule on its plan, usage in the
 * current window and a linear end-of-period projection. Reads counters, never sums events.
 */
export async function getUsageReport(ctx: AppContext, principal: Principal, ref: string | undefined) {
  const now = ctx.clock.now();
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const subscriptions = (await listCustomerSubscriptions(ctx.db, principal.accountId, customer.id)).filter((s) => s.is_active);
  const out = [];
  for (const s of subscriptions) {
    const plan = (await findPlan(ctx.db, principal.accountId, s.plan_id))!;
    const period = periodContaining({ start: s.current_period_start, end: s.current_period_end }, plan.interval_months!, s.billing_anchor_day, now);
    const rules = await listRulesOfPlans(ctx.db, principal.accountId, [plan.id]);
    const counters = await listSubscriptionCounters(ctx.db, principal.accountId, s.id);
    const features = rules.map((r) => {
      const pricing = fromStoredRuleValue(r.value).pricing;
      const mine = counters.filter((k) => k.feature_id === r.feature_id);
      const inWindow = pricing?.resetMode === 'accumulate' ? mine : mine.filter((k) => k.period_start.getTime() === period.start.getTime());
      const used = inWindow.reduce((sum, k) => sum.plus(dec(k.used)), dec(0));
      const limit = pricing?.maxUsage ?? null;
      const projected = projectEndOfPeriod(used, period.start, period.end, now);
      return {
        featureKey: r.feature_key,
        used,
        ...(limit ? { limit, remaining: used.gte(limit) ? dec(0) : limit.minus(used) } : {}),
        ...(projected ? { projectedEndOfPeriod: projected } : {}),
        ...(limit && projected ? { wouldExceedLimit: projected.gt(limit) } : {}),
      };
    });
    out.push({ subscriptionId: s.id, planKey: plan.key, currentPeriodStart: period.start, currentPeriodEnd: period.end, features });
  }
  return { customerReferenceId: customer.customer_reference_id, asOf: now, subscriptions: out, creditPools: await poolBurndown(ctx, principal.accountId, customer.id, now) };
}

/** Per pool: balance, average daily burn since creation, projected depletion, price in effect now. */
async function poolBurndown(ctx: AppContext, accountId: string, customerId: string, now: Date) {
  const pools = await listAccountPools(ctx, accountId, customerId);
  return Promise.all(
    pools.map(async (p) => {
      const burn = computeAverageDailyBurn(p.totalConsumed, p.createdAt, now);
      const depletion = computeDepletionDate(p.balance, burn, now);
      const price = await findPriceAt(ctx.db, accountId, p.denomination, now);
      return {
        poolId: p.id,
        denomination: p.denomination,
        balance: p.balance,
        totalConsumed: p.totalConsumed,
        ...(burn ? { averageDailyBurn: burn } : {}),
        ...(depletion ? { projectedDepletionDate: depletion } : {}),
        ...(price ? { pricePerCredit: price.pricePerCredit, currency: price.currency } : {}),
      };
    }),
  );
}
