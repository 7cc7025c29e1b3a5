import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '../../../src/platform/http/json.js';
import { dec } from '../../../src/platform/money.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * The negative-margin guard (issue 15 item 10, ADR 0015). Expected cents are worked by hand from
 * the seeded spend price book (USD per million tokens) and the default unit of 1,000 input + 1,000
 * output tokens: cost cents = Σ tokens × rate × 0.0001.
 *   claude-sonnet-4-5  $3 in / $15 out     → (3,000 + 15,000) × 0.0001 = 1.8 cents
 *   gpt-5-mini         $0.25 in / $2 out   → (250 + 2,000) × 0.0001 = 0.225 cents
 *   claude-haiku-4-5   $1 in / $5 out      → (1,000 + 5,000) × 0.0001 = 0.6 cents
 *   acme-house-model   operator row $4 / $8 → (4,000 + 8,000) × 0.0001 = 1.2 cents
 * A credit at $0.01 is 1 cent, so revenue cents per unit = the weight.
 */
const HOUR = 3_600_000;
const NOW = '2026-11-25T12:00:00Z';

async function setupAccount(svc: TestService) {
  const account = await createTestAccount(svc);
  const m = monetization(svc, account);
  const spend = (path: string, body?: unknown) => svc.http.request(body === undefined ? 'GET' : 'POST', `/api/v1/spend${path}`, { auth: account.token, ...(body === undefined ? {} : { body }) });
  /** A feature whose plan rule draws on the credit model `modelId` (credit-backed), or a plain feature. */
  async function feature(key: string, modelId?: string) {
    const f = await m.feature({ key });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: `plan-${key}`, name: `Plan ${key}`, description: 'margin', priceAmount: 0, intervalMonths: 1 }), 201);
    const value = { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 0 } };
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: f.id, ...(modelId ? { creditModelId: modelId } : {}), value }), 201);
    return f as { id: string; key: string };
  }
  const at = (ms: number) => new Date(svc.clock.now().getTime() + ms).toISOString();
  const publishWeights = (effectiveFrom: string, entries: unknown[]) => m.admin('POST', '/credits/weights/publish', { effectiveFrom, entries });
  const publishPrices = (effectiveFrom: string, entries: unknown[]) => m.admin('POST', '/credits/prices/publish', { effectiveFrom, entries });
  /** The report with exact decimals (the harness's JSON.parse would make floats). */
  const report = async (query: string) => {
    const res = await spend(`/reports/margin?${query}`);
    assert.equal(res.status, 200, res.text);
    return (parseJson(res.text) as { data: any }).data;
  };
  return { account, m, spend, feature, at, publishWeights, publishPrices, report };
}

const fixed = (v: unknown) => dec(v as string).toFixed();
const exact = (text: string) => parseJson(text) as any;

