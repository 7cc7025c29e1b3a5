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
  TallyNetworkError,
  TallyNotFoundError,
  TallyPaymentRequiredError,
  TallyRateLimitedError,
  TallyTimeoutError,
  TallyValidationError,
  type TallyFieldError,
} from './errors.js';
export { parseJson, stringifyJson, isDecimalKey, type DecimalString } from './json.js';
export { DECIMAL_FIELDS, type DecimalField } from './generated/decimal-fields.js';
