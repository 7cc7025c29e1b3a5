/**
 * Face of the mcp module (the `/mcp` endpoint: curated, tenant and admin tools over the other
 * modules' service functions). Nothing imports it but app.ts.
 */
export { mcpRoutes } from './routes.js';
