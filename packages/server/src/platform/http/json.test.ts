import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec, isDecimal } from '../money.js';
import { parseJson, stringifyJson } from './json.js';

test('when a number lexeme has a fraction, an exponent or 16+ digits then it parses to an exact Decimal', () => {
  const v = parseJson('{"a":0.1,"b":1e3,"c":12345678901234567890,"d":-2.50}') as Record<string, unknown>;
  for (const [k, want] of [['a', '0.1'], ['b', '1000'], ['c', '12345678901234567890'], ['d', '-2.5']] as const) {
    assert.ok(isDecimal(v[k]), k);
    assert.equal((v[k] as ReturnType<typeof dec>).toFixed(), want);
  }
});

test('when a number lexeme is a short integer then it parses to a JS number', () => {
  assert.deepEqual(parseJson('{"limit":50,"offset":-3}'), { limit: 50, offset: -3 });
});

test('when a Decimal is stringified then it is a plain JSON number with every digit', () => {
  assert.equal(
    stringifyJson({ tiny: dec('0.000000001'), big: dec('123456789012345678901234567890.000001'), n: 3, s: 'x' }),
    '{"tiny":0.000000001,"big":123456789012345678901234567890.000001,"n":3,"s":"x"}',
  );
});

test('when text is malformed then parsing throws a SyntaxError', () => {
  assert.throws(() => parseJson('{"a":'), SyntaxError);
});

