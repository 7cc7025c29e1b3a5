/**
 * Face of the portal module: customer portal sessions (ADR 0025). The sessions' storage and their
 * token's authentication live in accounts (beside customer keys); this module opens, lists and
 * revokes them for a customer.
 */
export { portalRoutes } from './routes.js';
