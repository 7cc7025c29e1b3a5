/**
 * Face of the agents module (the agent surface: customer-scoped key management, the public pricing
 * document, one-call agent signup, agent status and owner, provisional expiry). Nothing imports it
 * but app.ts and runtime.ts.
 */
export { customerKeyAdminRoutes, customerKeyRoutes } from './keys/routes.js';
export { agentPublicRoutes } from './routes.js';
export { agentDiscoveryRoutes } from './discovery/routes.js';
export { agentStatusRoutes } from './status/routes.js';
export { agentJobs as jobs } from './expiry.js';
