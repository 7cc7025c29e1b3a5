import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BLANK_RULE, draftOf, valueOf } from '../src/pages/plan/rule-draft.js';

/** The rules editor's draft ↔ the rule `value` document of the contract (§3.3), without a browser. */
describe('console: rule drafts', () => {
  test('when a stored usage rule is drafted then its decimals stay exact text and go back unchanged', () => {
    const stored = { enabled: true, creditModelId: null, value: { pricing: { model: 'usage', usage_unit_type: 'api_calls', price_per_unit: '0.000000000000000123', max_usage: '100000', reset_mode: 'accumulate' } } };
    const d = draftOf(stored);
    assert.equal(d.pricePerUnit, '0.000000000000000123');
    assert.equal(d.maxUsage, '100000');
    assert.equal(d.resetMode, 'accumulate');
    assert.deepEqual(valueOf(d), stored.value);
  });

  test('when graduated tiers are drafted then an empty last "up to" is the unbounded tier and empty fees are left out', () => {
    const d = { ...BLANK_RULE, model: 'graduated' as const, unit: 'tokens', tiers: [{ upTo: '1000', pricePerUnit: '0.1', flatFee: '5' }, { upTo: '', pricePerUnit: '0.05', flatFee: '' }] };
    assert.deepEqual(valueOf(d), {
      pricing: { model: 'graduated', usage_unit_type: 'tokens', reset_mode: 'reset', tiers: [{ up_to: '1000', price_per_unit: '0.1', flat_fee: '5' }, { up_to: 'inf', price_per_unit: '0.05' }] },
    });
    assert.deepEqual(draftOf({ enabled: true, value: valueOf(d) }).tiers, d.tiers);
  });

  test('when a cost per AI model is drafted then named models become model_costs and the unit is kept', () => {
    const d = { ...BLANK_RULE, model: '' as const, costModel: 'model_aware' as const, inputCost: '0.001', outputCost: '', costUnit: 'TOKENS' as const, modelCosts: [{ model: 'gpt-4o', input: '0.002', output: '0.008' }, { model: ' ', input: '', output: '' }] };
    assert.deepEqual(valueOf(d), { cost: { model: 'model_aware', default_input_cost_per_unit: '0.001', model_costs: { 'gpt-4o': { input: '0.002', output: '0.008' } }, cost_unit: 'TOKENS' } });
    const back = draftOf({ enabled: false, value: valueOf(d), creditModelId: 'm-1' });
    assert.deepEqual([back.model, back.enabled, back.creditModelId, back.modelCosts], ['', false, 'm-1', [{ model: 'gpt-4o', input: '0.002', output: '0.008' }]]);
  });

  test('when a feature is included (no pricing, no cost) then the value is an empty document', () => {
    assert.deepEqual(valueOf({ ...BLANK_RULE, model: '' }), {});
    assert.equal(draftOf({ enabled: true, value: {} }).model, '');
  });
});
