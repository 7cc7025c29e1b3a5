import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../platform/errors/app-error.js';
import { computeKeyScopes } from './domain.js';

test('when no scopes or an empty list are requested then the key gets ["read"]', () => {
  assert.deepEqual(computeKeyScopes(undefined), ['read']);
  assert.deepEqual(computeKeyScopes([]), ['read']);
});

test('when scopes repeat or come in any order then they collapse into the canonical order', () => {
  assert.deepEqual(computeKeyScopes(['purchase', 'read', 'purchase']), ['read', 'purchase']);
  assert.deepEqual(computeKeyScopes(['purchase']), ['purchase']);
  assert.deepEqual(computeKeyScopes(['read', 'read']), ['read']);
});

test('when a scope is unknown then 400 names it and the allowed ones', () => {
  assert.throws(
    () => computeKeyScopes(['read', 'admin']),
    (err: unknown) => err instanceof AppError && err.code === 'validation_failed' && err.message === "Unknown scope 'admin' — allowed: [read, purchase]",
  );
  assert.throws(() => computeKeyScopes(['READ']), /Unknown scope 'READ'/);
});
