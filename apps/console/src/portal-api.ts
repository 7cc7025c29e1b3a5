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
let portalCustomer: string | null = null;

/**
 * The portal token and the customer the link names: taken from the fragment on first call, then
 * from memory. The customer is a hint for reading in parallel (links made before it have none); the
 * token alone decides whose data the service answers.
 */
export function takePortalToken(): { token: string | null; customer: string | null } {
  if (!portalToken) {
    const fragment = new URLSearchParams(window.location.hash.slice(1));
    const token = fragment.get('token');
    if (token) {
      portalToken = token;
      portalCustomer = fragment.get('customer');
      window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    }
  }
  return { token: portalToken, customer: portalCustomer };
}

export const portalApi = createCore({ baseUrl: window.location.origin, fetch: exactJsonFetch as typeof fetch });

portalApi.use({
  onRequest({ request }) {
    if (portalToken) request.headers.set('authorization', `Bearer ${portalToken}`);
    return request;
  },
});

/**
 * An invoice as its PDF document (api-contract-money.md §4.3), opened in a new tab. Fetched with the
 * link's token (a plain link would carry no credential) and shown from a blob URL, so the token never
 * rides in a URL. Throws with the service's message when it refuses.
 */
export async function openInvoicePdf(invoiceId: string): Promise<void> {
  // Opened at once, inside the click, so the browser allows it; filled once the document arrives.
  const tab = window.open('', '_blank');
  const response = await fetch(`/api/v1/client/billing/invoices/${encodeURIComponent(invoiceId)}/pdf`, {
    headers: portalToken ? { authorization: `Bearer ${portalToken}` } : {},
  });
  if (!response.ok) {
    tab?.close();
    const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `The invoice document is not available (${response.status})`);
  }
  const url = URL.createObjectURL(new Blob([await response.arrayBuffer()], { type: 'application/pdf' }));
  if (tab) tab.location.href = url;
  else window.location.assign(url);
}
