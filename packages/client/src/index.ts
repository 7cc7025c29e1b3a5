export { createCore, type Core, type CoreOptions, type components, type operations, type paths } from './core.js';
export {
  Transport,
  encodePath,
  isSafeToRetry,
  newIdempotencyKey,
  parseRetryAfter,
  type RequestOptions,
  type TallyResponse,
  type TransportOptions,
} from './transport.js';
export {
  TallyAbortedError,
  TallyApiError,
  TallyAuthError,
  TallyConflictError,
  TallyError,
  TallyGatedError,
  TallyNetworkError,
  TallyNotFoundError,
  TallyPaymentRequiredError,
  TallyRateLimitedError,
  TallyTimeoutError,
  TallyValidationError,
  gateOf,
  type TallyFieldError,
  type TallyGate,
} from './errors.js';
export { parseJson, stringifyJson, isDecimalKey } from './json.js';
export { DECIMAL_FIELDS, type DecimalField } from './generated/decimal-fields.js';
export {
  Tally,
  Billing,
  Catalog,
  CustomerKeys,
  Customers,
  Credits,
  Entitlements,
  Outcomes,
  PaymentMethods,
  Reservations,
  Subscriptions,
  TallyCustomer,
  type CallOptions,
  type CheckOptions,
  type CreateCustomerInput,
  type CreateReservationInput,
  type CreateSubscriptionInput,
  type Entitlement,
  type MutationOptions,
  type TallyOptions,
  type UsageEventsQuery,
  type UsageHistoryQuery,
} from './tally.js';
export { DirectEvents, withEventKey, type EventResult, type EventSink, type TrackEvent, type TrackOptions } from './events.js';
export type { DecimalInput, DecimalString, OperationBody, OperationData, OperationQuery, Page, PageQuery, Schema, Wire, WireInput } from './types.js';
export {
  Batcher,
  TallyBufferFullError,
  TallyFlushTimeoutError,
  TallyUnacknowledgedEventsError,
  type BatchEventError,
  type BatchOptions,
} from './batcher.js';
export { meter, TallyMeterReportError, type MeterContext, type MeterOptions, type MeterResult, type MeterUsage } from './meter.js';
export { checkoutOf, type CheckoutRequired, type Completed, type CustomerClientOptions } from './customer.js';
