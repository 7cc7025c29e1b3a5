import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../platform/errors/app-error.js';
import { parseJson, stringifyJson } from '../../platform/http/json.js';
import { Decimal, dec, isDecimal } from '../../platform/money.js';
import {
  computeCost,
  computeGraduatedCost,
  computeUsageRevenue,
  fromStoredRuleValue,
  parseRuleValue,
  toRuleValueJson,
  toStoredRuleValue,
  type Cost,
  type Pricing,
  type Tier,
} from './rule-value.js';

/** Decimals become `toFixed()` strings so deepEqual compares values, not internal digit layout. */
function plain(value: unknown): unknown {
  if (isDecimal(value)) return value.toFixed();
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

function assertInvalid(fn: () => unknown, message: string, field: string, detail?: string) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'validation_failed');
    assert.equal(err.status, 400);
    assert.equal(err.message, message);
    assert.deepEqual(err.options.fields, [{ field, message }]);
    if (detail !== undefined) assert.equal(err.options.detail, detail);
    return true;
  });
}

const usage = (extra: Record<string, unknown> = {}) => ({
  pricing: { model: 'usage', usage_unit_type: 'api_calls', price_per_unit: '0.002', ...extra },
});
const graduated = (tiers: unknown) => ({ pricing: { model: 'graduated', usage_unit_type: 'tokens', tiers } });

const CONTRACT_EXAMPLE =
  '{"pricing":{"model":"usage","usage_unit_type":"api_calls","price_per_unit":0.002,"max_usage":10000,"reset_mode":"reset"},' +
  '"cost":{"model":"simple","cost_per_unit":0.0005,"cost_unit":"CURRENCY"}}';

test('when value is absent, null or empty then the rule has no pricing and no cost', () => {
  for (const input of [undefined, null, {}]) assert.deepEqual(parseRuleValue(input), { pricing: null, cost: null });
});

test('when the contract example goes through parse and the JSON codec then the same document comes back', () => {
  const parsed = parseRuleValue(parseJson(CONTRACT_EXAMPLE));
  assert.equal(stringifyJson(toRuleValueJson(parsed)), CONTRACT_EXAMPLE);
  assert.ok(isDecimal((toRuleValueJson(parsed).pricing as Record<string, unknown>).price_per_unit));
});

test('when decimals arrive as number, Decimal or numeric string then they parse to the same exact value', () => {
  for (const price of [0.002, dec('0.002'), '0.002', ' 0.0020 ']) {
    const { pricing } = parseRuleValue(usage({ price_per_unit: price }));
    assert.equal(pricing?.pricePerUnit?.toFixed(), '0.002');
  }
});

test('when reset_mode and max_usage are absent then reset mode is the default and usage is unlimited', () => {
  const { pricing } = parseRuleValue(usage());
  assert.equal(pricing?.resetMode, 'reset');
  assert.equal(pricing?.maxUsage, null);
  assert.equal(parseRuleValue(usage({ reset_mode: 'accumulate' })).pricing?.resetMode, 'accumulate');
});

test('when max_usage is 0 then it normalises to unlimited and is omitted from the output', () => {
  const value = parseRuleValue(usage({ max_usage: 0 }));
  assert.equal(value.pricing?.maxUsage, null);
  assert.equal('max_usage' in (toRuleValueJson(value).pricing as object), false);
});

test('when the pricing model is missing or unknown then 400 names the supported models', () => {
  const detail = 'Supported pricing models: usage, graduated';
  assertInvalid(() => parseRuleValue({ pricing: { usage_unit_type: 'x', price_per_unit: 1 } }), 'Invalid pricing model configuration', 'value.pricing.model', detail);
  assertInvalid(() => parseRuleValue(usage({ model: 'volume' })), 'Invalid pricing model configuration', 'value.pricing.model', detail);
});

test('when usage_unit_type is missing or blank then 400 usage_unit_type is required', () => {
  assertInvalid(() => parseRuleValue(usage({ usage_unit_type: undefined })), 'usage_unit_type is required', 'value.pricing.usage_unit_type');
  assertInvalid(() => parseRuleValue(usage({ usage_unit_type: '  ' })), 'usage_unit_type is required', 'value.pricing.usage_unit_type');
});

test('when a usage model has no price_per_unit then 400 price_per_unit is required', () => {
  assertInvalid(() => parseRuleValue(usage({ price_per_unit: undefined })), 'price_per_unit is required', 'value.pricing.price_per_unit');
  assertInvalid(() => parseRuleValue(usage({ price_per_unit: null })), 'price_per_unit is required', 'value.pricing.price_per_unit');
});

test('when price_per_unit or max_usage is negative then 400 says it cannot be negative', () => {
  assertInvalid(() => parseRuleValue(usage({ price_per_unit: '-0.01' })), 'price_per_unit cannot be negative', 'value.pricing.price_per_unit');
  assertInvalid(() => parseRuleValue(usage({ max_usage: -1 })), 'max_usage cannot be negative', 'value.pricing.max_usage');
});

