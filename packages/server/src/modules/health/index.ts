/** Face of the health module (liveness/readiness routes). */
export { healthRoutes } from './routes.js';
