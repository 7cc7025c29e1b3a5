/**
 * Face of the accounts module: what app.ts, runtime.ts, scripts and other modules may use.
 * Everything else under accounts/ is private to it (enforced by the module-boundaries lint rule).
 */
export { accountRoutes } from './routes.js';
export {
  customerKeyEnvironment,
  issueCustomerKey,
  listCustomerKeys,
  requireCustomerKey,
  revokeAllCustomerKeys,
  revokeCustomerKey,
  rotateCustomerKey,
  type CustomerKey,
  type IssuedCustomerKey,
} from './customer-keys.js';
export {
  getPortalSession,
  issuePortalSession,
  listPortalSessions,
  revokePortalSession,
  type PortalSession,
} from './portal-sessions.js';
export {
  accountExists,
  createAccount,
  findAccountName,
  purgeStaleLoginThrottles,
  resolveAdminToken,
  resolveApiKey,
  seedDevAccount,
} from './service.js';
export { csrfTokenMatches, purgeStaleOperatorSessions, resolveOperatorSession } from './sessions.js';
