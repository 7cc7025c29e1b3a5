import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dec } from '../../../platform/money.js';
import {
  checkEffectiveFrom,
  checkPriceDenominations,
  checkTariffValue,
  checkWeightFeatures,
  classify,
  matchPriceBatch,
  matchWeightBatch,
  normaliseModel,
  pickWeight,
  validatePriceEntries,
  validateWeightEntries,
  type WeightCandidate,
} from './domain.js';

const F1 = '0190a000-0000-7000-8000-000000000001';
const F2 = '0190a000-0000-7000-8000-000000000002';
const t = (iso: string) => new Date(iso);
const NOW = t('2026-03-10T12:00:00Z');

describe('entry validation', () => {
  test('when effectiveFrom is now or earlier then the message starts as the contract says; a later instant passes', () => {
    assert.match(checkEffectiveFrom(NOW, NOW)!, /^effectiveFrom must not be in the past/);
    assert.match(checkEffectiveFrom(t('2026-03-10T11:59:59.999Z'), NOW)!, /^effectiveFrom must not be in the past/);
    assert.equal(checkEffectiveFrom(t('2026-03-10T12:00:00.001Z'), NOW), null);
  });

  test('when a value is zero, negative, above 1,000,000 or has 7 decimals then it is rejected, never rounded', () => {
    assert.equal(checkTariffValue(dec(0)), 'must be positive');
    assert.equal(checkTariffValue(dec('-0.5')), 'must be positive');
    assert.equal(checkTariffValue(dec('1000000.000001')), 'exceeds maximum 1000000');
    assert.equal(checkTariffValue(dec('0.0000001')), 'allows at most 6 decimals');
    assert.equal(checkTariffValue(dec('1000000')), null);
    assert.equal(checkTariffValue(dec('0.000001')), null);
    assert.equal(checkTariffValue(dec('2.5000000')), null, 'trailing zeros are not decimals');
  });

  test('when weight entries are invalid then each problem names its 0-based index and field', () => {
    const { problems } = validateWeightEntries([
      { featureId: F1, creditsPerUnit: dec(1) },
      { featureId: 'nope', creditsPerUnit: dec(0) },
      { featureId: F1, model: '  ', creditsPerUnit: dec(2) },
    ]);
    assert.deepEqual(
      problems.map((p) => [p.message, p.field, p.reason]),
      [
        ['Entry 1: featureId is not a valid UUID', 'featureId', 'is not a valid UUID'],
        ['Entry 1: creditsPerUnit must be positive', 'creditsPerUnit', 'must be positive'],
        ['Entry 2: duplicate (feature, model) in batch', 'featureId', 'duplicate (feature, model) in batch'],
      ],
    );
  });

  test('when models differ only by surrounding blanks then they are the same model; case still matters', () => {
    assert.equal(normaliseModel('  gpt-4.1 '), 'gpt-4.1');
    assert.equal(normaliseModel(''), null);
    assert.equal(normaliseModel(undefined), null);
    const { problems } = validateWeightEntries([
      { featureId: F1, model: 'GPT', creditsPerUnit: dec(1) },
      { featureId: F1, model: 'gpt', creditsPerUnit: dec(1) },
      { featureId: F1, model: ' gpt ', creditsPerUnit: dec(1) },
    ]);
    assert.deepEqual(problems.map((p) => p.index), [2]);
  });

  test('when a feature is missing or draws on two denominations then the entry is rejected', () => {
    const { entries } = validateWeightEntries([
      { featureId: F1, creditsPerUnit: dec(1) },
      { featureId: F2, creditsPerUnit: dec(1) },
    ]);
    assert.deepEqual(checkWeightFeatures(entries, new Map([[F1, { key: 'chat', denominations: ['tokens'] }]])).map((p) => p.message), [
      'Entry 1: feature not found for this account',
    ]);
    const ambiguous = checkWeightFeatures(entries, new Map([[F1, { key: 'chat', denominations: ['tokens', 'gems'] }], [F2, { key: 'x', denominations: [] }]]));
    assert.deepEqual(ambiguous.map((p) => p.message), ["Entry 0: feature 'chat' draws on more than one credit denomination (tokens, gems)"]);
  });

  test('when price entries are checked then currency is upper-cased, defaults to USD, and bad ones are named', () => {
    const { entries, problems } = validatePriceEntries([
      { denomination: ' tokens ', pricePerCredit: dec('0.01') },
      { denomination: 'gems', pricePerCredit: dec('0.5'), currency: 'eur' },
      { denomination: '', pricePerCredit: dec('1.1234567'), currency: 'EURO' },
      { denomination: 'tokens', pricePerCredit: dec(1) },
    ]);
    assert.deepEqual(entries.slice(0, 2).map((e) => [e.denomination, e.currency]), [['tokens', 'USD'], ['gems', 'EUR']]);
    assert.deepEqual(problems.map((p) => p.message), [
      'Entry 2: denomination is required',
      'Entry 2: pricePerCredit allows at most 6 decimals',
      'Entry 2: currency must be a 3-letter ISO 4217 code',
      'Entry 3: duplicate denomination in batch',
    ]);
    assert.deepEqual(checkPriceDenominations(entries.slice(0, 2), new Set(['tokens'])).map((p) => p.message), [
      "Entry 1: no credit model with denomination 'gems' on this account",
    ]);
  });
});

