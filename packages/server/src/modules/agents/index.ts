/**
 * Face of the agents module (the agent surface: customer-scoped key management, the public pricing
 * document, one-call agent signup). Nothing imports it but app.ts.
 */
export { customerKeyAdminRoutes, customerKeyRoutes } from './keys/routes.js';
export { agentPublicRoutes } from './routes.js';
