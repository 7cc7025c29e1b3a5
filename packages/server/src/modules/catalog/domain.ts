import type { PlanRow } from './repo.js';

export type PlanStatus = PlanRow['status'];
const TRANSITIONS: Record<PlanStatus, PlanStatus[]> = { DRAFT: ['ACTIVE'], ACTIVE: ['ARCHIVED'], ARCHIVED: ['ACTIVE'] };
const STATUSES: PlanStatus[] = ['DRAFT', 'ACTIVE', 'ARCHIVED'];

/** The 400 message for a requested status change, or null when the change is allowed. */
export function checkPlanTransition(from: PlanStatus, requested: string): string | null {
  if (!STATUSES.includes(requested as PlanStatus)) {
    return `Invalid plan status: ${requested}. Valid values: ${STATUSES.join(', ')}`;
  }
  if (requested === from) return null;
  return TRANSITIONS[from].includes(requested as PlanStatus) ? null : `Cannot transition plan from ${from} to ${requested}`;
}

/** Activation preconditions in the contract's order; the first failure is the message. */
export function checkActivation(plan: PlanRow, linkedFeatures: number): string | null {
  if (!plan.name?.trim()) return 'Plan must have a name before activation';
  if (!plan.description?.trim()) return 'Plan must have a description before activation';
  if (!plan.interval_months || plan.interval_months < 1) return 'Plan must have a positive intervalMonths before activation';
  if (plan.price_amount === null) return 'Plan must have a priceAmount before activation';
  if (linkedFeatures < 1) return 'Plan must have at least one linked feature before activation';
  return null;
}

/** Fields an ACTIVE plan keeps fixed: subscribers were billed on them. */
export const ACTIVE_PLAN_IMMUTABLE = [
  ['key', 'key'],
  ['intervalMonths', 'interval_months'],
  ['priceAmount', 'price_amount'],
  ['billingTiming', 'billing_timing'],
] as const;