test('when a decimal field is not numeric then 400 names the field', () => {
  assertInvalid(() => parseRuleValue(usage({ price_per_unit: 'abc' })), 'price_per_unit must be a number', 'value.pricing.price_per_unit');
  assertInvalid(() => parseRuleValue(usage({ max_usage: true })), 'max_usage must be a number', 'value.pricing.max_usage');
});

test('when reset_mode is not reset or accumulate then 400 Invalid reset_mode', () => {
  assertInvalid(() => parseRuleValue(usage({ reset_mode: 'monthly' })), 'Invalid reset_mode', 'value.pricing.reset_mode');
});

test('when a graduated model has no tiers then 400 Tiers are required for graduated pricing model', () => {
  const message = 'Tiers are required for graduated pricing model';
  assertInvalid(() => parseRuleValue(graduated(undefined)), message, 'value.pricing.tiers');
  assertInvalid(() => parseRuleValue(graduated([])), message, 'value.pricing.tiers');
});

test('when graduated tiers are valid then inf becomes an unbounded tier and flat fees are kept', () => {
  const value = parseRuleValue(graduated([{ up_to: 100, price_per_unit: '0.10', flat_fee: 5 }, { up_to: 'inf', price_per_unit: '0.05' }]));
  assert.deepEqual(plain(value.pricing?.tiers), [
    { upTo: '100', pricePerUnit: '0.1', flatFee: '5' },
    { upTo: null, pricePerUnit: '0.05', flatFee: null },
  ]);
  assert.equal(value.pricing?.pricePerUnit, null);
});

test('when a tier field is negative or tiers are out of order then 400 names the tier', () => {
  assertInvalid(() => parseRuleValue(graduated([{ up_to: 10, price_per_unit: 1, flat_fee: -1 }])), 'tiers[0].flat_fee cannot be negative', 'value.pricing.tiers[0].flat_fee');
  const disordered = [{ up_to: 'inf', price_per_unit: 1 }, { up_to: 10, price_per_unit: 1 }];
  assertInvalid(
    () => parseRuleValue(graduated(disordered)),
    'Tiers must have ascending up_to values and only the last tier may be "inf"',
    'value.pricing.tiers',
  );
});

test('when the legacy flat form is sent then it is stored in the nested form', () => {
  const value = parseRuleValue({ model: 'usage', usage_unit_type: 'api_calls', price_per_unit: 0.002, cost_model: 'simple', cost_per_unit: '0.0005' });
  assert.deepEqual(plain(toRuleValueJson(value)), {
    pricing: { model: 'usage', usage_unit_type: 'api_calls', price_per_unit: '0.002', reset_mode: 'reset' },
    cost: { model: 'simple', cost_per_unit: '0.0005' },
  });
});

test('when the legacy flat form misses its price then the error names the nested field', () => {
  assertInvalid(() => parseRuleValue({ model: 'usage', usage_unit_type: 'x' }), 'price_per_unit is required', 'value.pricing.price_per_unit');
});

test('when a cost model is unknown or lacks its rate then 400 names the cost field', () => {
  assertInvalid(() => parseRuleValue({ cost: { model: 'magic' } }), 'Invalid cost model configuration', 'value.cost.model');
  assertInvalid(() => parseRuleValue({ cost: { model: 'simple' } }), 'cost_per_unit is required', 'value.cost.cost_per_unit');
  assertInvalid(() => parseRuleValue({ cost: { model: 'model_aware' } }), 'default_input_cost_per_unit is required', 'value.cost.default_input_cost_per_unit');
  assertInvalid(() => parseRuleValue({ cost: { model: 'simple', cost_per_unit: 1, cost_unit: 'USD' } }), 'Invalid cost_unit', 'value.cost.cost_unit');
});

test('when a model-aware cost is stored and read back then every decimal is exact and a string', () => {
  const value = parseRuleValue({
    cost: {
      model: 'model_aware', default_input_cost_per_unit: '0.000000123456789', cost_unit: 'TOKENS',
      model_costs: { 'gpt-4o': { input: '0.0000025', output: '0.00001' } },
    },
  });
  const stored = toStoredRuleValue(value);
  assert.deepEqual(stored, {
    cost: {
      model: 'model_aware', default_input_cost_per_unit: '0.000000123456789', cost_unit: 'TOKENS',
      model_costs: { 'gpt-4o': { input: '0.0000025', output: '0.00001' } },
    },
  });
  assert.deepEqual(plain(fromStoredRuleValue(JSON.parse(JSON.stringify(stored)))), plain(value));
});

test('when graduated pricing is stored and read back then inf and flat fees survive', () => {
  const value = parseRuleValue(graduated([{ up_to: '1000', price_per_unit: '0.01', flat_fee: '2.50' }, { up_to: 'inf', price_per_unit: '0.005' }]));
  const stored = toStoredRuleValue(value);
  assert.deepEqual((stored.pricing as Record<string, unknown>).tiers, [
    { up_to: '1000', price_per_unit: '0.01', flat_fee: '2.5' },
    { up_to: 'inf', price_per_unit: '0.005' },
  ]);
  assert.deepEqual(plain(fromStoredRuleValue(stored)), plain(value));
});

