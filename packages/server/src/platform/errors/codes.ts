/**
 * The registry of stable error codes. Clients branch on `code`; the status is fixed per code so
 * handlers never choose status numbers themselves. Adding a code is additive; renaming one breaks
 * clients.
 */
export const ERROR_CODES = {
  /** The request body, query or path failed validation, or a business rule rejected it. */
  validation_failed: { status: 400, meaning: 'The request is invalid; see message and fields.' },
  /** No credential, or an unknown, expired or revoked one. */
  unauthorized: { status: 401, meaning: 'Authentication is missing or invalid.' },
  /** A customer portal link's token that existed but has expired or was revoked (ADR 0025): the portal asks for a new link. */
  portal_link_expired: { status: 401, meaning: 'The portal link has expired or was revoked.' },
  /** A customer-key purchase needs a human to pay through a hosted checkout. */
  payment_required: { status: 402, meaning: 'Payment is required to complete this action.' },
  /** Authenticated, but this credential may not do this. */
  forbidden: { status: 403, meaning: 'The credential is not allowed to perform this action.' },
  /** A state-changing request made with the console's session cookie lacks its CSRF token (ADR 0034). */
  csrf_failed: { status: 403, meaning: 'The request lacks the session CSRF token (X-CSRF-Token).' },
  /** A customer key lacks the `purchase` scope a route or step needs (api-contract-agent-v2.md §1.1; carries a gate). */
  scope_denied: { status: 403, meaning: 'The API key lacks the scope this action needs.' },
  /** An agent-initiated charge exceeds the account's agent spend cap, or one charge exceeds the key's whole money budget (or the customer's whole mandate). */
  spend_cap_exceeded: { status: 403, meaning: 'The amount exceeds the agent spend cap.' },
  /** A charge or credit draw would take the calling key past what is left of its budget window (or the customer's mandate window). */
  budget_exceeded: { status: 403, meaning: 'The budget window of this API key would be exceeded.' },
  /** Unknown id, another tenant's resource, or unknown route. */
  not_found: { status: 404, meaning: 'The resource does not exist.' },
  /** The route belongs to a module switched off on this install. */
  module_disabled: { status: 404, meaning: 'The module serving this route is switched off.' },
  /** The path exists but not with this HTTP method. */
  method_not_allowed: { status: 405, meaning: 'The HTTP method is not allowed on this path.' },
  /** Duplicate key, conflicting batch, or a state that forbids the action. */
  conflict: { status: 409, meaning: 'The request conflicts with the current state.' },
  /** An Idempotency-Key was reused with a different body, or its first request is still running. */
  idempotency_conflict: { status: 409, meaning: 'The Idempotency-Key conflicts with an earlier request.' },
  /** A hard-limit credit pool cannot cover the charge. */
  insufficient_credits: { status: 409, meaning: 'Credit pool depleted.' },
  /** A capture or release of a credit reservation that is already settled another way (released, expired, captured). */
  reservation_closed: { status: 409, meaning: 'The credit reservation is already settled.' },
  /** The request did not arrive completely in time (written by the HTTP server, before routing). */
  request_timeout: { status: 408, meaning: 'The request took too long to arrive.' },
  /** The body is larger than the server accepts. */
  payload_too_large: { status: 413, meaning: 'The request body is too large.' },
  /** The body's Content-Type is not one this route accepts. */
  unsupported_media_type: { status: 415, meaning: 'The Content-Type is not supported.' },
  /** The request line (URL) or headers exceed the HTTP server's limit (written before routing). */
  headers_too_large: { status: 431, meaning: 'The request line or headers are too large.' },
  /** Too many attempts; retry after the number of seconds in Retry-After. */
  rate_limited: { status: 429, meaning: 'Too many requests; see Retry-After.' },
  /** Unexpected failure; the cause is in the logs under the request id. */
  internal_error: { status: 500, meaning: 'Internal Server Error.' },
  /** A third-party vendor refused the call. */
  vendor_error: { status: 502, meaning: 'A vendor refused the request.' },
  /** A dependency (the database) is unreachable. */
  service_unavailable: { status: 503, meaning: 'The service is not ready.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
