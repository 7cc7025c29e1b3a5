import type { PlanRow } from './repo.js';

type PlanStatus = PlanRow['status'];
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

/** One unmet activation precondition: the request field it names, the contract's sentence, how to meet it. */
export type ActivationProblem = {
  field: 'name' | 'description' | 'intervalMonths' | 'priceAmount' | 'features';
  message: string;
  hint: string;
};

/**
 * Every unmet activation precondition, in the contract's order (name, description, interval, price,
 * linked feature). The contract's 400 message is the first one's; the answer's `fields[]` lists them
 * all, so a bare plan is fixed in one round instead of five.
 */
export function activationProblems(plan: PlanRow, linkedFeatures: number): ActivationProblem[] {
  const problems: ActivationProblem[] = [];
  const need = (field: ActivationProblem['field'], what: string, hint: string) =>
    problems.push({ field, message: `Plan must have ${what} before activation`, hint });
  if (!plan.name?.trim()) need('name', 'a name', 'set a non-blank name');
  if (!plan.description?.trim()) need('description', 'a description', 'set a non-blank description');
  if (!plan.interval_months || plan.interval_months < 1) need('intervalMonths', 'a positive intervalMonths', 'set intervalMonths ≥ 1 (1 = monthly)');
  if (plan.price_amount === null) need('priceAmount', 'a priceAmount', 'set priceAmount (0 for a free plan)');
  if (linkedFeatures < 1) {
    need('features', 'at least one linked feature', 'link a feature with POST /api/v1/monetization/rules/plan-features');
  }
  return problems;
}

/** Fields an ACTIVE plan keeps fixed: subscribers were billed on them. */
export const ACTIVE_PLAN_IMMUTABLE = [
  ['key', 'key'],
  ['intervalMonths', 'interval_months'],
  ['priceAmount', 'price_amount'],
  ['billingTiming', 'billing_timing'],
] as const;
