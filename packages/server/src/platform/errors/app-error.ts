import { ERROR_CODES, type ErrorCode } from './codes.js';
import type { Gate } from './gate.js';

export type FieldError = { field: string; message: string };

export type AppErrorOptions = {
  /** Extra hint for humans, e.g. an example of a valid value. */
  detail?: string;
  fields?: FieldError[];
  /** Response headers the error needs (e.g. Retry-After). */
  headers?: Record<string, string>;
  /** Payload returned beside the error (402 checkout data, vendor connection). */
  data?: unknown;
  cause?: unknown;
  /**
   * The next step of a gated refusal (402, and the 403s of api-contract-agent-v2.md §1.2) on the Client
   * API. Absent: the envelope derives the default gate from code, message and data (`defaultGate`).
   */
  gate?: Gate;
};

/** The one error type modules throw; its code fixes the HTTP status. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = ERROR_CODES[code].status;
  }
}

export const notFound = (message: string) => new AppError('not_found', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const invalid = (message: string, options?: AppErrorOptions) =>
  new AppError('validation_failed', message, options);
/** A single-field validation failure in the contract's message format. */
export const invalidField = (field: string, reason: string) =>
  new AppError('validation_failed', `Validation failed: ${field}: ${reason}`, { fields: [{ field, message: reason }] });
