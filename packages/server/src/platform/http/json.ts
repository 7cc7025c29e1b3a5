import { parse } from 'lossless-json';
import { Decimal, isDecimal } from '../money.js';

/**
 * JSON at the edge without binary floating point.
 *
 * Parsing: an integer lexeme that fits a safe integer becomes a number (counts, limits, offsets);
 * every other number lexeme becomes an exact `Decimal` (prices, units, weights). Schemas for decimal
 * fields accept both.
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

/** Throws SyntaxError on malformed input. */
export function parseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

export function stringifyJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return 'null';
  return text.includes(ESCAPED_SENTINEL) ? text.replace(UNQUOTE, '$1') : text;
}

export { isDecimal };
