import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { stringifyJson } from '../../../platform/http/json.js';
import { dec } from '../../../platform/money.js';
import { buildPricingDocument, PRICING_SCHEMA_URL, signupPlanOf, type PricingInput, type PricingPlan } from './domain.js';

const BASE = 'https://api.acme.example';

const plan = (key: string, overrides: Partial<PricingPlan> = {}): PricingPlan => ({
  id: `id-${key}`,
  key,
  name: key.toUpperCase(),
  priceAmount: dec(0),
  currency: 'USD',
  intervalMonths: 1,
  features: [{ key: 'ai.chat', priced: false }],
  allocations: [],
  ...overrides,
});

const input = (overrides: Partial<PricingInput> = {}): PricingInput => ({
  baseUrl: BASE,
  slug: 'acme',
  accountName: 'Acme AI',
  agentSignupEnabled: false,
  agentSignupDefaultPlanId: null,
  agentMaxTopupAmount: null,
  mcpEnabled: true,
  plans: [plan('free')],
  weights: [],
  prices: [],
  ...overrides,
});

/** What goes on the wire: the exact codec's text, parsed back. */
const wire = (i: PricingInput) => {
  const doc = buildPricingDocument(i);
  assert.ok(doc);
  return { text: stringifyJson(doc), json: JSON.parse(stringifyJson(doc)) };
};

