import { invalid } from '../../../platform/errors/app-error.js';
import type { CustomerScope } from '../../../platform/http/principal.js';

/** The scopes a customer key can carry, in their canonical order (contract §2.5). */
export const CUSTOMER_SCOPES: readonly CustomerScope[] = ['read', 'purchase'];
const DEFAULT_CUSTOMER_SCOPES: readonly CustomerScope[] = ['read'];

/**
 * The scopes of a new key from the requested ones: absent or empty means the default `["read"]`;
 * duplicates collapse and the result is in canonical order (`["purchase","read"]` → `["read",
 * "purchase"]`). An unknown scope is 400 with the contract's message. `["purchase"]` alone is kept
 * as sent: `read` is never checked, so such a key still reads.
 */
export function computeKeyScopes(requested: readonly string[] | undefined): CustomerScope[] {
  if (!requested || requested.length === 0) return [...DEFAULT_CUSTOMER_SCOPES];
  const unknown = requested.find((scope) => !(CUSTOMER_SCOPES as readonly string[]).includes(scope));
  if (unknown !== undefined) throw invalid(`Unknown scope '${unknown}' — allowed: [${CUSTOMER_SCOPES.join(', ')}]`);
  return CUSTOMER_SCOPES.filter((scope) => requested.includes(scope));
}
