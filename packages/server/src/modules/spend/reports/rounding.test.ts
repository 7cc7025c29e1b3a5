import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { cacheShareOf, perOutcomeCents } from './rounding.js';

test('per-outcome cents round HALF_UP to 4 places and are null with no outcomes', () => {
  assert.equal(perOutcomeCents(dec('750.0015'), 2)!.toFixed(), '375.0008');
  assert.equal(perOutcomeCents(dec('1750.0015'), 9)!.toFixed(), '194.4446');
  assert.equal(perOutcomeCents(dec('0.00005'), 1)!.toFixed(), '0.0001');
  assert.equal(perOutcomeCents(dec(300), 0), null);
});

test('cache share is reads over every input-side token, HALF_UP to 4 places, within [0, 1], 0 with no input tokens', () => {
  assert.equal(cacheShareOf(dec(1), dec(2), dec(0)).toFixed(), '0.6667');
  assert.equal(cacheShareOf(dec(0), dec(999_999_999), dec(0)).toFixed(), '1');
  assert.equal(cacheShareOf(dec(1), dec(999_999_999), dec(0)).toFixed(), '1', 'rounds to 1, never above');
  assert.equal(cacheShareOf(dec(0), dec(0), dec(0)).toFixed(), '0');
  assert.equal(cacheShareOf(dec(5), dec(0), dec(5)).toFixed(), '0');
});
