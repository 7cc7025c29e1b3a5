import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { blockSentence, evaluationWindows, planEvaluation, type BudgetState, type UnitSpend } from './domain.js';

const NOW = new Date('2026-11-25T12:00:00Z');
const unit = (over: Partial<UnitSpend> = {}): UnitSpend => ({ unitId: 'u1', name: 'Backend', today: dec(0), month: dec(0), lastSevenDays: dec(0), ...over });
const budget = (over: Partial<BudgetState> = {}): BudgetState => ({
  dailyCents: null,
  monthlyCents: null,
  alertThreshold: 80,
  monthlyMode: 'ALERT',
  bumpMonthlyCents: null,
  bumpExpiresAt: null,
  enforcementTarget: null,
  ...over,
});
const kinds = (plan: ReturnType<typeof planEvaluation>) => plan.alerts.map((a) => `${a.kind}/${a.period}/${a.windowStart}`);

test('evaluationWindows: today, the calendar month, and the 7 full days before today, all [from, to)', () => {
  const w = evaluationWindows(new Date('2026-03-03T23:59:59Z'));
  assert.deepEqual(w.day, { from: '2026-03-03', to: '2026-03-04' });
  assert.deepEqual(w.month, { from: '2026-03-01', to: '2026-04-01' });
  assert.deepEqual(w.lastSevenDays, { from: '2026-02-24', to: '2026-03-03' }, 'crosses into the previous month');
  assert.equal(w.monthStart, '2026-03-01');
});

test('planEvaluation: daily and monthly ceilings each decide THRESHOLD or BREACH in their own window', () => {
  const plan = planEvaluation([unit({ today: dec(900), month: dec(5000), lastSevenDays: dec(7000) })], new Map([['u1', budget({ dailyCents: dec(1000), monthlyCents: dec(5000) })]]), NOW);
  assert.deepEqual(kinds(plan), ['THRESHOLD/DAY/2026-11-25', 'BREACH/MONTH/2026-11-01']);
  assert.deepEqual(plan.expiredBumps, []);
});

test('planEvaluation: a unit without a budget can only SPIKE; a spike needs 500 cents and more than twice the week average', () => {
  const budgets = new Map<string, BudgetState>();
  assert.deepEqual(kinds(planEvaluation([unit({ today: dec(499) })], budgets, NOW)), []);
  assert.deepEqual(kinds(planEvaluation([unit({ today: dec(600), lastSevenDays: dec(2100) })], budgets, NOW)), [], '600 = 2 × 300 is not more');
  const plan = planEvaluation([unit({ today: dec('600.01'), lastSevenDays: dec(2100) })], budgets, NOW);
  assert.deepEqual(kinds(plan), ['SPIKE/DAY/2026-11-25']);
  assert.equal(plan.alerts[0]!.limitCents, null);
});

test('planEvaluation: the bump is the monthly ceiling while it lasts; once expired the standing ceiling applies and the bump is listed to drop', () => {
  const bumped = budget({ monthlyCents: dec(10000), bumpMonthlyCents: dec(20000), bumpExpiresAt: new Date('2026-11-25T13:00:00Z') });
  const spend = [unit({ month: dec(10500) })];
  assert.deepEqual(kinds(planEvaluation(spend, new Map([['u1', bumped]]), NOW)), [], '10500 of 20000, pace 12857');
  const later = new Date('2026-11-25T13:00:00Z');
  const plan = planEvaluation(spend, new Map([['u1', bumped]]), later);
  assert.deepEqual(kinds(plan), ['BREACH/MONTH/2026-11-01']);
  assert.equal(plan.alerts[0]!.limitCents!.toFixed(), '10000');
  assert.deepEqual(plan.expiredBumps, ['u1'], 'an expiry at exactly now has passed');
});

test('planEvaluation: PROJECTED uses the effective monthly ceiling and needs a fifth of the month', () => {
  const b = new Map([['u1', budget({ monthlyCents: dec(10000), alertThreshold: 95 })]]);
  // 9000 × 30 / 24.5 = 11020.4 > 10000; 90% < 95% threshold, so PROJECTED alone.
  assert.deepEqual(kinds(planEvaluation([unit({ month: dec(9000) })], b, NOW)), ['PROJECTED/MONTH/2026-11-01']);
  // 5 days 23 h into a 30-day month is under a fifth: nothing yet, whatever the pace.
  assert.deepEqual(kinds(planEvaluation([unit({ month: dec(9000) })], b, new Date('2026-11-06T23:00:00Z'))), []);
});

test('blockSentence: BLOCK only; says whether a gateway enforces the ceiling', () => {
  assert.equal(blockSentence({ monthlyMode: 'ALERT', enforcementTarget: 'litellm:team:x' }), null);
  assert.equal(blockSentence({ monthlyMode: 'BLOCK', enforcementTarget: 'litellm:team:backend' }), 'Requests through the gateway (litellm:team:backend) are blocked until the month ends or the ceiling is raised.');
  assert.match(blockSentence({ monthlyMode: 'BLOCK', enforcementTarget: null })!, /no gateway enforces it/);
});
