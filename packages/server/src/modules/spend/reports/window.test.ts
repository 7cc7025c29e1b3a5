import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../platform/errors/app-error.js';
import { isDay, reconcileWindow, usageWindow } from './window.js';

test('usage window: default is the last 30 days including today; one bound puts the other 30 days away', () => {
  assert.deepEqual(usageWindow('2026-03-10'), { from: '2026-02-09', to: '2026-03-11' });
  assert.deepEqual(usageWindow('2026-03-10', '2026-01-01'), { from: '2026-01-01', to: '2026-01-31' });
  assert.deepEqual(usageWindow('2026-03-10', undefined, '2026-01-31'), { from: '2026-01-01', to: '2026-01-31' });
  assert.throws(() => usageWindow('2026-03-10', '2026-01-02', '2026-01-02'), AppError);
  assert.deepEqual(usageWindow('2026-03-10', '2025-01-01', '2026-01-02'), { from: '2025-01-01', to: '2026-01-02' }, '366 days is allowed');
  assert.throws(() => usageWindow('2026-03-10', '2025-01-01', '2026-01-03'), AppError);
});

test('reconcile window: default is the last full calendar month, inclusive, across a year end', () => {
  assert.deepEqual(reconcileWindow('2026-01-15'), { from: '2025-12-01', to: '2025-12-31' });
  assert.deepEqual(reconcileWindow('2026-03-01'), { from: '2026-02-01', to: '2026-02-28' });
  assert.deepEqual(reconcileWindow('2026-03-10', '2024-02-10'), { from: '2024-02-10', to: '2024-02-29' });
  assert.deepEqual(reconcileWindow('2026-03-10', undefined, '2025-12-20'), { from: '2025-12-01', to: '2025-12-20' });
  assert.throws(() => reconcileWindow('2026-03-10', '2026-02-02', '2026-02-01'), AppError);
});

test('days: only real calendar days in range', () => {
  assert.equal(isDay('2024-02-29'), true);
  for (const s of ['2026-02-29', '2026-13-01', '2026-1-01', '1999-12-31', '3000-01-01', '2026-01-01T00:00:00Z']) assert.equal(isDay(s), false, s);
});
