import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computeRetryAfterSeconds, LOGIN_WINDOW_MS } from './domain.js';

const start = new Date('2026-01-01T00:00:00Z');

test('when failures are below the limit then the subject may try now', () => {
  assert.equal(computeRetryAfterSeconds({ windowStart: start, failures: 4 }, 5, start), 0);
  assert.equal(computeRetryAfterSeconds(undefined, 5, start), 0);
});

test('when failures reach the limit then Retry-After counts down to the end of the window', () => {
  const later = new Date(start.getTime() + 60_500);
  assert.equal(computeRetryAfterSeconds({ windowStart: start, failures: 5 }, 5, later), Math.ceil((LOGIN_WINDOW_MS - 60_500) / 1000));
  const after = new Date(start.getTime() + LOGIN_WINDOW_MS);
  assert.equal(computeRetryAfterSeconds({ windowStart: start, failures: 9 }, 5, after), 0);
});
