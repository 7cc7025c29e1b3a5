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
