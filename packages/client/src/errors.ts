/**
 * The client's errors: every failure is a `TallyError` with a stable `code`. Answers in the
 * service's error envelope (`{ success: false, error: { code, message, requestId, … } }`) become
 * `TallyApiError` (or a subclass) carrying the envelope's `code`, `message` and `requestId`.
 */

/** A field the service refused, from the envelope's `error.fields`. */
export type TallyFieldError = { field: string; message: string };

type ErrorInit = { status?: number; requestId?: string; details?: unknown; cause?: unknown };

/**
 * The next step of a refusal (api-contract-agent-v2.md §1.2): every Client API 402 and every 403
 * `forbidden`, `scope_denied`, `budget_exceeded` or `spend_cap_exceeded` carries one. Act on
 * `action`: `complete_checkout` (hand `url` to a human, poll `poll`), `wait` (retry after
 * `retryAfterSeconds`, with the same Idempotency-Key: gated answers are not replayed),
 * `raise_spend_cap` / `raise_mandate` / `request_scope` (ask the operator or principal; `url` when
 * there is a page), `nominate_owner` (`url`), `use_own_reference`.
 */
export type TallyGate = {
  gate: 'payment' | 'budget' | 'scope';
  action: 'complete_checkout' | 'nominate_owner' | 'wait' | 'raise_spend_cap' | 'raise_mandate' | 'use_own_reference' | 'request_scope';
  url: string | null;
  poll: string | null;
  retryAfterSeconds: number | null;
};

const GATE_KINDS = new Set(['payment', 'budget', 'scope']);

/** The gate of an envelope's error object, or undefined when it has none. */
export function gateOf(error: Record<string, unknown> | undefined): TallyGate | undefined {
  if (!error || typeof error.gate !== 'string' || !GATE_KINDS.has(error.gate) || typeof error.action !== 'string') return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    gate: error.gate as TallyGate['gate'],
    action: error.action as TallyGate['action'],
    url: text(error.url),
    poll: text(error.poll),
    retryAfterSeconds: typeof error.retry_after === 'number' ? error.retry_after : null,
  };
}

export class TallyError extends Error {
  /** Stable snake_case code: the envelope's (`validation_failed`, `not_found`, …) or the client's (`network_error`, `timeout`, `aborted`, `invalid_response`). */
  readonly code: string;
  /** HTTP status, when the service answered. */
  readonly status?: number;
  /** The service's correlation id (envelope `requestId`, else the `X-Request-Id` header). */
  readonly requestId?: string;
  /** More about the failure: for API errors `{ detail?, fields?, data? }` from the envelope. */
  readonly details?: unknown;

  constructor(code: string, message: string, init: ErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = code;
    if (init.status !== undefined) this.status = init.status;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.details !== undefined) this.details = init.details;
  }
}

/** The service answered 4xx/5xx. `code`, `message` and `requestId` come from the envelope. */
export class TallyApiError extends TallyError {
  declare readonly status: number;
  /** The envelope's `error.detail`. */
  readonly detail?: string;
  /** The envelope's `error.fields` (validation failures). */
  readonly fields?: TallyFieldError[];
  /** The envelope's top-level `data`, when the error carries a payload (e.g. 402 `checkoutUrl`). */
  readonly data?: unknown;
  /** The answer's headers. */
  readonly headers?: Headers;
  /** The refusal's next step (402 and gated 403 on the Client API), typed: branch on `gate.action`. */
  readonly gate?: TallyGate;

  constructor(
    code: string,
    message: string,
    init: ErrorInit & { status: number; detail?: string; fields?: TallyFieldError[]; data?: unknown; headers?: Headers; gate?: TallyGate },
  ) {
    const details: Record<string, unknown> = {};
    if (init.detail !== undefined) details.detail = init.detail;
    if (init.fields !== undefined) details.fields = init.fields;
    if (init.data !== undefined) details.data = init.data;
    super(code, message, { ...init, details: Object.keys(details).length > 0 ? details : undefined });
    if (init.detail !== undefined) this.detail = init.detail;
    if (init.fields !== undefined) this.fields = init.fields;
    if (init.data !== undefined) this.data = init.data;
    if (init.headers !== undefined) this.headers = init.headers;
    if (init.gate !== undefined) this.gate = init.gate;
  }
}

/** 400 `validation_failed`: see `fields`. */
export class TallyValidationError extends TallyApiError {}
/** 401 `unauthorized` / 403 `forbidden`: the credential is missing, invalid or not allowed. */
export class TallyAuthError extends TallyApiError {}
/** 404. */
export class TallyNotFoundError extends TallyApiError {}
/** 409: `conflict`, `idempotency_conflict`, `insufficient_credits`, `reservation_closed`. */
export class TallyConflictError extends TallyApiError {}
/**
 * 403 `budget_exceeded` / `spend_cap_exceeded` / `scope_denied`: a refusal with a gate the caller can
 * act on (`gate.action` `wait` with `gate.retryAfterSeconds`, `raise_spend_cap`, `raise_mandate`,
 * `request_scope`).
 */
export class TallyGatedError extends TallyApiError {
  declare readonly gate: TallyGate;
}

/** 402 `payment_required`: `checkoutUrl` is the hosted checkout to hand to a human. */
export class TallyPaymentRequiredError extends TallyApiError {
  get checkoutUrl(): string | undefined {
    const url = (this.data as { checkoutUrl?: unknown } | undefined)?.checkoutUrl;
    return typeof url === 'string' ? url : undefined;
  }
}

/** 429 `rate_limited`: `retryAfterMs` from `Retry-After` (seconds or an HTTP date), when sent. */
export class TallyRateLimitedError extends TallyApiError {
  readonly retryAfterMs?: number;

  constructor(code: string, message: string, init: ConstructorParameters<typeof TallyApiError>[2] & { retryAfterMs?: number }) {
    super(code, message, init);
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}

/** The request did not get an answer (connection refused, reset, DNS…): code `network_error`. */
export class TallyNetworkError extends TallyError {
  constructor(message: string, init: ErrorInit = {}) {
    super('network_error', message, init);
  }
}

/** An attempt took longer than its `timeoutMs`: code `timeout`. */
export class TallyTimeoutError extends TallyError {
  constructor(message: string, init: ErrorInit = {}) {
    super('timeout', message, init);
  }
}

/** The caller's `AbortSignal` fired: code `aborted`. Never retried. */
export class TallyAbortedError extends TallyError {
  constructor(message: string, init: ErrorInit = {}) {
    super('aborted', message, init);
  }
}

/** The answer's class for an envelope error. */
export function apiErrorClass(status: number, code: string): typeof TallyApiError {
  if (status === 400) return TallyValidationError;
  if (status === 401 || code === 'forbidden') return TallyAuthError;
  if (status === 403 && (code === 'budget_exceeded' || code === 'spend_cap_exceeded' || code === 'scope_denied')) return TallyGatedError;
  if (status === 402) return TallyPaymentRequiredError;
  if (status === 404) return TallyNotFoundError;
  if (status === 409) return TallyConflictError;
  return TallyApiError;
}
