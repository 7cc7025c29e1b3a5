import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type HttpResponse, type TestService } from '../../harness.js';
import { pricingSchemaValidator, setCatalogSettings } from './agent-helpers.js';

const HOUR = 3_600_000;
const SCHEMA_URL = 'https://raw.githubusercontent.com/katrinalaszlo/agent-serve/main/schema/pricing.schema.json';
const INCLUDED = {};
const USAGE = { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.002 } };

describe('public pricing document (GET /public/v1/catalog/{slug}/pricing.json)', () => {
  let svc: TestService;
  const validate = pricingSchemaValidator();

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  const url = (slug: string) => `/public/v1/catalog/${slug}/pricing.json`;

  /** Reads the document and checks it against the external schema, as an agent would. */
  async function readDocument(slug: string): Promise<{ res: HttpResponse; doc: any }> {
    const res = await svc.http.get(url(slug));
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.body.success, undefined, 'no envelope');
    assert.equal(validate(res.body), null, 'a valid pricing.json');
    return { res, doc: res.body };
  }

  /** An account with a catalog open at a fresh slug. */
  async function account(settings: Partial<Parameters<typeof setCatalogSettings>[2]> = {}) {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const slug = `shop-${acct.accountId.slice(-8)}`;
    await setCatalogSettings(svc, acct, { slug, ...settings });
    const accountName = (await svc.ctx.db.selectFrom('accounts').select('name').where('id', '=', acct.accountId).executeTakeFirstOrThrow()).name;
    return { ...acct, m, slug, accountName };
  }

  const withoutRequestId = (res: HttpResponse) => {
    const headers = Object.fromEntries([...res.headers].filter(([k]) => k !== 'x-request-id' && k !== 'date'));
    const { requestId: _r, ...error } = res.body.error;
    return { status: res.status, headers, body: { ...res.body, error } };
  };

  test('when the slug is unknown, the catalog is closed, or it has no ACTIVE plan then the same 404 "No catalog at this address"', async () => {
    const closed = await account({ publicCatalogEnabled: false });
    const feature = await closed.m.feature();
    await closed.m.activePlan({ price: 0, features: [{ id: feature.id }] });
    const empty = await account();
    const draftOnly = await account();
    await draftOnly.m.expectOk(draftOnly.m.admin('POST', '/plans', { key: 'draft', name: 'Draft', priceAmount: 5, intervalMonths: 1 }), 201);

    const answers = [];
    for (const slug of ['no-such-shop', closed.slug, empty.slug, draftOnly.slug]) answers.push(await svc.http.get(url(slug)));
    for (const res of answers) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'not_found');
      assert.equal(res.body.error.message, 'No catalog at this address');
      assert.equal(res.headers.get('cache-control'), null);
      assert.equal(res.headers.get('etag'), null);
    }
    const [first, ...rest] = answers.map(withoutRequestId);
    for (const other of rest) assert.deepEqual(other, first, 'status, headers and body are identical');
  });

  test('when a flat catalog is read then ACTIVE plans appear in client order with keys in the contract order', async () => {
    const a = await account();
    const chat = await a.m.feature({ key: 'ai.chat' });
    const search = await a.m.feature({ key: 'search' });
    await a.m.activePlan({ key: 'free', price: 0, features: [{ id: chat.id, value: INCLUDED }] });
    const archived = await a.m.activePlan({ key: 'old', price: 5, features: [{ id: (await a.m.feature()).id, value: INCLUDED }] });
    await a.m.expectOk(a.m.admin('PATCH', `/plans/${archived.id}`, { status: 'ARCHIVED' }));
    await a.m.expectOk(a.m.admin('POST', '/plans', { key: 'draft', name: 'Draft', priceAmount: 5, intervalMonths: 1 }), 201);
    await a.m.activePlan({ key: 'pro', price: '19.99', features: [{ id: chat.id, value: INCLUDED }, { id: search.id, value: INCLUDED }] });
    const back = await a.m.activePlan({ key: 'back', price: 49, features: [{ id: search.id, value: INCLUDED }] });
    await a.m.expectOk(a.m.admin('PATCH', `/plans/${back.id}`, { status: 'ARCHIVED' }));
    await a.m.expectOk(a.m.admin('PATCH', `/plans/${back.id}`, { status: 'ACTIVE' }));

    const { res, doc } = await readDocument(a.slug);
    const clientOrder = (await a.m.expectOk(a.m.client('GET', '/plans'))).items.map((i: any) => i.plan.key);
    assert.deepEqual(doc.plans.map((p: any) => p.id), clientOrder);
    assert.deepEqual(Object.keys(doc), ['$schema', 'product', 'revenue_model', 'plans', 'governance', 'integration']);
    assert.deepEqual(Object.keys(doc.product), ['name', 'vendor', 'category', 'url']);
    assert.deepEqual(Object.keys(doc.revenue_model), ['type', 'billing_frequency', 'agent_onboarding']);
    assert.deepEqual(Object.keys(doc.plans[0]), ['id', 'name', 'price', 'features']);
    assert.deepEqual(Object.keys(doc.plans[0].price), ['amount', 'currency', 'per']);
    assert.deepEqual(Object.keys(doc.governance), ['per_key_limits', 'budget_controls', 'spend_alerts', 'burndown_api']);
    assert.deepEqual(Object.keys(doc.integration), ['api_docs_url', 'openapi_spec_url', 'mcp_server', 'auth_methods']);
    assert.deepEqual(doc, {
      $schema: SCHEMA_URL,
      product: { name: a.accountName, vendor: a.accountName, category: 'saas', url: svc.baseUrl },
      revenue_model: { type: 'flat', billing_frequency: ['monthly'], agent_onboarding: false },
      plans: [
        { id: 'free', name: 'Plan free', price: { amount: 0, currency: 'USD', per: 'month' }, features: ['ai.chat'] },
        { id: 'pro', name: 'Plan pro', price: { amount: 19.99, currency: 'USD', per: 'month' }, features: ['ai.chat', 'search'] },
        { id: 'back', name: 'Plan back', price: { amount: 49, currency: 'USD', per: 'month' }, features: ['search'] },
      ],
      governance: { per_key_limits: true, budget_controls: false, spend_alerts: false, burndown_api: true },
      integration: {
        api_docs_url: `${svc.baseUrl}/swagger-ui.html`,
        openapi_spec_url: `${svc.baseUrl}/v3/api-docs`,
        mcp_server: true,
        auth_methods: ['api-key'],
      },
    });
    assert.match(res.text, /"amount":19\.99,/, 'the price is an exact JSON number');
  });

  test('when a plan has a priced (non-included) feature then the revenue model is usage', async () => {
    const a = await account();
    const chat = await a.m.feature({ key: 'ai.chat' });
    const search = await a.m.feature({ key: 'search' });
    await a.m.activePlan({ key: 'metered', price: 10, features: [{ id: search.id, value: INCLUDED }, { id: chat.id, value: USAGE }] });
    const { doc } = await readDocument(a.slug);
    assert.deepEqual(doc.revenue_model, { type: 'usage', billing_frequency: ['monthly'], agent_onboarding: false });
    const clientFeatures = (await a.m.expectOk(a.m.client('GET', '/plans'))).items[0].features.map((f: any) => f.key);
    assert.deepEqual(doc.plans[0].features, clientFeatures, 'features in the client catalog order');
    assert.deepEqual([...doc.plans[0].features].sort(), ['ai.chat', 'search']);
    assert.equal(doc.credits, undefined, 'no credits, weights or prices: no credits section');
  });

  test('when credits, weights and prices exist then credits shows the weights in effect now and the price book', async () => {
    const a = await account({ agentMaxTopupAmount: '50' });
    const chat = await a.m.feature({ key: 'ai.chat' });
    const free = await a.m.activePlan({ key: 'free', price: 0, features: [{ id: chat.id, value: USAGE }] });
    await a.m.activePlan({ key: 'pro', price: 49, features: [{ id: chat.id, value: USAGE }] });
    const model = await a.m.creditModel({ denomination: 'credits' });
    await a.m.expectOk(a.m.admin('POST', `/credits/models/${model.id}/plans/${free.id}?creditAmount=100`), 201);
    const at = (ms: number) => new Date(svc.clock.now().getTime() + ms).toISOString();
    const publishWeights = (effectiveFrom: string, entries: unknown[]) =>
      a.m.expectOk(a.m.admin('POST', '/credits/weights/publish', { effectiveFrom, entries }), 201);
    await publishWeights(at(1000), [{ featureId: chat.id, creditsPerUnit: 1 }, { featureId: chat.id, model: 'gpt-4.1', creditsPerUnit: 8 }]);
    await publishWeights(at(2000), [{ featureId: chat.id, creditsPerUnit: '0.000001' }]);
    await a.m.expectOk(a.m.admin('POST', '/credits/prices/publish', { effectiveFrom: at(1500), entries: [{ denomination: 'credits', currency: 'USD', pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(5000);
    await publishWeights(at(HOUR), [{ featureId: chat.id, creditsPerUnit: 99 }, { featureId: chat.id, model: 'claude', creditsPerUnit: 3 }]);

    const { res, doc } = await readDocument(a.slug);
    assert.equal(doc.revenue_model.type, 'credit');
    assert.deepEqual(doc.plans[0].included_usage, { credits: 100 });
    assert.equal(doc.plans[1].included_usage, undefined, 'no allocation: omitted');
    assert.deepEqual(doc.credits, {
      currency_name: 'credits',
      weight_table: { 'ai.chat': 0.000001, 'ai.chat:gpt-4.1': 8 },
      price_book: [{ denomination: 'credits', price_per_credit: 0.01, currency: 'USD' }],
    });
    assert.deepEqual(Object.keys(doc), ['$schema', 'product', 'revenue_model', 'plans', 'credits', 'governance', 'integration']);
    assert.deepEqual(Object.keys(doc.plans[0]), ['id', 'name', 'price', 'features', 'included_usage']);
    assert.deepEqual(Object.keys(doc.credits), ['currency_name', 'weight_table', 'price_book']);
    assert.match(res.text, /"ai\.chat":0\.000001,/, 'a weight is an exact number in plain notation');
    assert.equal(doc.governance.budget_controls, true, 'an agent spend cap is set');

    svc.clock.advanceMs(HOUR);
    const later = await readDocument(a.slug);
    assert.deepEqual(later.doc.credits.weight_table, { 'ai.chat': 99, 'ai.chat:claude': 3, 'ai.chat:gpt-4.1': 8 }, 'the scheduled rows took effect');
  });

  test('when a catalog has annual and monthly plans then per is year or month and both frequencies are listed', async () => {
    const a = await account();
    await a.m.activePlan({ key: 'yearly', price: 490, intervalMonths: 12, features: [{ id: (await a.m.feature()).id, value: INCLUDED }] });
    await a.m.activePlan({ key: 'monthly', price: 49, features: [{ id: (await a.m.feature()).id, value: INCLUDED }] });
    await a.m.activePlan({ key: 'quarterly', price: 140, intervalMonths: 3, features: [{ id: (await a.m.feature()).id, value: INCLUDED }] });
    const { doc } = await readDocument(a.slug);
    assert.deepEqual(doc.revenue_model.billing_frequency, ['annual', 'monthly']);
    assert.deepEqual(doc.plans.map((p: any) => [p.id, p.price.per]), [['yearly', 'year'], ['monthly', 'month'], ['quarterly', 'month']]);
  });

  test('when agent signup is open then only its free default plan carries a trial pointing at the signup URL', async () => {
    const a = await account();
    const free = await a.m.activePlan({ key: 'free', price: 0, features: [{ id: (await a.m.feature()).id, value: INCLUDED }] });
    await a.m.activePlan({ key: 'pro', price: 49, features: [{ id: (await a.m.feature()).id, value: INCLUDED }] });
    await setCatalogSettings(svc, a, { slug: a.slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id });
    const { doc } = await readDocument(a.slug);
    assert.equal(doc.revenue_model.agent_onboarding, true);
    assert.deepEqual(doc.plans[0].trial, { days: 0, requires_payment_method: false, api_provisioning_url: `${svc.baseUrl}/public/v1/catalog/${a.slug}/signup` });
    assert.equal(doc.plans[1].trial, undefined);

    await setCatalogSettings(svc, a, { slug: a.slug, agentSignupEnabled: false, agentSignupDefaultPlanId: free.id });
    const closed = await readDocument(a.slug);
    assert.equal(closed.doc.revenue_model.agent_onboarding, false);
    assert.equal(closed.doc.plans[0].trial, undefined, 'signup off: no trial');
  });

  test('when the document is read then it is cacheable for 60 s with a strong ETag, and If-None-Match answers 304 without a body', async () => {
    const a = await account();
    const plan = await a.m.activePlan({ key: 'free', price: 0, features: [{ id: (await a.m.feature()).id, value: INCLUDED }] });
    const { res } = await readDocument(a.slug);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=60');
    const etag = res.headers.get('etag')!;
    assert.match(etag, /^"[A-Za-z0-9_-]{20,}"$/, 'a strong, quoted tag');
    assert.equal((await svc.http.get(url(a.slug))).headers.get('etag'), etag, 'the same body, the same tag');

    for (const ifNoneMatch of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const notModified = await svc.http.get(url(a.slug), { headers: { 'if-none-match': ifNoneMatch } });
      assert.equal(notModified.status, 304, ifNoneMatch);
      assert.equal(notModified.text, '');
      assert.equal(notModified.headers.get('etag'), etag);
      assert.equal(notModified.headers.get('cache-control'), 'public, max-age=60');
    }
    assert.equal((await svc.http.get(url(a.slug), { headers: { 'if-none-match': '"stale"' } })).status, 200);

    await a.m.expectOk(a.m.admin('PATCH', `/plans/${plan.id}`, { status: 'ARCHIVED' }));
    await a.m.activePlan({ key: 'pro', price: 49, features: [{ id: (await a.m.feature()).id, value: INCLUDED }] });
    const changed = await svc.http.get(url(a.slug), { headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200, 'a changed catalog answers the new document');
    assert.notEqual(changed.headers.get('etag'), etag);
  });
});

describe('public pricing document with APP_PUBLIC_BASE_URL and MCP off', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ env: { APP_PUBLIC_BASE_URL: 'https://billing.example.com/', APP_MCP_ENABLED: 'false' } });
  });
  after(() => svc.close());

  test('when APP_PUBLIC_BASE_URL is set then every link uses it and mcp_server follows APP_MCP_ENABLED', async () => {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const free = await m.activePlan({ key: 'free', price: 0, features: [{ id: (await m.feature()).id, value: INCLUDED }] });
    await setCatalogSettings(svc, acct, { slug: 'acme', agentSignupEnabled: true, agentSignupDefaultPlanId: free.id });
    const res = await svc.http.get('/public/v1/catalog/acme/pricing.json');
    assert.equal(res.status, 200, res.text);
    assert.equal(pricingSchemaValidator()(res.body), null, 'a valid pricing.json');
    assert.equal(res.body.product.url, 'https://billing.example.com');
    assert.equal(res.body.plans[0].trial.api_provisioning_url, 'https://billing.example.com/public/v1/catalog/acme/signup');
    assert.deepEqual(res.body.integration, {
      api_docs_url: 'https://billing.example.com/swagger-ui.html',
      openapi_spec_url: 'https://billing.example.com/v3/api-docs',
      mcp_server: false,
      auth_methods: ['api-key'],
    });
  });
});
