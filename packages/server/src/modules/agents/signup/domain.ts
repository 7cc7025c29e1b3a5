/** Agent signup rules (contract §5.3), pure: the rolling window, Retry-After, the customer reference, the links. */

/** The cap counts this account's signups in the last rolling hour. */
const SIGNUP_WINDOW_MS = 60 * 60 * 1000;

/** Agent customers are `agent_` + 32 lowercase hex characters. */
const AGENT_REFERENCE_PREFIX = 'agent_';

/** Scopes of the key a signup issues: the agent may read and buy (contract §5.3). */
export const SIGNUP_KEY_SCOPES = ['read', 'purchase'] as const;

/** Start of the rolling window ending at `now` (a signup counts while `created_at > start`). */
export const signupWindowStart = (now: Date) => new Date(now.getTime() - SIGNUP_WINDOW_MS);

/** Whether another signup would pass the cap (at or above it is refused). */
export const isOverCap = (signupsInWindow: number, hourlyCap: number) => signupsInWindow >= hourlyCap;

/**
 * Retry-After when the cap is reached: whole seconds until the oldest signup in the window ages
 * out (rounded up, so a retry then finds room), within 1…3600.
 */
export function computeRetryAfterSeconds(oldestInWindow: Date, now: Date): number {
  const ms = oldestInWindow.getTime() + SIGNUP_WINDOW_MS - now.getTime();
  return Math.min(3600, Math.max(1, Math.ceil(ms / 1000)));
}

export const agentCustomerReference = (hex32: string) => `${AGENT_REFERENCE_PREFIX}${hex32}`;

/**
 * Where the new agent goes next (base §5.3 keys, then agent v2 §4.2's); `{featureKey}` stays literal
 * for the agent to fill in. `check_entitlement_example` only when the plan has a feature.
 */
export function computeNextSteps(baseUrl: string, customerReferenceId: string, slug: string, firstFeatureKey: string | null) {
  const ref = encodeURIComponent(customerReferenceId);
  const client = `${baseUrl}/api/v1/client`;
  return {
    base_url: baseUrl,
    check_entitlement: `${client}/entitlements/${ref}/{featureKey}`,
    record_usage: `${client}/events`,
    credit_balances: `${client}/credits/${ref}/pools`,
    docs: `${baseUrl}/swagger-ui.html`,
    pricing: `${baseUrl}/public/v1/catalog/${encodeURIComponent(slug)}/pricing.json`,
    check_entitlement_template: `${client}/entitlements/${ref}/{featureKey}`,
    ...(firstFeatureKey === null ? {} : { check_entitlement_example: `${client}/entitlements/${ref}/${encodeURIComponent(firstFeatureKey)}` }),
    usage_summary: `${client}/customers/${ref}/usage`,
    usage_history: `${client}/customers/${ref}/usage/history`,
    usage_events: `${client}/customers/${ref}/usage/events`,
    buy_credits: `${client}/credits/purchases`,
    change_plan: `${client}/subscriptions/{subscriptionId}/plan-change`,
    runbook: `${baseUrl}/agent-signup.md`,
  };
}

/** §4.2 `status_url` and `owner_url`. */
export function agentUrls(baseUrl: string, customerReferenceId: string) {
  const customer = `${baseUrl}/api/v1/client/customers/${encodeURIComponent(customerReferenceId)}`;
  return { status_url: `${customer}/status`, owner_url: `${customer}/owner` };
}
