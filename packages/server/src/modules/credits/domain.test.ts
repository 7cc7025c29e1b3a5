import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../platform/money.js';
import { armedForThreshold, availableInGrants, capacityOf, computePoolSignals, coveredUsage, planFifoDraw, planPoolDraw, planRollover, poolStatusAfter, type DrawSource, type PoolSignalState } from './domain.js';

const NOW = new Date('2026-03-10T12:00:00Z');
const later = new Date('2026-04-01T00:00:00Z');
const grant = (id: string, remaining: string, expiresAt: Date | null = null) => ({ id, remaining: dec(remaining), expiresAt });
const show = (plan: { grantId?: string; poolId?: string; amount: { toFixed(): string } }[]) => plan.map((d) => [d.grantId ?? d.poolId, d.amount.toFixed()]);

test('when drawing from grants then FIFO in the given order, skipping expired and empty grants, never more than asked', () => {
  const grants = [grant('expired', '50', NOW), grant('empty', '0'), grant('a', '3', later), grant('b', '10')];
  assert.deepEqual(show(planFifoDraw(grants, dec('5.5'), NOW)), [['a', '3'], ['b', '2.5']]);
  assert.deepEqual(show(planFifoDraw(grants, dec(100), NOW)), [['a', '3'], ['b', '10']], 'what is there, no more');
  assert.deepEqual(planFifoDraw(grants, dec(0), NOW), []);
  assert.equal(availableInGrants(grants, NOW).toFixed(), '13', 'an expiry at exactly now counts as expired');
});

const pool = (poolId: string, available: string, hardLimit = false, linkHeadroom: string | null = null): DrawSource => ({
  poolId,
  hardLimit,
  available: dec(available),
  linkHeadroom: linkHeadroom === null ? null : dec(linkHeadroom),
});

test('when drawing across pools then priority order is kept and each link draw limit caps its pool', () => {
  const plan = planPoolDraw([pool('first', '10', false, '4'), pool('second', '100')], dec(20));
  assert.deepEqual(show(plan.draws), [['first', '4'], ['second', '16']]);
  assert.equal(plan.covered.toFixed(), '20');
  assert.equal(plan.refused, false);
  const spent = planPoolDraw([pool('capped', '10', false, '-1'), pool('next', '1')], dec(3));
  assert.deepEqual(show(spent.draws), [['next', '1']], 'a link drawn past its limit gives nothing (negative headroom is 0)');
});

test('when a link has a draw limit then a pool can give at most its headroom, never below zero', () => {
  assert.deepEqual([pool('a', '10'), pool('b', '10', false, '4'), pool('c', '3', false, '4'), pool('d', '10', false, '-2')].map((p) => capacityOf(p).toFixed()), ['10', '4', '3', '0']);
});

test('when soft pools cannot cover a charge then they give what they have and the rest stays billable usage', () => {
  const plan = planPoolDraw([pool('soft', '2.5')], dec(4));
  assert.deepEqual(show(plan.draws), [['soft', '2.5']]);
  assert.equal(plan.uncovered.toFixed(), '1.5');
  assert.equal(plan.refused, false);
});

test('when any linked pool is hard-limit and together they are short then the whole charge is refused, nothing drawn', () => {
  const plan = planPoolDraw([pool('soft', '5'), pool('hard', '4', true)], dec(10));
  assert.equal(plan.refused, true);
  assert.deepEqual(plan.draws, []);
  assert.equal(plan.uncovered.toFixed(), '10');
  const exact = planPoolDraw([pool('hard', '10', true)], dec(10));
  assert.equal(exact.refused, false, 'exactly enough is enough');
  const capped = planPoolDraw([pool('hard', '100', true, '5')], dec(6));
  assert.equal(capped.refused, true, 'a draw limit counts against a hard pool too');
});

test('when a period rolls over then NONE expires all, FULL keeps all, CAPPED expires the oldest excess', () => {
  const grants = [
    { id: 'old', remaining: dec(30) },
    { id: 'new', remaining: dec(50) },
  ];
  assert.deepEqual(show(planRollover('NONE', null, grants)), [['old', '30'], ['new', '50']]);
  assert.deepEqual(planRollover('FULL', null, grants), []);
  assert.deepEqual(show(planRollover('CAPPED', dec(60), grants)), [['old', '20']]);
  assert.deepEqual(show(planRollover('CAPPED', dec(10), grants)), [['old', '30'], ['new', '40']]);
  assert.deepEqual(planRollover('CAPPED', dec(100), grants), []);
});

test('when a balance changes then only a hard-limit pool at zero is DEPLETED; FROZEN and ARCHIVED stay', () => {
  assert.equal(poolStatusAfter('ACTIVE', true, dec(0)), 'DEPLETED');
  assert.equal(poolStatusAfter('DEPLETED', true, dec('0.000001')), 'ACTIVE');
  assert.equal(poolStatusAfter('ACTIVE', false, dec(0)), 'ACTIVE');
  assert.equal(poolStatusAfter('FROZEN', true, dec(0)), 'FROZEN');
  assert.equal(poolStatusAfter('ARCHIVED', false, dec(5)), 'ARCHIVED');
});

test('when credits cover usage then the covered units round down at 6 dp', () => {
  assert.equal(coveredUsage(dec(10), dec(3)).toFixed(), '3.333333');
  assert.equal(coveredUsage(dec(5), dec('1.5')).toFixed(), '3.333333');
});

test('when a change crosses a pool threshold or zero then balance_low and depleted fire once per crossing and re-arm as the contract says', () => {
  const armed: PoolSignalState = { threshold: dec(50), hardLimit: true, lowArmed: true, depletedArmed: true };
  const fire = (state: PoolSignalState, before: number, after: number) => computePoolSignals(state, dec(before), dec(after));
  assert.deepEqual(fire(armed, 60, 50), { lowBalance: false, depleted: false, lowArmed: true, depletedArmed: true }, 'exactly the threshold is not below it');
  assert.deepEqual(fire(armed, 60, 49), { lowBalance: true, depleted: false, lowArmed: false, depletedArmed: true });
  assert.deepEqual(fire({ ...armed, lowArmed: false }, 49, 10), { lowBalance: false, depleted: false, lowArmed: false, depletedArmed: true }, 'disarmed: nothing');
  assert.deepEqual(fire({ ...armed, lowArmed: false }, 10, 30), { lowBalance: false, depleted: false, lowArmed: false, depletedArmed: true }, 'a rise still below stays disarmed');
  assert.equal(fire({ ...armed, lowArmed: false }, 10, 50).lowArmed, true, 'back to ≥ threshold re-arms');
  assert.deepEqual(fire(armed, 60, 0), { lowBalance: true, depleted: true, lowArmed: false, depletedArmed: false }, 'one change can fire both');
  assert.equal(fire({ ...armed, hardLimit: false }, 10, 0).depleted, false, 'soft pools never record depleted');
  assert.equal(fire({ ...armed, depletedArmed: false }, 10, 0).depleted, false);
  assert.equal(fire({ ...armed, depletedArmed: false }, 0, 1).depletedArmed, true, 'any rise re-arms depleted');
  assert.equal(fire({ ...armed, depletedArmed: true }, 0, 0).depleted, false, 'a change that does not lower the balance fires nothing');
  assert.deepEqual(fire({ ...armed, threshold: null }, 60, 10), { lowBalance: false, depleted: false, lowArmed: true, depletedArmed: true }, 'no threshold, no balance_low');
  assert.equal(armedForThreshold(dec(50), dec(50)), true);
  assert.equal(armedForThreshold(dec(50), dec(49)), false);
});
