import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec } from '../../../platform/money.js';
import { cacheRatesKnown, meteredCents, pricesEvery, rateOf } from './cost.js';
import type { Rates } from './seed.js';

const d = (v: string | null) => (v === null ? null : dec(v));
const rates = (input: string | null, output: string | null, cacheRead: string | null = null, cacheWrite5m: string | null = null, cacheWrite1h: string | null = null): Rates => ({
  input: d(input),
  output: d(output),
  cacheRead: d(cacheRead),
  cacheWrite5m: d(cacheWrite5m),
  cacheWrite1h: d(cacheWrite1h),
});

describe('the metered-cost rule', () => {
  it('is Σ tokens × rate per million × 0.0001 cents, exact', () => {
    assert.equal(meteredCents({ uncachedInput: dec(1000), output: dec(1000) }, rates('3', '15')).toFixed(), '1.8');
    assert.equal(meteredCents({ uncachedInput: dec('0.5'), output: dec('0.5') }, rates('3', '15')).toFixed(), '0.0009');
  });

  it('prices the batch tier at half', () => {
    assert.equal(meteredCents({ uncachedInput: dec(1000), output: dec(1000) }, rates('3', '15'), true).toFixed(), '0.9');
  });

  it('falls back to the input rate for a cache class without its own rate, and says so', () => {
    const r = rates('3', '15', null, '3.75');
    assert.equal(rateOf(r, 'cacheRead')!.toFixed(), '3');
    assert.equal(rateOf(r, 'cacheWrite5m')!.toFixed(), '3.75');
    assert.equal(meteredCents({ cacheRead: dec(1000), cacheWrite5m: dec(1000) }, r).toFixed(), '0.675');
    assert.equal(cacheRatesKnown({ cacheRead: dec(1000) }, r), false);
    assert.equal(cacheRatesKnown({ cacheRead: dec(0), cacheWrite5m: dec(1000) }, r), true);
  });

  it('never falls back for input or output: a class with tokens and no rate is unpriced and adds nothing', () => {
    assert.equal(pricesEvery({ uncachedInput: dec(1), output: dec(1) }, rates('3', null)), false);
    assert.equal(pricesEvery({ uncachedInput: dec(1), output: dec(0) }, rates('3', null)), true);
    assert.equal(pricesEvery({ cacheRead: dec(1) }, rates(null, '15')), false);
    assert.equal(meteredCents({ uncachedInput: dec(1000), output: dec(1000) }, rates('3', null)).toFixed(), '0.3');
  });
});
