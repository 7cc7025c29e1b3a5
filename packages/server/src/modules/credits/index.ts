/**
 * Face of the credits module (credit models, allocations, pools, grants, the ledger, draw-down,
 * lifecycle, audit) including its tariff sub-folder (weights and price book), which has no face of
 * its own: tariff/ is private to credits like any other file here.
 * Other modules, app.ts and runtime.ts import only from here.
 */
export {
  openCreditDraws,
  quoteCredits,
  type CreditDrawer,
  type CreditDrawInput,
  type CreditQuote,
  type CreditQuoteInput,
  type CreditReceipt,
  type ResolvedWeight,
} from './draw.js';
export { auditLedger } from './audit.js';
export { autoTopupAmount, PAYMENT_MINIMUM, type RuleState as AutoTopupRuleState } from './auto-topup/domain.js';
export { autoTopupSpendCapSql, chargeAutoTopup } from './auto-topup/slots.js';
export {
  clearAutoTopupRetry,
  deleteAutoTopupRule,
  describeAutoTopupRule,
  findAutoTopupAttempt,
  listAutoTopupAttempts,
  saveAutoTopupRule,
  settleAutoTopupAttempt,
  stalePendingAutoTopups,
  type RuleInput as AutoTopupRuleInput,
  type Settlement as AutoTopupSettlement,
} from './auto-topup/service.js';
export type { AutoTopupAttempt, AutoTopupRule } from './auto-topup/views.js';
export type { AutoTopupAttemptRow } from './auto-topup/repo.js';
export { jobs, registerHooks } from './hooks.js';
export { captureForEvent, flowHasOpenHold, lockFlowHolds, reserveForFlow } from './reservations/service.js';
export { ReservationSchema } from './reservations/schema.js';
export type { Reservation } from './reservations/views.js';
export { getCustomerPool, grantPurchasedCredits } from './purchases.js';
export { creditAdminRoutes, creditClientRoutes } from './routes.js';
export { currentPrices, effectiveWeightTable, findPriceAt, listAllPricesInEffect, publishWeights, resolveWeightCached, tariffAt, type TariffSnapshot } from './tariff/service.js';
export { tariffPublishWarnings, type PublishedBatch, type TariffWarning } from './tariff/guard.js';
export { getPool as getCustomerCreditPool, listGrants as listCustomerCreditGrants, listPools as listCustomerCreditPools, listTransactions as listCustomerCreditTransactions } from './client.js';
export {
  allocateToPlan,
  createDeduction,
  createGrant,
  createModel,
  createPool,
  deleteModel,
  getModel,
  getPool as getCreditPool,
  linkPool,
  listAccountPools,
  listModels,
  listPlanAllocations,
  listPoolGrants,
  listPoolTransactions,
  removeAllocation,
  reverse as reverseCreditTransaction,
  toModel,
  toPool,
  unlinkPool,
} from './service.js';
export { AllocationQuerySchema, DeductionSchema, GrantCreateSchema, LinkQuerySchema, ModelCreateSchema, PoolCreateSchema } from './schema.js';
export { tariffAdminRoutes, tariffClientRoutes } from './tariff/routes.js';
