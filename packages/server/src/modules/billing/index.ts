/**
 * Face of the billing module (subscriptions, invoices, periods, the billing cycle).
 * Other modules, app.ts and runtime.ts import only from here; everything else under billing/ is private.
 */
export { billingJobs } from './cycle.js';
export { computeNextPeriod, projectEndOfPeriod } from './periods.js';
export { findSubscription, listCustomerSubscriptions, type SubscriptionRow } from './repo.js';
export { billingAdminRoutes, billingClientRoutes } from './routes.js';
export { listCustomerSubscriptionViews } from './subscriptions.js';
