import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { computeMargins, unitCost, type BookRate } from './domain.js';
import type { Rates } from '../prices/seed.js';

const rates = (input: string | null, output: string | null, cacheRead: string | null = null): Rates => ({
  input: input === null ? null : dec(input),
  output: output === null ? null : dec(output),
  cacheRead: cacheRead === null ? null : dec(cacheRead),
  cacheWrite5m: null,
  cacheWrite1h: null,
});
const mix = (input: number | string, cacheRead: number | string, output: number | string) => ({ input: dec(input), cacheRead: dec(cacheRead), output: dec(output) });

test('unitCost is Σ tokens × rate per million × 0.0001 cents, exact; a missing cache rate falls back to the input rate and says so', () => {
  assert.equal(unitCost(mix(1000, 0, 1000), rates('3', '15'))!.cents.toFixed(), '1.8');
  // 0.5 input + 0.5 output tokens (a unit of one token, split evenly): (0.5 × 3 + 0.5 × 15) × 0.0001
  assert.equal(unitCost(mix('0.5', 0, '0.5'), rates('3', '15'))!.cents.toFixed(), '0.0009');
  const fallback = unitCost(mix(0, 1000, 0), rates('3', '15'));
  assert.deepEqual([fallback!.cents.toFixed(), fallback!.cacheRateKnown], ['0.3', false]);
  const own = unitCost(mix(0, 1000, 0), rates('3', '15', '0.3'));
  assert.deepEqual([own!.cents.toFixed(), own!.cacheRateKnown], ['0.03', true]);
});

test('unitCost is null when a token class the mix has no rate for; a class the mix lacks needs none', () => {
  assert.equal(unitCost(mix(1000, 0, 1000), rates('3', null)), null);
  assert.equal(unitCost(mix(1000, 0, 0), rates('3', null))!.cents.toFixed(), '0.3');
  assert.equal(unitCost(mix(0, 10, 0), rates(null, '15')), null);
});

test('computeMargins rounds the break-even weight up at 6 dp and counts exactly-at-cost as not below cost', () => {
  const book: Record<string, BookRate> = { m: { provider: 'OPENAI', model: 'm', rates: rates('1', '2') } };
  const tariff = {
    creditFeatures: [{ featureId: 'f', featureKey: 'feat', denominations: ['c'] }],
    weights: [{ id: 'w', featureId: 'f', featureKey: 'feat', model: 'm', creditsPerUnit: dec('0.3') }],
    prices: [{ denomination: 'c', pricePerCredit: dec('0.03'), currency: 'USD' }],
  };
  // cost (1 + 2) × 0.0001 = 0.0003 cents; a credit is 3 cents; 0.3 credits earn 0.9 cents.
  // break-even 0.0003 / 3 = 0.0001 exactly.
  const [row] = computeMargins({ tariff, rateOf: (m) => book[m] ?? null, mix: mix(1, 0, 1), extraModels: [] }).rows;
  assert.deepEqual([row!.costCentsPerUnit.toFixed(), row!.breakEvenCreditsPerUnit.toFixed(), row!.belowCost], ['0.0003', '0.0001', false]);
  // 10 input tokens at $1 = 0.001 cents / 3 = 0.000333… → 0.000334.
  const [tenth] = computeMargins({ tariff, rateOf: (m) => book[m] ?? null, mix: mix(10, 0, 0), extraModels: [] }).rows;
  assert.equal(tenth!.breakEvenCreditsPerUnit.toFixed(), '0.000334');
  const atCost = { ...tariff, weights: [{ ...tariff.weights[0]!, creditsPerUnit: dec('0.0001') }] };
  const [even] = computeMargins({ tariff: atCost, rateOf: (m) => book[m] ?? null, mix: mix(1, 0, 1), extraModels: [] }).rows;
  assert.deepEqual([even!.marginCentsPerUnit.toFixed(), even!.belowCost], ['0', false]);
});

test('computeMargins lists a feature drawing on several denominations, or an unpriced one, as not compared', () => {
  const tariff = {
    creditFeatures: [
      { featureId: 'a', featureKey: 'a', denominations: ['x', 'y'] },
      { featureId: 'b', featureKey: 'b', denominations: ['z'] },
    ],
    weights: [{ id: 'w', featureId: 'a', featureKey: 'a', model: 'm', creditsPerUnit: dec(1) }],
    prices: [],
  };
  const r = computeMargins({ tariff, rateOf: () => null, mix: mix(1, 0, 1), extraModels: [] });
  assert.deepEqual(r.notCompared.map((n) => [n.featureKey, n.model, n.denomination, n.reason]), [
    ['a', 'm', 'x, y', 'SEVERAL_DENOMINATIONS'],
    ['b', null, 'z', 'NO_CREDIT_PRICE'],
  ]);
  assert.deepEqual(r.unpricedModels, ['m']);
});
