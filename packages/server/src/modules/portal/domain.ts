import type { CustomerScope } from '../../platform/http/principal.js';

/** A portal link lives one hour unless its creator asks otherwise, between one minute and one day (ADR 0025). */
export const PORTAL_DEFAULT_EXPIRES_IN_SECONDS = 3600;
export const PORTAL_MIN_EXPIRES_IN_SECONDS = 60;
export const PORTAL_MAX_EXPIRES_IN_SECONDS = 86_400;
export const PORTAL_RETURN_URL_MAX_LENGTH = 2048;

/** The scopes of a portal session: always read; purchase only when the tenant allowed top-ups. */
export function computePortalScopes(allowPurchase: boolean): CustomerScope[] {
  return allowPurchase ? ['read', 'purchase'] : ['read'];
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
