import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { scanJson } from './json.js';

/**
 * Guards at the request edge, before anything recurses over input or hands it to the database.
 *
 * - JSON bodies deeper than MAX_JSON_DEPTH are refused before parsing (the parser is recursive: a
 *   few thousand levels overflow its stack). The scan skips string contents.
 * - Strings (keys and values, at any depth; query and path values) must not contain NUL, which
 *   PostgreSQL text cannot hold, and must be well-formed UTF-16 (no lone surrogates, which cannot
 *   be encoded as UTF-8).
 */

/** Deepest accepted nesting of arrays and objects in a JSON body (the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/**
 * Longest accepted path parameter, in characters as sent (percent-encoded). Fields named in paths
 * are at most 255 characters; one character can take 9 encoded bytes (`%E2%82%AC`), so every value
 * a field can hold reaches validation. Longer segments answer 400 validation_failed.
 */
export const MAX_PATH_PARAM_LENGTH = 255 * 9;

/** Throws 400 validation_failed when the JSON text nests deeper than MAX_JSON_DEPTH. */
export function assertJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): void {
  assertScannedDepth(scanJson(text).depth, maxDepth);
}

/** `assertJsonDepth` on the depth a `scanJson` of the text found (the body parser scans once). */
export function assertScannedDepth(depth: number, maxDepth = MAX_JSON_DEPTH): void {
  if (depth > maxDepth) {
    throw new AppError('validation_failed', `Validation failed: body: must not nest deeper than ${maxDepth} levels`, {
      fields: [{ field: 'body', message: `must not nest deeper than ${maxDepth} levels` }],
    });
  }
}

/**
 * Whether strings decoded from this JSON text can hold NUL or a lone surrogate at all: only through
 * a `\u` escape (raw control characters are not JSON) or a text that is not well-formed itself. When
 * not, `assertCleanStrings` on the parsed value has nothing to find and can be skipped.
 */
export function mayHoldBadStrings(text: string): boolean {
  return text.includes('\\u') || !(text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Why a string is refused, or null when it is fine. */
export function stringProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) return 'must be valid Unicode (no lone surrogates)';
  return null;
}

/**
 * Throws 400 validation_failed naming the first field (in `toFieldPath` style: `entries[0].name`)
 * whose key or string value is refused by `stringProblem`.
 */
export function assertCleanStrings(value: unknown): void {
  const found = findBadString(value, '');
  if (found) {
    throw new AppError('validation_failed', `Validation failed: ${found.field}: ${found.message}`, { fields: [found] });
  }
}

function findBadString(value: unknown, path: string): { field: string; message: string } | null {
  if (typeof value === 'string') {
    const problem = stringProblem(value);
    return problem ? { field: path || 'body', message: problem } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBadString(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = stringProblem(key);
      if (keyProblem) return { field: path || 'body', message: `keys ${keyProblem}` };
      const found = findBadString(item, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Refuses NUL and lone surrogates in decoded query and path values (and query keys) with 400
 * validation_failed naming the parameter, before schema validation and handlers.
 */
export function registerInputGuards(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const source of [request.params, request.query]) {
      if (!source || typeof source !== 'object') continue;
      for (const [name, raw] of Object.entries(source as Record<string, unknown>)) {
        const keyProblem = stringProblem(name);
        if (keyProblem) throw parameterError('query', `parameter names ${keyProblem}`);
        for (const value of [raw].flat()) {
          const problem = typeof value === 'string' ? stringProblem(value) : null;
          if (problem) throw parameterError(name, problem);
        }
      }
    }
  });
}

function parameterError(name: string, message: string): AppError {
  return new AppError('validation_failed', `Invalid value for parameter: ${name}`, { fields: [{ field: name, message }] });
}
