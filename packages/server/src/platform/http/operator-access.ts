/**
 * What an operator's role may do (issue 32, ADR 0034). Every Admin API route, and every Client API
 * route an operator's console session calls, needs one access level; a role grants a fixed set:
 *   - `read`: every GET, and the POSTs that only compute (budget evaluation, the pricing simulation),
 *     the operator's own session and password;
 *   - `billing`: customers, subscriptions, invoices, credit pools, grants, deductions, reversals and
 *     links, portal links, purchases and checkouts;
 *   - `admin`: the catalog (features, plans, rules, credit models, prices, weights), API keys (tenant
 *     and customer), settings, the payment processor, events and outcomes, webhook endpoints, the
 *     internal-spend side;
 *   - `owner`: operators (users) and ownership.
 * The level of a route is decided by its method and URL pattern here, so it is written once and a
 * route added under a known prefix gets its area's level; a pattern no rule knows needs `owner`
 * (fail closed) and the route table test names it.
 */
export type OperatorRole = 'OWNER' | 'ADMIN' | 'BILLING' | 'VIEWER';
export type OperatorAccess = 'read' | 'billing' | 'admin' | 'owner';

export const OPERATOR_ROLES = ['OWNER', 'ADMIN', 'BILLING', 'VIEWER'] as const satisfies readonly OperatorRole[];

const GRANTS: Record<OperatorRole, readonly OperatorAccess[]> = {
  OWNER: ['read', 'billing', 'admin', 'owner'],
  ADMIN: ['read', 'billing', 'admin'],
  BILLING: ['read', 'billing'],
  VIEWER: ['read'],
};

export function roleAllows(role: OperatorRole, access: OperatorAccess): boolean {
  return GRANTS[role].includes(access);
}

/** Methods that change nothing: reads for the roles, and no CSRF token needed with the session cookie. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** First match wins; patterns are route URLs (`:param` segments), anchored at the start. */
const RULES: [RegExp, OperatorAccess][] = [
  [/^\/api\/v1\/users(\/|$)/, 'owner'],
  [/^\/api\/v1\/session$/, 'read'],
  [/^\/api\/v1\/account\/change-password$/, 'read'],
  [/^\/api\/v1\/spend\/budgets\/evaluate$/, 'read'],
  [/^\/api\/v1\/spend\/reports\/simulate$/, 'read'],
  [/^\/api\/v1\/account\/api-key$/, 'admin'],
  // Money on the admin surface.
  [/^\/api\/v1\/monetization\/(customers|billing|subscriptions)(\/|$)/, 'billing'],
  [/^\/api\/v1\/monetization\/credits\/(deductions|grants|pools|transactions)(\/|$)/, 'billing'],
  // The catalog: features, plans, rules, credit models, prices and weights.
  [/^\/api\/v1\/monetization\//, 'admin'],
  // Keys are not billing's, on either surface.
  [/^\/api\/v1\/(tanso|client)\/customers\/:ref\/keys(\/|$)/, 'admin'],
  [/^\/api\/v1\/client\/(events|outcomes)(\/|$)/, 'admin'],
  // The rest of the Client API an operator may call: customers, subscriptions, invoices, credits,
  // reservations, portal links, purchases and checkouts.
  [/^\/api\/v1\/client\//, 'billing'],
  [/^\/api\/v1\/(spend|data|tanso|webhooks)\//, 'admin'],
];

/** The access level a route needs; unknown patterns need `owner`. */
export function operatorAccessOf(method: string, url: string): OperatorAccess {
  const rule = RULES.find(([pattern]) => pattern.test(url));
  if (rule?.[1] === 'owner') return 'owner';
  if (SAFE_METHODS.has(method)) return 'read';
  return rule?.[1] ?? 'owner';
}
