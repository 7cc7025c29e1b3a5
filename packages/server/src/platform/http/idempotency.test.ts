import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../money.js';
import { decodeResult, encodeResult } from './idempotency.js';
import { stringifyJson } from './json.js';

const roundTrip = (value: unknown) => decodeResult(JSON.parse(JSON.stringify(encodeResult(value))));

test('a recorded transaction result decodes to the same values and types', () => {
  const value = {
    id: 'a',
    amount: dec('12345678901234567890.123456789'),
    at: new Date('2026-03-10T12:00:00.123Z'),
    count: 3,
    big: 2n ** 70n,
    none: null,
    nested: [{ $: 'u', v: 'a user field that looks like a tag' }, undefined, dec('-0.5')],
    ratio: Number.POSITIVE_INFINITY,
  };
  const back = roundTrip(value) as typeof value;
  assert.deepEqual(back, value);
  assert.ok(back.at instanceof Date);
  assert.equal(back.amount.toFixed(), '12345678901234567890.123456789');
  assert.equal(typeof back.big, 'bigint');
});

test('a rebuilt reply serialises byte for byte like the original, key order included', () => {
  const value = { zeta: 1, alpha: { b: dec('1.10'), a: new Date(0) }, list: [dec('0.000001'), 'x'] };
  assert.equal(stringifyJson(roundTrip(value)), stringifyJson(value));
});

test('undefined results and fields survive: a transaction that returns nothing replays as undefined', () => {
  assert.equal(roundTrip(undefined), undefined);
  assert.deepEqual(roundTrip({ a: undefined, b: 1 }), { b: 1 });
});
