/**
 * Face of the spend module (internal AI spend, contract §7): vendor connections and their sync,
 * the model price book, usage and reconcile reports, the negative-margin guard, invoice import,
 * spend settings.
 * Other modules, app.ts and runtime.ts import only from here; so does bench/ (the price-book seed
 * rows and connection setup of its spend scenarios).
 */
export { registerHooks } from './hooks.js';
export { jobs } from './jobs.js';
export { spendRoutes } from './routes.js';
export { createConnection } from './connections/service.js';
export { buildSeedRows } from './prices/seed.js';
/** Table types bench/ inserts into (the owner's tables.ts, ADR 0031). */
export type { SpendRulesTable, SpendUnitsTable } from './tables.js';
