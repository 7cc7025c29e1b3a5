/**
 * Face of the customers module (customers by customerReferenceId, the customer-key pinning rule).
 * Other modules and app.ts import only from here; everything else under customers/ is private.
 */
export { customerSubscriptions } from './extensions.js';
export { customerAdminRoutes, customerClientRoutes, customerTargetOf } from './routes.js';
export { CustomerCreateSchema, CustomerRefSchema, CustomerUpdateSchema, RefParamsSchema } from './schema.js';
export {
  createCustomer,
  createCustomerInTransaction,
  customerReferenceRequired,
  toClientCustomer,
  toClientCustomerView,
  updateCustomer,
  customerPageQuery,
  ensureCustomerForEvent,
  findCustomerById,
  findCustomerByRef,
  getCustomerById,
  getCustomerByRef,
  resolveCallerCustomer,
  toAdminCustomer,
  type Customer,
  type CustomerTarget,
} from './service.js';
export {
  agentStatusOf,
  claimCustomer,
  expireProvisional,
  listExpiredProvisional,
  lockCustomerRow,
  setOwnerEmail,
  startProvisional,
  type AgentStatus,
  type MandatePeriod,
} from './agent-lifecycle.js';
export {
  activateMandate,
  activeMandateOf,
  fillMissingEmail,
  listStaleMandateSpends,
  mandateRefusalError,
  mandateRefusalGate,
  mandateSpentIn,
  mandateWindow,
  releaseChargeSpend,
  releaseMandateSpend,
  reserveMandateSpend,
  reserveOffSessionSpend,
  settleChargeSpend,
  settleMandateSpend,
  type ActiveMandate,
  type ChargeRef,
  type MandateCharge,
  type MandateRefusal,
  type OffSessionSpend,
} from './mandate/service.js';
export {
  BUDGET_PERIODS,
  checkCredits,
  countCredits,
  deleteKeyBudget,
  getKeyBudget,
  listStaleKeySpends,
  lockKeyBudgets,
  openHostedKeySpend,
  putKeyBudget,
  recordCredits,
  releaseKeySpend,
  reserveKeySpend,
  settleKeySpend,
  type BudgetPeriod,
  type BudgetState,
  type BudgetView,
  type KeyBudgetInput,
} from './key-budgets/service.js';