test('when a stored value is corrupt then reading it throws a plain error, not a 400', () => {
  assert.throws(() => fromStoredRuleValue({ pricing: { model: 'nope' } }), (err: unknown) => {
    assert.ok(err instanceof Error && !(err instanceof AppError));
    assert.match(err.message, /^Stored rule value is invalid: Invalid pricing model configuration/);
    return true;
  });
});

const tiers: Tier[] = [
  { upTo: dec(100), pricePerUnit: dec('0.10'), flatFee: dec(5) },
  { upTo: dec(1000), pricePerUnit: dec('0.05'), flatFee: null },
  { upTo: null, pricePerUnit: dec('0.01'), flatFee: dec(1) },
];

test('when units span tiers then graduated cost sums units per tier plus each reached flat fee', () => {
  assert.equal(computeGraduatedCost(tiers, dec(0)).toFixed(), '0');
  assert.equal(computeGraduatedCost(tiers, dec(50)).toFixed(), '10'); // 50×0.10 + 5
  assert.equal(computeGraduatedCost(tiers, dec(100)).toFixed(), '15'); // tier 2 not reached yet
  assert.equal(computeGraduatedCost(tiers, dec(101)).toFixed(), '15.05');
  assert.equal(computeGraduatedCost(tiers, dec(2000)).toFixed(), '71'); // 15 + 900×0.05 + 1000×0.01 + 1
});

test('when units pass the last bounded tier then the excess is priced at that tier rate', () => {
  const bounded = tiers.slice(0, 2);
  assert.equal(computeGraduatedCost(bounded, dec(1100)).toFixed(), '65'); // 15 + 900×0.05 + 100×0.05
});

const usagePricing: Pricing = {
  model: 'usage', usageUnitType: 'api_calls', pricePerUnit: dec('0.0000015'), maxUsage: null, resetMode: 'reset', tiers: null,
};

test('when revenue is computed for usage pricing then it is units × price rounded to 6 dp half-up', () => {
  assert.equal(computeUsageRevenue(usagePricing, dec(3)).toFixed(), '0.000005'); // 0.0000045 rounds up
  assert.equal(computeUsageRevenue(usagePricing, dec('0.1')).toFixed(), '0');
  assert.equal(computeUsageRevenue({ ...usagePricing, pricePerUnit: dec('0.1') }, dec('0.2')).toFixed(), '0.02');
});

test('when revenue is computed for graduated pricing then the tier formula applies to the event units', () => {
  const pricing: Pricing = { ...usagePricing, model: 'graduated', pricePerUnit: null, tiers };
  assert.equal(computeUsageRevenue(pricing, dec(101)).toFixed(), '15.05');
});

test('when the rule has no cost then cost is null', () => {
  assert.equal(computeCost(null, dec(10), {}), null);
});

test('when cost is simple then it is units × cost_per_unit rounded to 6 dp', () => {
  const cost: Cost = { model: 'simple', costPerUnit: dec('0.0005'), costUnit: 'CURRENCY' };
  assert.equal(computeCost(cost, dec(3), {})?.toFixed(), '0.0015');
  assert.equal(computeCost({ ...cost, costPerUnit: dec('0.00000025') }, dec(3), {})?.toFixed(), '0.000001');
});

test('when cost is model aware then known models use their rates and others fall back to defaults', () => {
  const cost: Cost = {
    model: 'model_aware', defaultInputCostPerUnit: dec('0.000001'), defaultOutputCostPerUnit: null, costUnit: 'TOKENS',
    modelCosts: { 'gpt-4o': { input: dec('0.0000025'), output: dec('0.00001') } },
  };
  // 1000 × 0.0000025 + 200 × 0.00001
  assert.equal(computeCost(cost, dec(0), { model: 'gpt-4o', inputTokens: 1000, outputTokens: 200 })?.toFixed(), '0.0045');
  // unknown model: default input, and output costs nothing because no default output rate is set
  assert.equal(computeCost(cost, dec(0), { model: 'other', inputTokens: 1000, outputTokens: 200 })?.toFixed(), '0.001');
  assert.equal(computeCost(cost, dec(0), { model: 'constructor', inputTokens: 1000 })?.toFixed(), '0.001');
  const withOutput = { ...cost, defaultOutputCostPerUnit: dec('0.000002') };
  assert.equal(computeCost(withOutput, dec(0), { inputTokens: 1000, outputTokens: 200 })?.toFixed(), '0.0014');
});

test('when a price has more digits than a double holds then it is kept exactly', () => {
  const { pricing } = parseRuleValue(usage({ price_per_unit: '0.1000000000000000000000001' }));
  assert.ok(pricing?.pricePerUnit instanceof Decimal);
  assert.equal(pricing.pricePerUnit.toFixed(), '0.1000000000000000000000001');
});
