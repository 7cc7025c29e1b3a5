import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import type { AllocationRow } from '../allocation/service.js';
import { composeDigest, digestWindows } from './domain.js';

test('digestWindows: the 7 full days before today (to exclusive), the 7 before them, the month to date', () => {
  const w = digestWindows(new Date('2026-03-02T08:00:00Z'));
  assert.deepEqual(w.week, { from: '2026-02-23', to: '2026-03-02' });
  assert.deepEqual(w.previousWeek, { from: '2026-02-16', to: '2026-02-23' });
  assert.deepEqual(w.month, { from: '2026-03-01', to: '2026-04-01' });
});

test('composeDigest: every unit, largest first then by name; the ceiling in force and the reason only while the bump lasts', () => {
  const row = (unitId: string, name: string, cents: number): AllocationRow => ({ unitId, name, type: 'TEAM', parentId: null, ownCents: dec(cents), totalCents: dec(cents), personEstimateCents: dec(0), spendCents: dec(cents) });
  const window = (rows: AllocationRow[], unattributed = 0) => ({ rows, unattributedCents: dec(unattributed), totalMeteredCents: rows.reduce((s, r) => s.plus(r.ownCents), dec(unattributed)) });
  const now = new Date('2026-03-10T08:00:00Z');
  const budgets = new Map([
    ['a', { monthlyCents: dec(100), bumpMonthlyCents: dec(200), bumpExpiresAt: new Date('2026-03-11T00:00:00Z'), bumpReason: 'launch' }],
    ['b', { monthlyCents: dec(100), bumpMonthlyCents: dec(300), bumpExpiresAt: now, bumpReason: 'over' }],
  ]);
  const digest = composeDigest({
    week: window([row('a', 'Alpha', 5), row('b', 'Beta', 5), row('c', 'Gamma', 9)], 1),
    previousWeek: window([row('a', 'Alpha', 2)]),
    month: window([row('a', 'Alpha', 50), row('b', 'Beta', 60), row('c', 'Gamma', 70)]),
    from: '2026-03-03',
    to: '2026-03-10',
    budgets,
    alertsFired: 3,
    now,
  });
  assert.deepEqual(digest.rows.map((r) => [r.name, r.cents.toNumber(), r.previousCents.toNumber(), r.monthlySpentCents.toNumber(), r.monthlyLimitCents?.toNumber() ?? null, r.bumpReason]), [
    ['Gamma', 9, 0, 70, null, null],
    ['Alpha', 5, 2, 50, 200, 'launch'],
    ['Beta', 5, 0, 60, 100, null],
  ]);
  assert.deepEqual([digest.totalCents.toNumber(), digest.previousTotalCents.toNumber(), digest.unattributedCents.toNumber(), digest.alertsFired], [20, 2, 1, 3]);
});
