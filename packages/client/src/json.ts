/**
 * JSON without binary floating point (ADR 0024).
 *
 * The service writes amounts as exact JSON number lexemes (`"balance": 1234.567891`); `JSON.parse`
 * would put them through a double. This codec never does:
 *
 * - Parsing: a number under a decimal key (a property the OpenAPI document types `number`, listed in
 *   `generated/decimal-fields.ts`, or inside an array under such a key) is returned as its lexeme, a
 *   decimal string (`"1234.567891"`, `"100"`). Any other number is a JS number when it is a safe
 *   integer lexeme (at most 15 digits, no fraction or exponent), else its lexeme as a string: no
 *   number is ever rounded. One exception: the integers of a page's `pagination` object are numbers.
 * - Stringifying: a string under a decimal key that reads as a decimal (`-12.5`, `100`, `1e-7`) and a
 *   `bigint` anywhere are written as JSON number lexemes, digit for digit; a value with `toJSON`
 *   (a decimal library's type) is written as what it returns. Other strings stay strings. A JS
 *   number under a decimal key must be a safe integer (a `TypeError` otherwise: a fraction in a
 *   double is already rounded); elsewhere numbers are written as `JSON.stringify` writes them.
 */
import { DECIMAL_FIELDS } from './generated/decimal-fields.js';

const DECIMAL_KEYS: ReadonlySet<string> = new Set(DECIMAL_FIELDS);
const DECIMAL_LEXEME = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const SAFE_INTEGER = /^-?\d{1,15}$/;
/** Pages' `pagination` holds integers only (its `limit` is not the decimal usage `limit`). */
const PLAIN_OBJECT = 'pagination';
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function isDecimalKey(key: string): boolean {
  return DECIMAL_KEYS.has(key);
}

/** Parses JSON text by the rule above. Throws `SyntaxError` on malformed input. */
export function parseJson(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`Invalid JSON: ${what} at position ${i}`);
  };
  const space = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else return;
    }
  };
  const string = (): string => {
    const start = i++;
    let escaped = false;
    for (;;) {
      const c = text.charCodeAt(i++);
      if (c === 34) break;
      if (c === 92) {
        escaped = true;
        i++;
      } else if (Number.isNaN(c) || c < 32) fail('unterminated or invalid string');
    }
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };
  const value = (decimal: boolean, ownKey?: string): unknown => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const out: Record<string, unknown> = {};
      space();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail('expected a key');
        const key = string();
        space();
        if (text[i++] !== ':') fail("expected ':'");
        const v = value(ownKey !== PLAIN_OBJECT && DECIMAL_KEYS.has(key), key);
        if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
        else out[key] = v;
        space();
        const next = text[i++];
        if (next === '}') return out;
        if (next !== ',') fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const out: unknown[] = [];
      space();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value(decimal, ownKey));
        space();
        const next = text[i++];
        if (next === ']') return out;
        if (next !== ',') fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) return (i += 4), true;
    if (text.startsWith('false', i)) return (i += 5), false;
    if (text.startsWith('null', i)) return (i += 4), null;
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail('unexpected token');
    i = NUMBER.lastIndex;
    const lexeme = m[0];
    return !decimal && SAFE_INTEGER.test(lexeme) ? Number(lexeme) : lexeme;
  };
  const out = value(false);
  space();
  if (i < text.length) fail('unexpected trailing text');
  return out;
}

/** Stringifies by the rule above; `undefined` properties are left out, `toJSON` (e.g. `Date`) is honoured. */
export function stringifyJson(input: unknown): string {
  const write = (v: unknown, decimal: boolean): string | undefined => {
    if (v === null) return 'null';
    if (v !== undefined && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON: () => unknown }).toJSON();
    switch (typeof v) {
      case 'string':
        return decimal && v.length <= 100 && DECIMAL_LEXEME.test(v) ? v : JSON.stringify(v);
      case 'number':
        if (decimal && !Number.isSafeInteger(v)) {
          throw new TypeError(`Tally: pass the amount ${v} as a decimal string (e.g. "${v}"): a non-integer JS number is a binary float`);
        }
        return Number.isFinite(v) ? JSON.stringify(v) : 'null';
      case 'bigint':
        return v.toString();
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object': {
        if (v === null) return 'null';
        if (Array.isArray(v)) return `[${v.map((x) => write(x, decimal) ?? 'null').join(',')}]`;
        const parts: string[] = [];
        for (const [key, x] of Object.entries(v)) {
          const text = write(x, DECIMAL_KEYS.has(key));
          if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
        }
        return `{${parts.join(',')}}`;
      }
      default:
        return undefined;
    }
  };
  return write(input, false) ?? 'null';
}
