import type { SpendMatchKind, SpendMonthlyMode, SpendProvider } from '../tables.js';
import type { Decimal } from '../../../platform/money.js';
import { effectiveMonthlyCents } from '../budgets/domain.js';
import type { LiteLlmTarget } from '../vendors/litellm-budget.js';

/**
 * Gateway enforcement as pure rules (contract §7.5, vendor-apis.md §5.4): which LiteLLM objects a
 * unit's rules name, and what `max_budget` each should hold.
 */

/** A LiteLLM object a rule names, with its label (`litellm:team:backend`, the API's enforcementTarget). */
export type GatewayTarget = LiteLlmTarget & { label: string };

const KIND_OF: Record<SpendMatchKind, LiteLlmTarget['kind']> = { WORKSPACE_ID: 'team', API_KEY_ID: 'key', ACTOR: 'user' };

/**
 * The LiteLLM targets of a unit's own rules, in rule order (priority, then creation), each once:
 * WORKSPACE_ID → team, API_KEY_ID → key (the hashed token the spend logs carry, which the proxy's
 * `/key/update` accepts as well as the raw key), ACTOR → internal user.
 */
export function gatewayTargetsOf(rules: readonly { provider: SpendProvider; match_kind: SpendMatchKind; match_value: string }[]): GatewayTarget[] {
  const seen = new Set<string>();
  const targets: GatewayTarget[] = [];
  for (const rule of rules) {
    if (rule.provider !== 'LITELLM') continue;
    const kind = KIND_OF[rule.match_kind];
    const label = `litellm:${kind}:${rule.match_value}`;
    if (seen.has(label)) continue;
    seen.add(label);
    targets.push({ kind, id: rule.match_value, label });
  }
  return targets;
}

export type GatewayBudget = {
  monthlyMode: SpendMonthlyMode;
  monthlyCents: Decimal | null;
  bumpMonthlyCents: Decimal | null;
  bumpExpiresAt: Date | null;
};

/**
 * The `max_budget` in dollars the gateway should hold for a budget: the effective monthly ceiling
 * (the bump while it lasts) of a BLOCK budget, exactly (cents ÷ 100, no rounding); null (no limit)
 * for ALERT, for a budget without a monthly ceiling, and for no budget at all.
 */
export function maxBudgetDollarsOf(budget: GatewayBudget | null, now: Date): Decimal | null {
  if (!budget || budget.monthlyMode !== 'BLOCK') return null;
  const cents = effectiveMonthlyCents(budget, now);
  return cents === null ? null : cents.div(100);
}

/** What one enforcement run pushes: every target, one limit, through one connection. */
export type GatewayPlan = { connectionId: string; targets: GatewayTarget[]; maxBudgetDollars: Decimal | null };

export function samePlan(a: GatewayPlan, b: GatewayPlan): boolean {
  const amount = (p: GatewayPlan) => (p.maxBudgetDollars === null ? null : p.maxBudgetDollars.toFixed());
  return a.connectionId === b.connectionId && amount(a) === amount(b) && a.targets.map((t) => t.label).join('\n') === b.targets.map((t) => t.label).join('\n');
}

/** The budget row's enforcement columns after a push: where the ceiling is enforced, or why it is not. */
export type EnforcementFields = { enforcement_target: string | null; enforced_at?: Date | null; enforcement_error: string | null };

/**
 * A push's outcome as the budget shows it. Success with a limit: the first target (rule order) and
 * the time; success with `null`: nothing is enforced (all cleared). Failure: the proxy's message
 * (prefixed with the target when the unit has several) and no target; `enforced_at` is left as it was.
 */
export function enforcementFieldsOf(plan: GatewayPlan, failures: { target: GatewayTarget; message: string }[], now: Date): EnforcementFields {
  const failure = failures[0];
  if (failure) {
    const message = plan.targets.length > 1 ? `${failure.target.label}: ${failure.message}` : failure.message;
    return { enforcement_target: null, enforcement_error: message };
  }
  if (plan.maxBudgetDollars === null) return { enforcement_target: null, enforced_at: null, enforcement_error: null };
  return { enforcement_target: plan.targets[0]!.label, enforced_at: now, enforcement_error: null };
}

/** BLOCK asked for, but there is no LITELLM connection to push to. */
export const NO_GATEWAY_MESSAGE = 'No LiteLLM connection to enforce this BLOCK budget at: connect the proxy under Spend connections';
