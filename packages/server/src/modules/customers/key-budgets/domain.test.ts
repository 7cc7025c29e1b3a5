import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { addMonthsClamped, applyBudgetPut, applySpend, checkSpend, computePercentUsed, computeWindow, markExceeded, toBudgetView, type BudgetState } from './domain.js';

const t = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('key budget windows (api-contract-agent-v2.md §2.4)', () => {
  test('when the period is DAY then windows are 24 h tiles from the anchor, half-open', () => {
    const anchor = t('2026-09-14T10:00:00Z');
    assert.deepEqual([iso(computeWindow('DAY', anchor, t('2026-09-14T10:00:00Z')).start)], ['2026-09-14T10:00:00.000Z']);
    const w = computeWindow('DAY', anchor, t('2026-09-16T09:59:59.999Z'));
    assert.equal(iso(w.start), '2026-09-15T10:00:00.000Z');
    assert.equal(iso(w.end), '2026-09-16T10:00:00.000Z');
    assert.equal(iso(computeWindow('DAY', anchor, t('2026-09-16T10:00:00Z')).start), '2026-09-16T10:00:00.000Z', 'the end belongs to the next window');
  });

  test('when the period is WEEK then windows are 7 × 24 h', () => {
    const w = computeWindow('WEEK', t('2026-09-14T10:00:00Z'), t('2026-09-29T00:00:00Z'));
    assert.equal(iso(w.start), '2026-09-28T10:00:00.000Z');
    assert.equal(iso(w.end), '2026-10-05T10:00:00.000Z');
  });

  test('when the period is MONTH and set on the 31st then it resets on Feb 28/29, then Mar 31', () => {
    const anchor = t('2026-01-31T08:30:00Z');
    assert.equal(iso(addMonthsClamped(anchor, 1)), '2026-02-28T08:30:00.000Z');
    assert.equal(iso(addMonthsClamped(anchor, 2)), '2026-03-31T08:30:00.000Z');
    assert.equal(iso(addMonthsClamped(t('2028-01-31T00:00:00Z'), 1)), '2028-02-29T00:00:00.000Z');
    const feb = computeWindow('MONTH', anchor, t('2026-03-15T00:00:00Z'));
    assert.deepEqual([iso(feb.start), iso(feb.end)], ['2026-02-28T08:30:00.000Z', '2026-03-31T08:30:00.000Z']);
    const dec31 = computeWindow('MONTH', anchor, t('2026-12-31T08:30:00Z'));
    assert.equal(iso(dec31.start), '2026-12-31T08:30:00.000Z');
  });

  test('when a budget is set mid-month then it resets on that day of the month, not the 1st', () => {
    const w = computeWindow('MONTH', t('2026-09-14T10:00:00Z'), t('2026-10-01T00:00:00Z'));
    assert.deepEqual([iso(w.start), iso(w.end)], ['2026-09-14T10:00:00.000Z', '2026-10-14T10:00:00.000Z']);
  });

  test('when the period is TOTAL then one window that never ends', () => {
    const w = computeWindow('TOTAL', t('2026-09-14T10:00:00Z'), t('2030-01-01T00:00:00Z'));
    assert.deepEqual([iso(w.start), w.end], ['2026-09-14T10:00:00.000Z', null]);
  });
});

const budget = (over: Partial<BudgetState> = {}): BudgetState => ({
  period: 'MONTH', creditLimit: null, amountLimit: dec(10), alertThreshold: 80, anchorAt: t('2026-09-14T10:00:00Z'),
  countedWindowStart: t('2026-09-14T10:00:00Z'), creditsSpent: dec(0), amountSpent: dec(8), alertingSince: null, exceededWindowStart: null, ...over,
});

