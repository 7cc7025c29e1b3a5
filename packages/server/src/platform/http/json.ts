import { parse } from 'lossless-json';
import { Decimal, isDecimal } from '../money.js';

/**
 * JSON at the edge without binary floating point.
 *
 * Parsing: an integer lexeme that fits a safe integer becomes a number (counts, limits, offsets);
 * every other number lexeme becomes an exact `Decimal` (prices, units, weights). Schemas for decimal
 * fields accept both. Text whose every number lexeme is such an integer and whose objects repeat no
 * key is parsed by the native `JSON.parse`, which then gives exactly what the exact parser would (ten
 * times faster: batch bodies, ADR 0029); anything else, malformed text included, goes through the
 * exact parser, so its results and errors are the same as always.
 *
 * Stringifying: a `Decimal` is written as a JSON number lexeme in plain notation. Its toJSON emits a
 * sentinel-wrapped string that one pass then unquotes, so the rest stays on native JSON.stringify.
 * The sentinel starts with NUL, which PostgreSQL text cannot hold, so no stored string can forge it.
 */
const SENTINEL = '\u0000\u0001dec:';
const ESCAPED_SENTINEL = '\\u0000\\u0001dec:';
const UNQUOTE = /"\\u0000\\u0001dec:(-?[0-9.]+)\\u0000\\u0001dec:"/g;
const SAFE_INTEGER_LEXEME = /^-?\d{1,15}$/;

(Decimal.prototype as unknown as { toJSON: () => string }).toJSON = function toJSON(this: Decimal) {
  return `${SENTINEL}${this.toFixed()}${SENTINEL}`;
};

function parseNumber(lexeme: string): number | Decimal {
  return SAFE_INTEGER_LEXEME.test(lexeme) ? Number(lexeme) : new Decimal(lexeme);
}

/** What one pass over JSON text finds outside its strings (`scanJson`). */
export type JsonScan = {
  /** Deepest nesting of arrays and objects (the outermost value is 1). */
  depth: number;
  /** Object keys: strings followed by a colon. */
  keys: number;
  /** A number lexeme with a fraction, an exponent or more than 15 digits (it must become a Decimal). */
  inexact: boolean;
};

/**
 * One pass over the text, string contents skipped by `indexOf` (a quote ends a string unless an odd
 * run of backslashes precedes it). On malformed text the figures are still defined (an unterminated
 * string runs to the end), so the depth guard can run before any parser.
 */
export function scanJson(text: string): JsonScan {
  const n = text.length;
  let depth = 0;
  let max = 0;
  let keys = 0;
  let inexact = false;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escapedAt(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) break;
      i = end + 1;
      while (i < n && isJsonSpace(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) === 0x3a /* : */) keys++;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) max = depth;
      i++;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
      i++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < n && isDigit(text.charCodeAt(end))) end++;
      const next = text.charCodeAt(end);
      if (next === 0x2e /* . */ || next === 0x65 /* e */ || next === 0x45 /* E */ || end - i - (c === 0x2d ? 1 : 0) > 15) inexact = true;
      i = end;
    } else {
      i++;
    }
  }
  return { depth: max, keys, inexact };
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isJsonSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function escapedAt(text: string, quote: number): boolean {
  let backslashes = 0;
  for (let k = quote - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
  return backslashes % 2 === 1;
}

/** Deepest text the native fast path takes (the key count below recurses). Request bodies stop at 64 anyway. */
const FAST_PATH_MAX_DEPTH = 256;

/** Throws SyntaxError on malformed input. `scan`: the text's `scanJson`, when the caller has it. */
export function parseJson(text: string, scan: JsonScan = scanJson(text)): unknown {
  if (!scan.inexact && scan.depth <= FAST_PATH_MAX_DEPTH) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
      scan = { ...scan, inexact: true };
    }
    // A repeated key: JSON.parse keeps the last, the exact parser refuses differing values.
    if (!scan.inexact && countKeys(value) === scan.keys) return value;
  }
  return parse(text, null, parseNumber);
}

function countKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += countKeys(item);
    return count;
  }
  for (const key in value) {
    count += 1 + countKeys((value as Record<string, unknown>)[key]);
  }
  return count;
}

export function stringifyJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return 'null';
  return text.includes(ESCAPED_SENTINEL) ? text.replace(UNQUOTE, '$1') : text;
}

export { isDecimal };
