/**
 * The customer portal's way to the service (ADR 0025): the same generated client as the console,
 * authenticated with the portal link's token instead of an admin JWT. The token comes from the
 * link's fragment (`/portal#token=pt_…`), is kept in this module's memory only (never storage) and
 * is removed from the address bar and the history entry at once, so it is not bookmarked, shared
 * by a copied URL, or sent in a Referer.
 */
import { createCore } from '@tally/client';
import { exactJsonFetch } from './api';

let portalToken: string | null = null;

/** The portal token: taken from the fragment on first call, then from memory. */
export function takePortalToken(): string | null {
  if (portalToken) return portalToken;
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (token) {
    portalToken = token;
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  }
  return portalToken;
}

export const portalApi = createCore({ baseUrl: window.location.origin, fetch: exactJsonFetch as typeof fetch });

portalApi.use({
  onRequest({ request }) {
    if (portalToken) request.headers.set('authorization', `Bearer ${portalToken}`);
    return request;
  },
});
