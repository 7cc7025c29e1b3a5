/**
 * Face of the settings module (per-account settings: the agent surface switches, the payment
 * processor mode, currency, checkout URLs, default cost config; the account audit log).
 * Other modules, app.ts and runtime.ts import only from here.
 */
export type { AccountSettings } from './domain.js';
export { settingsAdminRoutes } from './routes.js';
export { listPublishedCatalogSettings } from './published.js';
export { agentMaxTopupAmountSql, usageThresholdPercentsSql } from './repo.js';
export { findAccountSettingsBySlug, getAccountSettings, lockAccountSettings, recordAudit, setStripeMode } from './service.js';
