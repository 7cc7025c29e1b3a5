import type { PortalScope } from '../../platform/http/principal.js';

/** A portal link lives one hour unless its creator asks otherwise, between one minute and one day (ADR 0025). */
export const PORTAL_DEFAULT_EXPIRES_IN_SECONDS = 3600;
export const PORTAL_MIN_EXPIRES_IN_SECONDS = 60;
export const PORTAL_MAX_EXPIRES_IN_SECONDS = 86_400;
export const PORTAL_RETURN_URL_MAX_LENGTH = 2048;

/** Every scope a portal session can hold, in the order they are listed. */
export const PORTAL_SCOPES = ['read', 'purchase', 'plan_change', 'cancel', 'auto_topup'] as const satisfies readonly PortalScope[];

/** The permission flags a tenant sets on a portal link (api-contract-money.md §3.1); absent = false. */
export type PortalPermissions = { allowPurchase?: boolean; allowPlanChange?: boolean; allowCancel?: boolean; allowAutoTopup?: boolean };

/** Each flag and the scope it grants, in the order the scopes are listed. */
const FLAG_SCOPES = [
  ['allowPurchase', 'purchase'],
  ['allowPlanChange', 'plan_change'],
  ['allowCancel', 'cancel'],
  ['allowAutoTopup', 'auto_topup'],
] as const satisfies readonly (readonly [keyof PortalPermissions, PortalScope])[];

/** The scopes of a portal session: always `read` first, then one per flag that is true, in the contract's order. */
export function computePortalScopes(flags: PortalPermissions): PortalScope[] {
  return ['read', ...FLAG_SCOPES.filter(([flag]) => flags[flag] === true).map(([, scope]) => scope)];
}

/** The flags a session's scopes stand for (the session object shows both). */
export function toPortalPermissions(scopes: readonly PortalScope[]): Required<PortalPermissions> {
  return Object.fromEntries(FLAG_SCOPES.map(([flag, scope]) => [flag, scopes.includes(scope)])) as Required<PortalPermissions>;
}

/** When a session created at `now` for `expiresInSeconds` (already bounded by the schema) ends. */
export function computePortalExpiry(now: Date, expiresInSeconds: number | undefined): Date {
  return new Date(now.getTime() + (expiresInSeconds ?? PORTAL_DEFAULT_EXPIRES_IN_SECONDS) * 1000);
}

/**
 * The link the customer opens: the console's `/portal` on this service's public origin, the token
 * in the fragment, which browsers never send to a server (no access log, no Referer carries it).
 * The customer's reference rides along so the page reads the session and the customer's data at
 * once (one round trip before it paints); it grants nothing, the token decides whose data answers.
 */
export function computePortalUrl(baseUrl: string, token: string, customerReferenceId: string): string {
  return `${baseUrl}/portal#${new URLSearchParams({ token, customer: customerReferenceId }).toString()}`;
}

/** An absolute http(s) URL: the only return link the portal page will render (no javascript: or data:). */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
