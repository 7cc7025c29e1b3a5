import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec, isDecimal } from '../money.js';
import { parseJsonb, toJsonb } from './jsonb.js';

test('when values are written to jsonb then Decimals are exact number lexemes and undefined is {}', () => {
  assert.equal(toJsonb({ a: dec('0.10000000000000000001'), b: [dec('-2.5')], c: 1, s: 'x' }), '{"a":0.10000000000000000001,"b":[-2.5],"c":1,"s":"x"}');
  assert.equal(toJsonb(undefined), '{}');
  assert.equal(toJsonb(null), '{}');
});

test('when jsonb is read then numbers come back as safe integers or exact Decimals, never floats', () => {
  const read = parseJsonb('{"i":42,"d":1.2345678901234567890123,"big":123456789012345678901234,"s":"0.1"}') as Record<string, unknown>;
  assert.equal(read.i, 42);
  assert.ok(isDecimal(read.d) && read.d.toFixed() === '1.2345678901234567890123');
  assert.ok(isDecimal(read.big) && read.big.toFixed() === '123456789012345678901234');
  assert.equal(read.s, '0.1');
  assert.equal(toJsonb(read), '{"i":42,"d":1.2345678901234567890123,"big":123456789012345678901234,"s":"0.1"}', 'a round trip is the identity');
});
