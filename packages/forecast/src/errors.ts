import type { ValidationFailure, ValidationIssue } from './types.js';

/**
 * Versions are echoed only when they are usable strings, so an envelope can be
 * produced for any input at all (including `null` or an array).
 */
function echoedVersion(input: unknown, key: 'schemaVersion' | 'methodologyVersion'): string | null {
  if (typeof input !== 'object' || input === null) return null;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function copyIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.map(({ code, path, message }) => ({ code, path, message }));
}

/** Builds the envelope for `input`; the constructors take it, as upstream's do. */
export function validationFailure(input: unknown, issues: readonly ValidationIssue[]): ValidationFailure {
  return {
    schemaVersion: echoedVersion(input, 'schemaVersion'),
    methodologyVersion: echoedVersion(input, 'methodologyVersion'),
    code: 'INVALID_INPUT',
    issues: copyIssues(issues),
  };
}

abstract class InputValidationError extends Error {
  readonly code = 'INVALID_INPUT' as const;
  readonly schemaVersion: string | null;
  readonly methodologyVersion: string | null;
  readonly issues: readonly ValidationIssue[];

  protected constructor(message: string, failure: ValidationFailure) {
    super(message);
    this.schemaVersion = failure.schemaVersion;
    this.methodologyVersion = failure.methodologyVersion;
    this.issues = Object.freeze(copyIssues(failure.issues));
  }

  /** The failure envelope: exactly these four keys. */
  toJSON(): ValidationFailure {
    return {
      schemaVersion: this.schemaVersion,
      methodologyVersion: this.methodologyVersion,
      code: this.code,
      issues: copyIssues(this.issues),
    };
  }
}

/** Thrown by `forecastCreditUsage` for any invalid input; carries every issue found. */
export class ForecastValidationError extends InputValidationError {
  constructor(failure: ValidationFailure) {
    super('Forecast input validation failed', failure);
    this.name = 'ForecastValidationError';
  }
}

/** Thrown by `planCreditUsage` for any invalid input; carries every issue found. */
export class PlanValidationError extends InputValidationError {
  constructor(failure: ValidationFailure) {
    super('Plan input validation failed', failure);
    this.name = 'PlanValidationError';
  }
}
