import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import type { Principal } from '../../../platform/http/principal.js';
import type { Decimal } from '../../../platform/money.js';
import { listCustomerSubscriptions } from '../../billing/index.js';
import { findPlan, fromStoredRuleValue, listRulesOfPlans } from '../../catalog/index.js';
import { activeMandateOf, agentStatusOf, getKeyBudget, mandateSpentIn, mandateWindow, type Customer } from '../../customers/index.js';
import { latestMandatePage } from '../../payments/index.js';
import { getAccountSettings } from '../../settings/index.js';
import { getUsageReport } from '../../usage/index.js';
import { planPeriodWording, toMandateView, type MandateFacts } from './domain.js';

type FeatureLimit = { included: Decimal | null; period: string; unlimited: boolean };

/** §4.2, §4.4 `limits`: per feature of the active subscriptions' plans, the spend cap and currency. */
export async function agentLimits(db: Executor, accountId: string, customerId: string) {
  const settings = await getAccountSettings(db, accountId);
  const { features } = await activePlanFeatures(db, accountId, customerId);
  return { features: Object.fromEntries(features), spend_cap: settings.agentMaxTopupAmount, currency: settings.currency };
}

async function activePlanFeatures(db: Executor, accountId: string, customerId: string) {
  const subscriptions = (await listCustomerSubscriptions(db, accountId, customerId))
    .filter((s) => s.is_active)
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (b.id < a.id ? -1 : 1));
  const features = new Map<string, FeatureLimit>();
  let newestPlanKey: string | null = null;
  for (const s of subscriptions) {
    const plan = await findPlan(db, accountId, s.plan_id);
    if (!plan) continue;
    newestPlanKey ??= plan.key;
    for (const rule of await listRulesOfPlans(db, accountId, [plan.id])) {
      if (!rule.is_enabled || features.has(rule.feature_key)) continue;
      const max = fromStoredRuleValue(rule.value).pricing?.maxUsage ?? null;
      features.set(rule.feature_key, { included: max, period: planPeriodWording(plan.interval_months), unlimited: max === null });
    }
  }
  return { features, planKey: newestPlanKey };
}

/** The calling key's money budget as `spend` (§4.4); null for a tenant key or a key without a money limit. */
export type KeySpendReader = (db: Executor, principal: Principal) => Promise<{ cap: Decimal; spent: Decimal; remaining: Decimal; resetsAt: Date | null } | null>;

/** The customer's mandate facts (§4.6): the active mandate with its window's spend, and the newest mandate page. */
export type MandateReader = (db: Executor, customer: Customer, now: Date) => Promise<MandateFacts>;

/**
 * The status body (§4.4) of a customer the caller may see (resolved and pinned by the route).
 * Null fields are written out, never omitted.
 */
export async function getAgentStatus(ctx: AppContext, principal: Principal, customer: Customer, readers: { keySpend: KeySpendReader; mandate: MandateReader }) {
  const now = ctx.clock.now();
  const { accountId } = principal;
  const settings = await getAccountSettings(ctx.db, accountId);
  const { features, planKey } = await activePlanFeatures(ctx.db, accountId, customer.id);
  // The caller may see this customer (the route resolved it); the report reads it as the tenant would.
  const report = await getUsageReport(ctx, { kind: 'tenant', accountId, keyId: 'agent-status' }, customer.customer_reference_id);
  const remaining: Record<string, Decimal | null> = {};
  for (const featureKey of features.keys()) remaining[featureKey] = null;
  for (const s of report.subscriptions) {
    for (const f of s.features) {
      if (!(f.featureKey in remaining) || remaining[f.featureKey] !== null) continue;
      remaining[f.featureKey] = 'remaining' in f && f.remaining !== undefined ? f.remaining : null;
    }
  }
  const spend = await readers.keySpend(ctx.db, principal);
  return {
    customerReferenceId: customer.customer_reference_id,
    status: agentStatusOf(customer),
    expires_at: customer.agent_status === 'claimed' || customer.agent_status === null ? null : customer.agent_expires_at,
    claimed_at: customer.agent_claimed_at,
    plan: planKey,
    limits: { features: Object.fromEntries(features), spend_cap: settings.agentMaxTopupAmount, currency: settings.currency },
    remaining,
    spend: spend && { cap: spend.cap, spent: spend.spent, remaining: spend.remaining, currency: settings.currency, resets_at: spend.resetsAt },
    owner_email: customer.owner_email,
    spend_mandate: toMandateView(await readers.mandate(ctx.db, customer, now), now),
  };
}

/**
 * `spend` (§4.4): the calling customer key's money budget in its current window; null for a tenant
 * key, a portal session (a human, not a key) and a key without a money limit.
 */
export const keySpendOfCaller = (now: Date): KeySpendReader => async (db, principal) => {
  if (principal.kind !== 'customer' || principal.portalSessionId !== undefined) return null;
  const budget = await getKeyBudget(db, principal.accountId, principal.keyId, now);
  if (budget.amountLimit === null) return null;
  return { cap: budget.amountLimit, spent: budget.amountSpent, remaining: budget.amountRemaining ?? budget.amountLimit, resetsAt: budget.resetsAt };
};

/**
 * The mandate facts (§4.6): the active mandate with what its window holds (reserved charges
 * included: they count as spent), and the customer's newest mandate page (payments).
 */
export const mandateFromCustomer: MandateReader = async (db, customer, now) => {
  const latestPage = await latestMandatePage(db, customer.account_id, customer.id, now);
  const mandate = activeMandateOf(customer);
  if (!mandate) return { active: null, latestPage };
  const settings = await getAccountSettings(db, customer.account_id);
  const window = mandateWindow(mandate.startedAt, mandate.period, now);
  const spent = await mandateSpentIn(db, customer.account_id, customer.id, mandate, window.start);
  return { active: { ...mandate, spent, currency: settings.currency }, latestPage };
};
