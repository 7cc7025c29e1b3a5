import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { holdSecondsOf, mergePortions, splitHolds } from './domain.js';

const holds = [
  { poolId: 'p1', portions: [{ grantId: 'g1', amount: dec('3') }, { grantId: 'g2', amount: dec('2') }] },
  { poolId: 'p2', portions: [{ grantId: 'g3', amount: dec('4') }] },
];
const plain = (s: ReturnType<typeof splitHolds>) => s.map((x) => ({ poolId: x.poolId, consumed: x.consumed.map((p) => [p.grantId, p.amount.toFixed()]), released: x.released.map((p) => [p.grantId, p.amount.toFixed()]) }));

test('when a capture is below the hold then the oldest portions of the first pools are consumed and the rest released', () => {
  assert.deepEqual(plain(splitHolds(holds, dec('4.5'))), [
    { poolId: 'p1', consumed: [['g1', '3'], ['g2', '1.5']], released: [['g2', '0.5']] },
    { poolId: 'p2', consumed: [], released: [['g3', '4']] },
  ]);
});

test('when a capture is zero (a release) then every portion is released', () => {
  assert.deepEqual(plain(splitHolds(holds, dec(0))).flatMap((s) => s.consumed), []);
  assert.equal(plain(splitHolds(holds, dec(0))).flatMap((s) => s.released).length, 3);
});

test('when a capture exceeds the hold then every portion is consumed and nothing is released', () => {
  const split = plain(splitHolds(holds, dec('12')));
  assert.deepEqual(split.flatMap((s) => s.released), []);
  assert.deepEqual(split.flatMap((s) => s.consumed), [['g1', '3'], ['g2', '2'], ['g3', '4']]);
});

test('when a grant appears in both the held and the fresh part then one draw row carries the sum', () => {
  assert.deepEqual(mergePortions([{ grantId: 'g1', amount: dec('1') }], [{ grantId: 'g1', amount: dec('0.25') }, { grantId: 'g2', amount: dec('2') }]).map((p) => [p.grantId, p.amount.toFixed()]), [['g1', '1.25'], ['g2', '2']]);
});

test('when no hold time is asked then 5 minutes, capped by the maximum', () => {
  assert.equal(holdSecondsOf(undefined, 3600), 300);
  assert.equal(holdSecondsOf(undefined, 60), 60);
  assert.equal(holdSecondsOf(900, 600), 600);
});
