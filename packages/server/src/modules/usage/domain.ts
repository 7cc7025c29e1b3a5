import { dec, type Decimal } from '../../platform/money.js';
import type { Pricing } from '../catalog/index.js';
import { computeNextPeriod } from '../billing/index.js';

type DenialCode =
  | 'NO_SUBSCRIPTION'
  | 'ENTITLEMENT_REVOKED'
  | 'USAGE_LIMIT_EXCEEDED'
  | 'CREDIT_LIMIT_REACHED'
  | 'PROPOSED_USAGE_WOULD_EXCEED';

export const DENIAL_DESCRIPTIONS: Record<DenialCode, string> = {
  NO_SUBSCRIPTION: 'No active subscription',
  ENTITLEMENT_REVOKED: 'Entitlement is revoked',
  USAGE_LIMIT_EXCEEDED: 'Usage limit exceeded',
  CREDIT_LIMIT_REACHED: 'Credit limit reached',
  PROPOSED_USAGE_WOULD_EXCEED: 'Proposed usage would exceed limit',
};

export type EntitlementFacts = {
  hasActiveSubscription: boolean;
  entitlementsRevoked: boolean;
  /** The plan links the feature with an enabled rule. */
  ruleEnabled: boolean;
  pricing: Pricing | null;
  /** Usage in the rule's window (period or, for accumulate, since subscribing). */
  used: Decimal;
  /** Units an evaluate call proposes; absent on the GET check. */
  requestedUnits?: Decimal;
  /** Hard-limit credit pools cannot cover the (weighted) charge. */
  creditLimitReached?: boolean;
};

type EntitlementDecision = {
  allowed: boolean;
  reason: DenialCode | null;
  usage?: { used: Decimal; limit?: Decimal; remaining?: Decimal; unlimited: boolean };
  simulation?: { requestedUsage: Decimal; projectedUsage: Decimal; projectedRemaining: Decimal; wouldExceedLimit: boolean };
};

/**
 * Decides an entitlement check, failing closed, with the denial reasons in the contract's order.
 * A denial is a result, not an error.
 */
export function decideEntitlement(f: EntitlementFacts): EntitlementDecision {
  const max = f.pricing?.maxUsage ?? null;
  const usage = f.pricing
    ? {
        used: f.used,
        ...(max ? { limit: max, remaining: clampAtZero(max.minus(f.used)) } : {}),
        unlimited: max === null,
      }
    : undefined;
  const simulation =
    f.requestedUnits && max
      ? (() => {
          const projected = f.used.plus(f.requestedUnits);
          return { requestedUsage: f.requestedUnits, projectedUsage: projected, projectedRemaining: clampAtZero(max.minus(projected)), wouldExceedLimit: projected.gt(max) };
        })()
      : undefined;
  const deny = (reason: DenialCode): EntitlementDecision => ({ allowed: false, reason, ...(usage ? { usage } : {}), ...(simulation ? { simulation } : {}) });
  if (!f.hasActiveSubscription) return { allowed: false, reason: 'NO_SUBSCRIPTION' };
  if (f.entitlementsRevoked || !f.ruleEnabled) return deny('ENTITLEMENT_REVOKED');
  if (max && f.used.gte(max)) return deny('USAGE_LIMIT_EXCEEDED');
  if (f.creditLimitReached) return deny('CREDIT_LIMIT_REACHED');
  if (simulation?.wouldExceedLimit) return deny('PROPOSED_USAGE_WOULD_EXCEED');
  return { allowed: true, reason: null, ...(usage ? { usage } : {}), ...(simulation ? { simulation } : {}) };
}

function clampAtZero(value: Decimal): Decimal {
  return value.isNegative() ? dec(0) : value;
}

/**
 * The billing period containing `now`. Normally the subscription's current period; when the cycle
 * job has not yet rolled it over, the periods that follow are computed the same way the rollover
 * will, so usage lands in the counter the next invoice reads.
 */
export function periodContaining(
  current: { start: Date; end: Date },
  intervalMonths: number,
  anchorDay: number,
  now: Date,
): { start: Date; end: Date } {
  let period = current;
  while (period.end <= now) period = computeNextPeriod(period.end, intervalMonths, anchorDay);
  return period;
}

export type SubscriptionEntitlements = { subscriptionId: string; entitlements: { featureKey: string; allowed: boolean }[] };

/**
 * The entitlement list (GET /entitlements/{ref}): one item per active subscription whose plan links
 * at least one feature. An entitlement is in force (`allowed`) when its rule is enabled and the
 * subscription's entitlements are not revoked (past-due invoice); usage and credit limits are left
 * to the per-feature check, which this list does not replace.
 */
export function listSubscriptionEntitlements(
  subscriptions: { id: string; planId: string; entitlementsRevoked: boolean }[],
  rules: { planId: string; featureKey: string; enabled: boolean }[],
): SubscriptionEntitlements[] {
  return subscriptions
    .map((s) => ({
      subscriptionId: s.id,
      entitlements: rules.filter((r) => r.planId === s.planId).map((r) => ({ featureKey: r.featureKey, allowed: r.enabled && !s.entitlementsRevoked })),
    }))
    .filter((item) => item.entitlements.length > 0);
}
