import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { checkMandateCharge, mandateWindow } from './domain.js';

const at = (s: string) => new Date(s);
const iso = (w: { start: Date; end: Date }) => [w.start.toISOString(), w.end.toISOString()];

test('when a month mandate started on the 31st then its windows reset on the clamped day, then on the 31st again', () => {
  const start = at('2026-01-31T10:00:00Z');
  assert.deepEqual(iso(mandateWindow(start, 'month', at('2026-02-15T00:00:00Z'))), ['2026-01-31T10:00:00.000Z', '2026-02-28T10:00:00.000Z']);
  assert.deepEqual(iso(mandateWindow(start, 'month', at('2026-03-01T00:00:00Z'))), ['2026-02-28T10:00:00.000Z', '2026-03-31T10:00:00.000Z']);
  assert.deepEqual(iso(mandateWindow(start, 'month', at('2026-03-31T10:00:00Z'))), ['2026-03-31T10:00:00.000Z', '2026-04-30T10:00:00.000Z'], 'half-open: the end belongs to the next');
});

test('when a day or week mandate is read then its windows tile forward from the start', () => {
  const start = at('2026-09-10T10:00:00Z');
  assert.deepEqual(iso(mandateWindow(start, 'day', at('2026-09-12T09:59:59Z'))), ['2026-09-11T10:00:00.000Z', '2026-09-12T10:00:00.000Z']);
  assert.deepEqual(iso(mandateWindow(start, 'week', at('2026-09-17T10:00:00Z'))), ['2026-09-17T10:00:00.000Z', '2026-09-24T10:00:00.000Z']);
});

test('when a charge is checked then above the whole mandate and past the window are refused with the contract messages', () => {
  const mandate = { amount: dec('10'), period: 'month' as const, startedAt: at('2026-09-14T10:00:00Z') };
  const window = mandateWindow(mandate.startedAt, 'month', at('2026-09-20T00:00:00Z'));
  assert.equal(checkMandateCharge(mandate, dec('8'), dec('2'), window), null, 'exactly the limit fits');
  assert.deepEqual(checkMandateCharge(mandate, dec('0'), dec('12.5'), window), {
    kind: 'whole',
    message: 'This charge (12.50) is above the 10.00 per month your principal approved; give your principal url to approve a higher limit, or buy less.',
  });
  assert.deepEqual(checkMandateCharge(mandate, dec('8'), dec('4'), window), {
    kind: 'window',
    resetsAt: at('2026-10-14T10:00:00Z'),
    message: 'This charge (4.00) would pass the 10.00 per month your principal approved: 8.00 already spent in this window, which resets at 2026-10-14T10:00:00Z; wait for the window to reset or buy less.',
  });
});
