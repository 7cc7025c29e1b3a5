import type { PortalScope } from './principal.js';

/**
 * What a portal token needs on a route: `read` (any portal token), one of the flag scopes, or
 * `payment_method` (any of `purchase`, `plan_change`, `auto_topup`: saving a card serves each).
 */
export type PortalNeed = 'read' | 'purchase' | 'plan_change' | 'cancel' | 'auto_topup' | 'payment_method';

/**
 * The whole allow-list of customer portal tokens (api-contract-money.md §3.2, ADR 0038), by route
 * pattern. A Client API route not named here answers a portal token 403 "Access denied", whatever
 * the route's `config.customerKey` says: for portal tokens this table replaces the customer-key
 * scopes. Routes of the contract that are not built yet are listed too, so they open to portal
 * tokens exactly as the contract says the day they are registered.
 */
export const PORTAL_ALLOW_LIST: Readonly<Record<string, PortalNeed>> = {
  'GET /api/v1/client/customers/:ref': 'read',
  'GET /api/v1/client/customers/:ref/usage': 'read',
  'GET /api/v1/client/entitlements/:ref': 'read',
  'GET /api/v1/client/entitlements/:ref/:featureKey': 'read',
  'GET /api/v1/client/credits/prices': 'read',
  'GET /api/v1/client/credits/:ref/pools': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/grants': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/transactions': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/auto-topup': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/auto-topup/attempts': 'read',
  'GET /api/v1/client/checkout-sessions/:checkoutSessionId': 'read',
  'GET /api/v1/client/billing/invoices/:ref': 'read',
  'GET /api/v1/client/billing/invoices/:invoiceId/pdf': 'read',
  // Pays an invoice the customer already owes: no new charge, the card is entered on the processor's page.
  'POST /api/v1/client/billing/subscriptions/:subscriptionId/stripe/checkout': 'read',
  'GET /api/v1/client/customers/:ref/payment-methods/default': 'read',
  'GET /api/v1/client/portal/session': 'read',
  'POST /api/v1/client/credits/purchases': 'purchase',
  'GET /api/v1/client/plans': 'plan_change',
  'POST /api/v1/client/subscriptions': 'plan_change',
  'POST /api/v1/client/subscriptions/:subscriptionId/plan-change': 'plan_change',
  'POST /api/v1/client/subscriptions/:subscriptionId/plan-change/preview': 'plan_change',
  'DELETE /api/v1/client/subscriptions/:subscriptionId/plan-change/scheduled': 'plan_change',
  'POST /api/v1/client/subscriptions/cancellation/:subscriptionId': 'cancel',
  'DELETE /api/v1/client/subscriptions/cancellation/:subscriptionId/scheduled': 'cancel',
  'PUT /api/v1/client/credits/:ref/pools/:poolId/auto-topup': 'auto_topup',
  'DELETE /api/v1/client/credits/:ref/pools/:poolId/auto-topup': 'auto_topup',
  'POST /api/v1/client/customers/:ref/payment-methods/setup-checkout': 'payment_method',
  'POST /api/v1/client/customers/:ref/payment-methods/setup-intent': 'payment_method',
  'POST /api/v1/client/customers/:ref/payment-methods/default': 'payment_method',
};

/** What a portal token needs on a route (method and pattern), or null: the route is closed to it. */
export function portalNeedOf(method: string, routePattern: string): PortalNeed | null {
  return PORTAL_ALLOW_LIST[`${method} ${routePattern}`] ?? null;
}

/**
 * The scope a portal session lacks for `need`, or null when it may call the route. The payment-method
 * routes name `purchase` when none of their three scopes is there (contract §3.2).
 */
export function missingPortalScope(need: PortalNeed, scopes: readonly PortalScope[]): PortalScope | null {
  if (need === 'read') return null;
  if (need === 'payment_method') return scopes.some((s) => s === 'purchase' || s === 'plan_change' || s === 'auto_topup') ? null : 'purchase';
  return scopes.includes(need) ? null : need;
}