describe('buildPricingDocument', () => {
  test('when there is no ACTIVE plan then there is no document (the schema needs one plan)', () => {
    assert.equal(buildPricingDocument(input({ plans: [] })), null);
  });

  test('when the contract example is rebuilt then the document matches it key for key, in order', () => {
    const { text } = wire(
      input({
        agentSignupEnabled: true,
        agentSignupDefaultPlanId: 'id-free',
        agentMaxTopupAmount: dec(100),
        plans: [
          plan('free', { name: 'Free', allocations: [{ denomination: 'credits', creditAmount: dec(100) }] }),
          plan('pro', {
            name: 'Pro',
            priceAmount: dec('49.00'),
            features: [{ key: 'ai.chat', priced: false }, { key: 'ai.research', priced: true }],
            allocations: [{ denomination: 'credits', creditAmount: dec(5000) }],
          }),
        ],
        weights: [
          { featureKey: 'ai.chat', model: null, creditsPerUnit: dec(1) },
          { featureKey: 'ai.research', model: null, creditsPerUnit: dec(5) },
          { featureKey: 'ai.research', model: 'gpt-4.1', creditsPerUnit: dec(8) },
        ],
        prices: [{ denomination: 'credits', pricePerCredit: dec('0.01'), currency: 'USD' }],
      }),
    );
    assert.equal(
      text,
      JSON.stringify({
        $schema: PRICING_SCHEMA_URL,
        product: { name: 'Acme AI', vendor: 'Acme AI', category: 'saas', url: BASE },
        revenue_model: { type: 'credit', billing_frequency: ['monthly'], agent_onboarding: true },
        plans: [
          {
            id: 'free', name: 'Free', price: { amount: 0, currency: 'USD', per: 'month' }, features: ['ai.chat'], included_usage: { credits: 100 },
            trial: { days: 0, requires_payment_method: false, api_provisioning_url: `${BASE}/public/v1/catalog/acme/signup` },
          },
          { id: 'pro', name: 'Pro', price: { amount: 49, currency: 'USD', per: 'month' }, features: ['ai.chat', 'ai.research'], included_usage: { credits: 5000 } },
        ],
        credits: {
          currency_name: 'credits',
          weight_table: { 'ai.chat': 1, 'ai.research': 5, 'ai.research:gpt-4.1': 8 },
          price_book: [{ denomination: 'credits', price_per_credit: 0.01, currency: 'USD' }],
        },
        governance: { per_key_limits: true, budget_controls: true, spend_alerts: false, burndown_api: true },
        integration: { api_docs_url: `${BASE}/swagger-ui.html`, openapi_spec_url: `${BASE}/v3/api-docs`, mcp_server: true, auth_methods: ['api-key'] },
      }),
    );
  });

  test('when amounts have many digits then they are written exactly, never through a float', () => {
    const { text } = wire(
      input({
        plans: [plan('big', { priceAmount: dec('123456789012.3456') })],
        weights: [{ featureKey: 'ai.chat', model: null, creditsPerUnit: dec('0.000001') }],
        prices: [{ denomination: 'tokens', pricePerCredit: dec('0.000003'), currency: 'EUR' }],
      }),
    );
    assert.match(text, /"amount":123456789012\.3456,/);
    assert.match(text, /"ai\.chat":0\.000001\}/);
    assert.match(text, /"price_per_credit":0\.000003,/);
  });

  test('when the revenue model is derived then credit beats usage beats flat', () => {
    const priced = plan('metered', { features: [{ key: 'ai.chat', priced: true }] });
    const credited = plan('credited', { allocations: [{ denomination: 'credits', creditAmount: dec(1) }] });
    assert.equal(wire(input({ plans: [plan('a')] })).json.revenue_model.type, 'flat');
    assert.equal(wire(input({ plans: [plan('a'), priced] })).json.revenue_model.type, 'usage');
    assert.equal(wire(input({ plans: [priced, credited] })).json.revenue_model.type, 'credit');
  });

  test('when plans bill yearly and monthly then per and billing_frequency follow intervalMonths, without duplicates', () => {
    const { json } = wire(input({ plans: [plan('m1'), plan('y', { intervalMonths: 12 }), plan('m3', { intervalMonths: 3 }), plan('y2', { intervalMonths: 12 })] }));
    assert.deepEqual(json.revenue_model.billing_frequency, ['monthly', 'annual']);
    assert.deepEqual(json.plans.map((p: any) => p.price.per), ['month', 'year', 'month', 'year']);
  });

  test('when a plan has no enabled feature and no allocation then features and included_usage are omitted', () => {
    const { json } = wire(input({ plans: [plan('bare', { features: [] })] }));
    assert.deepEqual(Object.keys(json.plans[0]), ['id', 'name', 'price']);
  });

  test('when two allocations share a denomination then included_usage adds them, keys ordered by denomination', () => {
    const { text } = wire(
      input({
        plans: [plan('p', { allocations: [{ denomination: 'tokens', creditAmount: dec('0.5') }, { denomination: 'credits', creditAmount: dec(10) }, { denomination: 'tokens', creditAmount: dec('1.25') }] })],
      }),
    );
    assert.match(text, /"included_usage":\{"credits":10,"tokens":1\.75\}/);
  });

  test('when there are weights but no prices or allocations then credits has no currency_name and an empty price book', () => {
    const { json } = wire(input({ weights: [{ featureKey: 'ai.chat', model: null, creditsPerUnit: dec(2) }] }));
    assert.deepEqual(json.credits, { weight_table: { 'ai.chat': 2 }, price_book: [] });
  });

  test('when there are allocations but no prices then currency_name is the first allocated denomination', () => {
    const { json } = wire(input({ plans: [plan('p', { allocations: [{ denomination: 'tokens', creditAmount: dec(1) }] })] }));
    assert.deepEqual(json.credits, { currency_name: 'tokens', weight_table: {}, price_book: [] });
  });

  test('when a feature key is __proto__ then it stays a plain key of the weight table', () => {
    const { text } = wire(input({ weights: [{ featureKey: '__proto__', model: null, creditsPerUnit: dec(3) }] }));
    assert.match(text, /"weight_table":\{"__proto__":3\}/);
  });

  test('when the account has no name then product name and vendor are the slug', () => {
    const { json } = wire(input({ accountName: '  ' }));
    assert.deepEqual(json.product, { name: 'acme', vendor: 'acme', category: 'saas', url: BASE });
  });
});

describe('signupPlanOf', () => {
  const plans = [plan('free'), plan('pro', { priceAmount: dec(49) })];
  test('when signup is enabled with a free ACTIVE default plan then that plan', () => {
    assert.equal(signupPlanOf({ agentSignupEnabled: true, agentSignupDefaultPlanId: 'id-free', plans })?.key, 'free');
  });
  test('when signup is off, the default is missing, not ACTIVE (not listed) or not free then none', () => {
    assert.equal(signupPlanOf({ agentSignupEnabled: false, agentSignupDefaultPlanId: 'id-free', plans }), null);
    assert.equal(signupPlanOf({ agentSignupEnabled: true, agentSignupDefaultPlanId: null, plans }), null);
    assert.equal(signupPlanOf({ agentSignupEnabled: true, agentSignupDefaultPlanId: 'id-archived', plans }), null);
    assert.equal(signupPlanOf({ agentSignupEnabled: true, agentSignupDefaultPlanId: 'id-pro', plans }), null);
  });
});
