import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec, isDecimal } from '../money.js';
import { parse } from 'lossless-json';
import { Decimal } from '../money.js';
import { parseJson, scanJson, stringifyJson } from './json.js';

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


test('when the native fast path takes a text then the value is the one the exact parser gives, and every refusal stays', () => {
  const exact = (text: string) => parse(text, null, (l: string) => (/^-?\d{1,15}$/.test(l) ? Number(l) : new Decimal(l)));
  const same = [
    '{"a":1,"b":[2,-3,{"c":"x\\"1.5\\\\"}],"d":null,"e":true}',
    '{"n":-0,"big":999999999999999,"s":"1e5 [ { \\u0041"}',
    '{"__proto__":{"x":1},"y":2}',
    '{"a":1,"a":1}',
    '[1.5, 2]',
    '{"n":1234567890123456}',
    '"top"',
    '  [ ]  ',
  ];
  for (const text of same) assert.deepEqual(parseJson(text), exact(text), text);
  assert.equal(Object.getPrototypeOf(parseJson('{"__proto__":{"x":1}}')), Object.prototype);
  assert.ok(isDecimal((parseJson('{"n":1234567890123456}') as { n: unknown }).n), 'a 16-digit integer stays exact');
  assert.throws(() => parseJson('{"a":1,"a":2}'), SyntaxError, 'a repeated key with another value is refused, as before');
  for (const bad of ['{"a":01}', '{"a":1,}', '[1,]', '{"a":"\u0001"}', '']) assert.throws(() => parseJson(bad), SyntaxError, bad);
});

test('when text is scanned then strings hide brackets, quotes and numbers, and keys are the strings before a colon', () => {
  assert.deepEqual(scanJson('{"a":"[{\\"","b" : [1,{"c":2}]}'), { depth: 3, keys: 3, inexact: false });
  assert.deepEqual(scanJson('{"a":"1.5","b":-12}'), { depth: 1, keys: 2, inexact: false });
  assert.equal(scanJson('[1e3]').inexact, true);
  assert.equal(scanJson('[-1234567890123456]').inexact, true);
  assert.equal(scanJson('["\\\\"]').depth, 1, 'an even run of backslashes does not escape the quote');
});
