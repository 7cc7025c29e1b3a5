/**
 * Face of the usage module (events, counters, entitlement checks, the burndown report).
 * app.ts imports only from here; everything else under usage/ is private.
 */
export { usageAdminRoutes, usageClientRoutes } from './routes.js';
export { checkEntitlement, listEntitlementPage } from './entitlements.js';
export { ingestEvent } from './ingest/event.js';
export { getUsageReport } from './report.js';
export { groupEventTotals, listEventPage, sumFeatureEventTotals, type FeatureEventTotals } from './events.js';
export { EventListQuerySchema, EventRequestSchema } from './schema.js';
export { usageRecorded, usageRecordedWanted, type UsageRecorded } from './recorded.js';
export { usageThresholdPercents } from './thresholds.js';