describe('batch identity', () => {
  const weights = [
    { featureId: F1, model: null, creditsPerUnit: dec('2.5') },
    { featureId: F1, model: 'gpt', creditsPerUnit: dec(8) },
  ];

  test('when the stored batch has the same keys and equal values in any order and scale then it is a replay in request order', () => {
    const stored = [
      { id: 'b', featureId: F1, model: 'gpt', creditsPerUnit: dec('8.000000') },
      { id: 'a', featureId: F1.toUpperCase(), model: null, creditsPerUnit: dec('2.50') },
    ];
    assert.deepEqual(matchWeightBatch(weights, stored)?.map((r) => r.id), ['a', 'b']);
  });

  test('when a value, a key or the row count differs then it is not a replay', () => {
    assert.equal(matchWeightBatch(weights, [{ featureId: F1, model: null, creditsPerUnit: dec('2.5') }]), null);
    assert.equal(matchWeightBatch(weights, [weights[0]!, { ...weights[1]!, creditsPerUnit: dec('8.000001') }]), null);
    assert.equal(matchWeightBatch(weights, [weights[0]!, { ...weights[1]!, model: 'GPT' }]), null);
    const price = { denomination: 'tokens', pricePerCredit: dec('0.01'), currency: 'USD' };
    assert.notEqual(matchPriceBatch([price], [{ ...price, pricePerCredit: dec('0.010') }]), null);
    assert.equal(matchPriceBatch([price], [{ ...price, currency: 'EUR' }]), null);
  });
});

describe('current and scheduled classification', () => {
  test('when a chain has past, present and future rows then the newest in effect is CURRENT, later SCHEDULED, older SUPERSEDED', () => {
    const rows = [
      { id: 'old', key: 'a', effectiveFrom: t('2026-01-01T00:00:00Z') },
      { id: 'cur', key: 'a', effectiveFrom: t('2026-02-01T00:00:00Z') },
      { id: 'next', key: 'a', effectiveFrom: t('2026-04-01T00:00:00Z') },
      { id: 'edge', key: 'b', effectiveFrom: NOW },
      { id: 'only-future', key: 'c', effectiveFrom: t('2026-05-01T00:00:00Z') },
    ];
    const status = Object.fromEntries(classify(rows, (r) => r.key, NOW).map((r) => [r.id, r.status]));
    assert.deepEqual(status, { old: 'SUPERSEDED', cur: 'CURRENT', next: 'SCHEDULED', edge: 'CURRENT', 'only-future': 'SCHEDULED' });
  });
});

describe('weight resolution precedence', () => {
  const row = (id: string, model: string | null, weight: string, from: string): WeightCandidate => ({ id, model, creditsPerUnit: dec(weight), effectiveFrom: t(from) });
  const candidates = [row('default', null, '2', '2026-03-01T00:00:00Z'), row('model', 'gpt', '8', '2026-01-01T00:00:00Z')];

  test('when the exact model has a row then it wins, even over a newer default row', () => {
    assert.deepEqual(pickWeight(candidates, ' gpt ', NOW), { weight: dec(8), weightId: 'model', weightMatch: 'MODEL' });
  });

  test('when the model has no row, or the model is blank, then the feature default applies', () => {
    for (const model of ['claude', null, '  ']) {
      const r = pickWeight(candidates, model, NOW);
      assert.equal(r.weightMatch, 'FEATURE_DEFAULT');
      assert.equal(r.weightId, 'default');
    }
  });

  test('when nothing is in effect then the identity weight 1.0 applies with no id', () => {
    const r = pickWeight([row('future', null, '3', '2026-04-01T00:00:00Z')], 'gpt', NOW);
    assert.equal(r.weight.toFixed(), '1');
    assert.deepEqual([r.weightId, r.weightMatch], [null, 'NONE']);
  });

  test('when a chain has several rows then the newest in effect at `at` is used, not a future one', () => {
    const chain = [row('v1', 'gpt', '1', '2026-01-01T00:00:00Z'), row('v2', 'gpt', '2', '2026-03-01T00:00:00Z'), row('v3', 'gpt', '3', '2026-04-01T00:00:00Z')];
    assert.equal(pickWeight(chain, 'gpt', NOW).weightId, 'v2');
    assert.equal(pickWeight(chain, 'gpt', t('2026-04-01T00:00:00Z')).weightId, 'v3');
  });
});
