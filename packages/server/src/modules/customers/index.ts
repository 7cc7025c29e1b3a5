/**
 * Face of the customers module (customers by customerReferenceId, the customer-key pinning rule).
 * Other modules and app.ts import only from here; everything else under customers/ is private.
 */
export { customerSubscriptions } from './extensions.js';
export { findCustomerById, findCustomerByRef } from './repo.js';
export { customerAdminRoutes, customerClientRoutes } from './routes.js';
export { CustomerCreateSchema, CustomerUpdateSchema, RefParamsSchema } from './schema.js';
export {
  createCustomer,
  createCustomerInTransaction,
  customerReferenceRequired,
  toClientCustomer,
  toClientCustomerView,
  updateCustomer,
  ensureCustomerForEvent,
  getCustomerById,
  getCustomerByRef,
  resolveCallerCustomer,
  toAdminCustomer,
  type CustomerRow,
} from './service.js';
