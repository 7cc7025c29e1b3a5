import { parseJson, stringifyJson } from '../http/json.js';

/**
 * The one way values enter and leave a jsonb column (ADR 0006).
 *
 * Writing: `toJsonb` renders a `Decimal` as an exact JSON number lexeme (jsonb stores numbers as
 * arbitrary-precision numeric, so no digit is lost) and everything else as JSON. The result is a
 * branded string: the table types accept only `Jsonb` for jsonb columns, so an object handed to the
 * driver (which would JSON.stringify it, losing Decimals) does not compile.
 *
 * Reading: both drivers parse jsonb with `parseJsonb` (database.ts, pglite-dialect.ts), the exact
 * JSON codec, so a stored number comes back as a safe integer or a `Decimal`, never a binary float.
 * Typed readers convert with `dec()`, which also takes the decimal strings older rows hold.
 */
export type Jsonb = string & { readonly __jsonb: unique symbol };

export function toJsonb(value: unknown): Jsonb {
  return stringifyJson(value ?? {}) as Jsonb;
}

export function parseJsonb(text: string): unknown {
  return parseJson(text);
}