describe('key budget checks (§2.6) and the budget object (§2.3)', () => {
  const now = t('2026-09-30T22:00:00Z');

  test('when the charge fits what is left then it passes; exactly the limit passes', () => {
    assert.equal(checkSpend(budget(), 'AMOUNT', dec(2), now), null);
  });

  test('when the window cannot fit it then budget_exceeded / wait with retry_after to the reset and the contract message', () => {
    const r = checkSpend(budget(), 'AMOUNT', dec(4), now)!;
    assert.equal(r.code, 'budget_exceeded');
    assert.equal(r.gate.action, 'wait');
    assert.equal(r.gate.retryAfter, 14 * 86400 - 12 * 3600 + 0);
    assert.equal(r.message, "This API key's spend budget of 10 would be exceeded: 8 already used, 4 requested, window resets at 2026-10-14T10:00:00Z");
  });

  test('when one charge is larger than the whole money limit then spend_cap_exceeded / raise_spend_cap', () => {
    const r = checkSpend(budget({ amountSpent: dec(0) }), 'AMOUNT', dec(10.5), now)!;
    assert.equal(r.code, 'spend_cap_exceeded');
    assert.equal(r.gate.action, 'raise_spend_cap');
    assert.equal(r.message, "This charge (10.5) is above this API key's whole spend budget of 10; ask the operator to raise the budget or buy less");
  });

  test('when a credit draw is larger than the whole credit limit then budget_exceeded / raise_spend_cap; TOTAL never says wait', () => {
    const credits = budget({ creditLimit: dec(5), amountLimit: null });
    assert.deepEqual([checkSpend(credits, 'CREDITS', dec(6), now)!.code, checkSpend(credits, 'CREDITS', dec(6), now)!.gate.action], ['budget_exceeded', 'raise_spend_cap']);
    const total = checkSpend(budget({ period: 'TOTAL' }), 'AMOUNT', dec(4), now)!;
    assert.deepEqual([total.code, total.gate.action, total.gate.retryAfter], ['budget_exceeded', 'raise_spend_cap', null]);
    assert.equal(total.message, "This API key's spend budget of 10 would be exceeded: 8 already used, 4 requested");
  });

  test('when a limit is 0 then nothing may be spent; an unlimited axis never refuses', () => {
    assert.notEqual(checkSpend(budget({ amountLimit: dec(0), amountSpent: dec(0) }), 'AMOUNT', dec('0.01'), now), null);
    assert.equal(checkSpend(budget(), 'CREDITS', dec(1_000_000), now), null);
  });

  test('when the window has rolled over then what was counted before no longer counts', () => {
    const later = t('2026-10-14T10:00:00Z');
    assert.equal(checkSpend(budget(), 'AMOUNT', dec(10), later), null);
    const after = applySpend(budget(), 'AMOUNT', dec(3), later);
    assert.equal(after.amountSpent.toFixed(), '3');
    assert.equal(iso(after.countedWindowStart), '2026-10-14T10:00:00.000Z');
  });

  test('when a spend reaches the alert threshold then the stamp is set once, and reads null in a later window', () => {
    const b = applySpend(budget({ amountSpent: dec(7) }), 'AMOUNT', dec(1), now);
    assert.equal(iso(b.alertingSince), now.toISOString());
    const again = applySpend(b, 'AMOUNT', dec(1), t('2026-10-01T00:00:00Z'));
    assert.equal(iso(again.alertingSince), now.toISOString());
    const view = toBudgetView('k', b, t('2026-10-20T00:00:00Z'));
    assert.deepEqual([view.alerting, view.alertingSince, view.amountSpent.toFixed()], [false, null, '0']);
  });

  test('when the budget object is rendered then remaining is max(0, limit − spent) and percentUsed the nearest axis', () => {
    const view = toBudgetView('k', budget({ amountSpent: dec(12), creditLimit: dec(100), creditsSpent: dec(50) }), now);
    assert.equal(view.amountRemaining!.toFixed(), '0');
    assert.equal(view.creditsRemaining!.toFixed(), '50');
    assert.equal(view.percentUsed, 120);
    assert.equal(computePercentUsed(dec(1), dec(0), dec(1), null), null, 'a 0 limit is not a percent');
    const none = toBudgetView('k', null, now);
    assert.deepEqual([none.period, none.amountSpent.toFixed(), none.alerting, none.resetsAt], [null, '0', false, null]);
  });

  test('when a PUT keeps the period then the window and spend stay; a new period restarts at now; alertThreshold 80 by default, 0 off', () => {
    const kept = applyBudgetPut(budget({ alertingSince: now }), { period: 'MONTH', creditLimit: null, amountLimit: dec(20), alertThreshold: undefined }, now);
    assert.deepEqual([kept.amountSpent.toFixed(), iso(kept.anchorAt), kept.alertingSince, kept.alertThreshold], ['8', '2026-09-14T10:00:00.000Z', null, 80]);
    const moved = applyBudgetPut(budget(), { period: 'DAY', creditLimit: null, amountLimit: dec(20), alertThreshold: 0 }, now);
    assert.deepEqual([moved.amountSpent.toFixed(), iso(moved.anchorAt), moved.alertThreshold], ['0', now.toISOString(), null]);
    assert.equal(applyBudgetPut(null, { period: 'DAY', creditLimit: null, amountLimit: null, alertThreshold: undefined }, now).alertThreshold, 80);
  });
});

describe('budget.exceeded once per window (api-contract-events.md §E5.11)', () => {
  const now = t('2026-09-30T22:00:00Z');

  test('when a refusal is the first of its window then the budget is marked with the window start; a second one in the window is not', () => {
    const marked = markExceeded(budget(), now)!;
    assert.equal(iso(marked.exceededWindowStart), '2026-09-14T10:00:00.000Z');
    assert.equal(markExceeded(marked, t('2026-10-14T09:59:59Z')), null, 'the same window');
  });

  test('when the window moves on then the mark re-arms by itself; a TOTAL budget is marked once for good', () => {
    const marked = markExceeded(budget(), now)!;
    assert.equal(iso(markExceeded(marked, t('2026-10-14T10:00:00Z'))!.exceededWindowStart), '2026-10-14T10:00:00.000Z');
    const total = markExceeded(budget({ period: 'TOTAL' }), now)!;
    assert.equal(markExceeded(total, t('2030-01-01T00:00:00Z')), null);
  });

  test('when the budget is PUT again (same period or not) then the mark is cleared', () => {
    const marked = markExceeded(budget(), now)!;
    assert.equal(applyBudgetPut(marked, { period: 'MONTH', creditLimit: null, amountLimit: dec(20), alertThreshold: undefined }, now).exceededWindowStart, null);
    assert.equal(applyBudgetPut(marked, { period: 'DAY', creditLimit: null, amountLimit: dec(20), alertThreshold: undefined }, now).exceededWindowStart, null);
    assert.equal(iso(applySpend(marked, 'AMOUNT', dec(1), now).exceededWindowStart), '2026-09-14T10:00:00.000Z', 'a spend keeps it');
  });
});