describe('spend margin report and the tariff publish warning', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: NOW });
  });
  after(() => svc.close());

  test('when weights sell a model below its cost then the report lists that combination below cost, the others above, unpriced models and uncompared weights apart', async () => {
    const a = await setupAccount(svc);
    const credits = await a.m.creditModel({ denomination: 'ai-credits' });
    const euros = await a.m.creditModel({ denomination: 'eu-credits' });
    const chat = await a.feature('chat', credits.id);
    const summarise = await a.feature('summarise'); // no credit model: not credit-backed
    const translate = await a.feature('translate', euros.id); // priced in EUR: no exchange rate
    assert.equal((await a.spend('/prices', { provider: 'OPENAI', model: 'acme-house-model', effectiveFrom: '2026-11-01', inputCostPerMillion: 4, outputCostPerMillion: 8 })).status, 201);
    assert.equal((await a.publishPrices(a.at(HOUR), [{ denomination: 'ai-credits', pricePerCredit: '0.01' }, { denomination: 'eu-credits', pricePerCredit: '0.01', currency: 'EUR' }])).status, 201);
    const weightsAt = a.at(2 * HOUR);
    const published = await a.publishWeights(weightsAt, [
      { featureId: chat.id, model: 'claude-sonnet-4-5', creditsPerUnit: 2 }, // 2 > 1.8: above cost
      { featureId: chat.id, model: 'gpt-5-mini', creditsPerUnit: '0.2' }, // 0.2 < 0.225: below cost
      { featureId: chat.id, model: 'acme-house-model', creditsPerUnit: '1.3' }, // 1.3 > 1.2 (operator row)
      { featureId: chat.id, model: 'acme-unpriced-model', creditsPerUnit: 5 }, // not in the book
      { featureId: chat.id, creditsPerUnit: '0.5' }, // feature default
      { featureId: summarise.id, model: 'gpt-5-mini', creditsPerUnit: 1 },
      { featureId: translate.id, model: 'gpt-5-mini', creditsPerUnit: 1 },
    ]);
    assert.equal(published.status, 201, published.text);

    // Now, before either batch takes effect, no model is named and nothing is compared.
    const now = await a.report('');
    assert.deepEqual(now.rows, []);

    const r = await a.report(`at=${encodeURIComponent(weightsAt)}`);
    assert.deepEqual(Object.keys(r).sort(), ['at', 'belowCostCount', 'notCompared', 'priceBookDay', 'rows', 'tokensPerUnit', 'unpricedModels'].sort());
    assert.equal(r.priceBookDay, '2026-11-25');
    assert.deepEqual([fixed(r.tokensPerUnit.input), fixed(r.tokensPerUnit.cacheRead), fixed(r.tokensPerUnit.output)], ['1000', '0', '1000']);
    const rows = r.rows.map((x: any) => [x.featureKey, x.model, x.weightMatch, fixed(x.creditsPerUnit), fixed(x.revenueCentsPerUnit), fixed(x.costCentsPerUnit), fixed(x.marginCentsPerUnit), x.belowCost, fixed(x.breakEvenCreditsPerUnit)]);
    assert.deepEqual(rows, [
      ['chat', 'acme-house-model', 'MODEL', '1.3', '1.3', '1.2', '0.1', false, '1.2'],
      ['chat', 'claude-sonnet-4-5', 'MODEL', '2', '2', '1.8', '0.2', false, '1.8'],
      ['chat', 'gpt-5-mini', 'MODEL', '0.2', '0.2', '0.225', '-0.025', true, '0.225'],
    ]);
    assert.equal(r.belowCostCount, 1);
    const gpt = r.rows[2];
    assert.deepEqual([gpt.featureId, gpt.denomination, gpt.currency, fixed(gpt.pricePerCredit), gpt.priceProvider, gpt.priceModel, gpt.cacheRateKnown], [chat.id, 'ai-credits', 'USD', '0.01', 'OPENAI', 'gpt-5-mini', true]);
    assert.deepEqual([r.rows[0].priceProvider, r.rows[0].priceModel], ['OPENAI', 'acme-house-model'], 'an unmatched name is priced by the operator row of that name');
    assert.deepEqual(r.unpricedModels, ['acme-unpriced-model']);
    assert.deepEqual(
      r.notCompared.map((x: any) => [x.featureKey, x.model, x.denomination, x.currency, x.reason]),
      [
        ['chat', null, 'ai-credits', 'USD', 'NO_MODEL_TO_CHECK'], // every model named has its own chat row
        ['summarise', 'gpt-5-mini', null, null, 'NO_DENOMINATION'],
        ['translate', 'gpt-5-mini', 'eu-credits', 'EUR', 'CURRENCY_NOT_USD'],
      ],
    );
    assert.match((await a.spend(`/reports/margin?at=${encodeURIComponent(weightsAt)}`)).text, /"costCentsPerUnit":0\.225[,}]/, 'exact JSON numbers');

    // The feature default and the identity weight, checked against a model the tariff does not name:
    // haiku 0.6 cents against chat's default 0.5 (below); belowCostOnly keeps only those.
    const withHaiku = await a.report(`at=${encodeURIComponent(weightsAt)}&models=claude-haiku-4-5,%20gpt-5-mini&belowCostOnly=true`);
    assert.deepEqual(
      withHaiku.rows.map((x: any) => [x.featureKey, x.model, x.weightMatch, x.weightId === null, fixed(x.revenueCentsPerUnit), fixed(x.costCentsPerUnit), fixed(x.marginCentsPerUnit), fixed(x.breakEvenCreditsPerUnit)]),
      [
        ['chat', 'claude-haiku-4-5', 'FEATURE_DEFAULT', false, '0.5', '0.6', '-0.1', '0.6'],
        ['chat', 'gpt-5-mini', 'MODEL', false, '0.2', '0.225', '-0.025', '0.225'],
      ],
    );
    assert.equal(withHaiku.belowCostCount, 2);
    assert.equal(withHaiku.notCompared.some((x: any) => x.reason === 'NO_MODEL_TO_CHECK'), false, 'the default is now checked against haiku');

    // Another token mix: 500 input, 2,000 cache reads, 100 output on gpt-5-mini ($0.025 cache read):
    // (500 × 0.25 + 2,000 × 0.025 + 100 × 2) × 0.0001 = 375 × 0.0001 = 0.0375 cents → above cost.
    const light = await a.report(`at=${encodeURIComponent(weightsAt)}&featureId=${chat.id}&inputTokensPerUnit=500&cacheReadTokensPerUnit=2000&outputTokensPerUnit=100`);
    const lightGpt = light.rows.find((x: any) => x.model === 'gpt-5-mini');
    assert.deepEqual([fixed(lightGpt.costCentsPerUnit), fixed(lightGpt.marginCentsPerUnit), lightGpt.belowCost], ['0.0375', '0.1625', false]);
    assert.equal(light.belowCostCount, 0);
    assert.deepEqual(light.notCompared.map((x: any) => x.featureKey), ['chat'], 'featureId filters every list');
  });

  test('when a credit-backed feature has no weight then the identity weight 1 is checked against the models named', async () => {
    const a = await setupAccount(svc);
    const credits = await a.m.creditModel({ denomination: 'cheap-credits' });
    const bare = await a.feature('bare', credits.id);
    assert.equal((await a.publishPrices(a.at(HOUR), [{ denomination: 'cheap-credits', pricePerCredit: '0.001' }])).status, 201);
    // 1 credit × $0.001 = 0.1 cents against claude-sonnet-4-5's 1.8 cents; break-even 1.8 ÷ 0.1 = 18 credits.
    const r = await a.report(`at=${encodeURIComponent(a.at(HOUR))}&models=claude-sonnet-4-5`);
    assert.deepEqual(
      r.rows.map((x: any) => [x.featureId, x.model, x.weightMatch, x.weightId, fixed(x.creditsPerUnit), fixed(x.revenueCentsPerUnit), fixed(x.marginCentsPerUnit), x.belowCost, fixed(x.breakEvenCreditsPerUnit)]),
      [[bare.id, 'claude-sonnet-4-5', 'NONE', null, '1', '0.1', '-1.7', true, '18']],
    );
  });

  test('when the report query is bad then 400 validation_failed names the parameter; a key is refused', async () => {
    const a = await setupAccount(svc);
    const cases: [string, string][] = [
      ['inputTokensPerUnit=-1', 'inputTokensPerUnit'],
      ['outputTokensPerUnit=1e309', 'outputTokensPerUnit'],
      ['cacheReadTokensPerUnit=0.0000001', 'cacheReadTokensPerUnit'],
      ['inputTokensPerUnit=1000000001', 'inputTokensPerUnit'],
      ['at=yesterday', 'at'],
      ['featureId=nope', 'featureId'],
      ['belowCostOnly=yes', 'belowCostOnly'],
      [`models=${Array.from({ length: 51 }, (_, i) => `m${i}`).join(',')}`, 'models'],
      [`models=${'x'.repeat(129)}`, 'models'],
    ];
    for (const [query, field] of cases) {
      const res = await a.spend(`/reports/margin?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.ok(res.body.error.fields.some((f: any) => f.field === field), `${query}: ${res.text}`);
    }
    const key = await svc.http.get('/api/v1/spend/reports/margin', { auth: a.account.apiKey });
    assert.equal(key.status, 401);
  });

  test('when a publish would sell below cost then it is stored (201) and answers warnings for the combinations it made; otherwise no warnings field', async () => {
    const a = await setupAccount(svc);
    const credits = await a.m.creditModel({ denomination: 'ai-credits' });
    const chat = await a.feature('chat', credits.id);
    const priceAt = a.at(HOUR);
    const price = await a.publishPrices(priceAt, [{ denomination: 'ai-credits', pricePerCredit: '0.01' }]);
    assert.equal(price.status, 201);
    assert.equal('warnings' in price.body, false, 'no weight yet: nothing to compare');

    const weightsAt = a.at(2 * HOUR);
    const res = await a.publishWeights(weightsAt, [
      { featureId: chat.id, model: 'claude-sonnet-4-5', creditsPerUnit: 2 },
      { featureId: chat.id, model: 'gpt-5-mini', creditsPerUnit: '0.2' },
    ]);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.length, 2, 'the batch is published');
    const body = exact(res.text);
    assert.equal(body.warnings.length, 1);
    const w = body.warnings[0];
    assert.deepEqual(
      [w.code, w.featureId, w.featureKey, w.model, w.weightMatch, w.denomination, w.currency, fixed(w.creditsPerUnit), fixed(w.pricePerCredit), fixed(w.revenueCentsPerUnit), fixed(w.costCentsPerUnit), fixed(w.breakEvenCreditsPerUnit)],
      ['BELOW_COST', chat.id, 'chat', 'gpt-5-mini', 'MODEL', 'ai-credits', 'USD', '0.2', '0.01', '0.2', '0.225', '0.225'],
    );
    assert.match(w.message, /^Feature 'chat' on model 'gpt-5-mini' sells below cost from /);
    assert.match(w.message, /earns 0\.2 cents, the model costs 0\.225 cents per unit \(assuming 1000 input and 1000 output tokens per unit\); break-even weight 0\.225$/);
    assert.equal((await a.m.admin('GET', '/credits/weights')).body.data.length, 2, 'stored despite the warning');

    // An identical replay answers the same warning; a batch that only raises a weight above cost has none.
    const replay = await a.publishWeights(weightsAt, [
      { featureId: chat.id, model: 'claude-sonnet-4-5', creditsPerUnit: 2 },
      { featureId: chat.id, model: 'gpt-5-mini', creditsPerUnit: '0.2' },
    ]);
    assert.equal(replay.status, 201);
    assert.equal(replay.body.warnings.length, 1);
    const fixedUp = await a.publishWeights(a.at(3 * HOUR), [{ featureId: chat.id, model: 'gpt-5-mini', creditsPerUnit: '0.225' }]);
    assert.equal(fixedUp.status, 201);
    assert.equal('warnings' in fixedUp.body, false, 'at cost is not below cost');

    // A feature default published with no model left to apply to: no warning about other chains.
    const fallback = await a.publishWeights(a.at(4 * HOUR), [{ featureId: chat.id, creditsPerUnit: '0.000001' }]);
    assert.equal('warnings' in fallback.body, false);

    // Halving the credit price at 5 h: 2 × 0.5 = 1 < 1.8 and 0.225 × 0.5 = 0.1125 < 0.225, both warned.
    const cut = await a.publishPrices(a.at(5 * HOUR), [{ denomination: 'ai-credits', pricePerCredit: '0.005' }]);
    assert.equal(cut.status, 201);
    assert.deepEqual(
      exact(cut.text).warnings.map((x: any) => [x.model, fixed(x.revenueCentsPerUnit), fixed(x.costCentsPerUnit), fixed(x.breakEvenCreditsPerUnit)]),
      [
        ['claude-sonnet-4-5', '1', '1.8', '3.6'],
        ['gpt-5-mini', '0.1125', '0.225', '0.45'],
      ],
    );
  });

  test('when the spend module is off then a below-cost publish has no warnings', async () => {
    const off = await startTestService({ now: NOW, env: { APP_MODULES_BUILD_ENABLED: 'false' } });
    try {
      const a = await setupAccount(off);
      const credits = await a.m.creditModel({ denomination: 'ai-credits' });
      const chat = await a.feature('chat', credits.id);
      assert.equal((await a.publishPrices(a.at(HOUR), [{ denomination: 'ai-credits', pricePerCredit: '0.01' }])).status, 201);
      const res = await a.publishWeights(a.at(2 * HOUR), [{ featureId: chat.id, model: 'gpt-5-mini', creditsPerUnit: '0.2' }]);
      assert.equal(res.status, 201, res.text);
      assert.equal('warnings' in res.body, false);
      assert.equal((await a.spend('/reports/margin')).body.error.code, 'module_disabled');
    } finally {
      await off.close();
    }
  });
});
