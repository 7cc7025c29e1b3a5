/**
 * Face of the billing module (subscriptions, invoices, periods, the billing cycle).
 * Other modules, app.ts and runtime.ts import only from here; everything else under billing/ is private.
 */
export { billingJobs as jobs } from './cycle.js';
export * as billingEvents from './events.js';
export { registerHooks } from './hooks.js';
export { computeNextPeriod, projectEndOfPeriod } from './periods.js';
export { billingAdminRoutes, billingClientRoutes } from './routes.js';
export {
  changeAtProcessor,
  checkSubscribePayment,
  checkUpgradePayment,
  collectInitialPayment,
  collectUpgradePayment,
  processorDrivesSubscription,
  subscribeThroughProcessor,
  voidUpgradePayment,
  type ProcessorChange,
  type InitialPayment,
  type InitialPaymentOutcome,
  type ProcessorSubscribeOutcome,
  type SubscribePayment,
  type UpgradePayment,
  type UpgradePaymentCheck,
  type UpgradePaymentOutcome,
} from './payment-slots.js';
export {
  applyExternalInvoiceStatus,
  failExternalPlanChange,
  mirrorExternalInvoice,
  startExternalSubscription,
  type ExternalState,
} from './external.js';
export {
  cancelSubscription,
  changePlan,
  findFirstDueInvoice,
  findInvoice,
  findSubscription,
  listCustomerInvoicePage,
  listCustomerSubscriptions,
  lockSubscription,
  markInvoicePaid,
  settleInvoice,
  subscribe,
  subscribeInTransaction,
  type Invoice,
  type Subscription,
} from './service.js';
