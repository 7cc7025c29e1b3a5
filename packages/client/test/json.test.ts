import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJson, stringifyJson } from '../src/json.js';

test('when a decimal key holds a number then it is read as its exact lexeme, integers included', () => {
  const v = parseJson('{"balance": 1234.567890123456789, "amount": 100, "list": [{"credits": 0.1}], "limit": [1, 2.5]}');
  assert.deepEqual(v, { balance: '1234.567890123456789', amount: '100', list: [{ credits: '0.1' }], limit: ['1', '2.5'] });
});

test('when another key holds a number then safe integers are numbers and everything else stays an exact string', () => {
  const v = parseJson('{"count": 42, "big": 12345678901234567890, "ratio": 0.30000000000000004, "e": 1e309, "neg": -7}');
  assert.deepEqual(v, { count: 42, big: '12345678901234567890', ratio: '0.30000000000000004', e: '1e309', neg: -7 });
});

test('when text has strings, escapes, literals and nesting then it parses like JSON.parse', () => {
  const text = '{"a":"x\\"y\\u00e9\\n","b":[true,false,null,{}],"c":[],"d":{"e":"balance"}, "__proto__": {"p": 1}}';
  const v = parseJson(text) as Record<string, unknown>;
  assert.equal(v.a, 'x"yé\n');
  assert.deepEqual(v.b, [true, false, null, {}]);
  assert.deepEqual(v.c, []);
  assert.equal(({} as Record<string, unknown>).p, undefined);
  assert.deepEqual(Object.getPrototypeOf(v), Object.prototype);
});

test('when text is malformed then SyntaxError', () => {
  for (const bad of ['', '{', '{"a" 1}', '[1,]', '{"a":1}x', '"abc', '01', 'tru', '{"a":-}']) {
    assert.throws(() => parseJson(bad), SyntaxError, bad);
  }
});

test('when a decimal string sits under a decimal key then it is written as a JSON number, digit for digit', () => {
  const text = stringifyJson({ amount: '12.345678901234567890', usageUnits: '3', name: '12.5', balance: 'abc', big: 10n ** 30n, skip: undefined, at: new Date(0) });
  assert.equal(text, '{"amount":12.345678901234567890,"usageUnits":3,"name":"12.5","balance":"abc","big":1000000000000000000000000000000,"at":"1970-01-01T00:00:00.000Z"}');
  assert.equal(stringifyJson([{ credits: ['1', '2.5'] }]), '[{"credits":[1,2.5]}]');
});

test('when a body round-trips then amounts keep every digit', () => {
  const body = { amount: '0.000001', credits: '99999999999999999.999999' };
  assert.deepEqual(parseJson(stringifyJson(body)), body);
});
