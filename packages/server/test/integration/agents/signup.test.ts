import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type HttpResponse, type TestService } from '../../harness.js';
import { forceSettingsRow, setCatalogSettings } from './agent-helpers.js';

const MINUTE = 60_000;

describe('agent signup (POST /public/v1/catalog/{slug}/signup)', () => {
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  const signup = (slug: string, body: unknown = { email: 'agent@example.com' }) => svc.http.post(`/public/v1/catalog/${slug}/signup`, { body });

  /** An account whose catalog offers signup to a free plan with 100 credits per period (and a paid plan beside it). */
  async function shop(options: { cap?: number } = {}) {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const chat = await m.feature({ key: 'ai.chat' });
    const free = await m.activePlan({ key: 'free', price: 0, features: [{ id: chat.id }] });
    const pro = await m.activePlan({ key: 'pro', price: 49, features: [{ id: chat.id }] });
    const model = await m.creditModel({ denomination: 'credits' });
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${free.id}?creditAmount=100`), 201);
    const slug = `shop-${acct.accountId.slice(-8)}`;
    await setCatalogSettings(svc, acct, { slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: options.cap ?? 10 });
    return { ...acct, m, slug, free, pro };
  }

  /** Rows a signup writes, for the account: nothing may be left behind by a refused or failed one. */
  async function footprint(accountId: string) {
    const count = async (table: 'customers' | 'subscriptions' | 'invoices' | 'credit_pools' | 'agent_signups') =>
      Number((await svc.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow()).n);
    const keys = await svc.ctx.db.selectFrom('api_keys').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', accountId).where('kind', '=', 'CUSTOMER').executeTakeFirstOrThrow();
    return {
      customers: await count('customers'),
      subscriptions: await count('subscriptions'),
      invoices: await count('invoices'),
      pools: await count('credit_pools'),
      signups: await count('agent_signups'),
      customerKeys: Number(keys.n),
    };
  }

  const comparable = (res: HttpResponse) => {
    const headers = Object.fromEntries([...res.headers].filter(([k]) => k !== 'x-request-id' && k !== 'date'));
    const { requestId: _r, ...error } = res.body.error;
    return { status: res.status, headers, body: { ...res.body, error } };
  };

  test('when the OpenAPI document is read then signup documents 201, 404 and 429, and pricing.json 200, 304 and 404, all without security', async () => {
    const doc = (await svc.http.get('/v3/api-docs')).body;
    const signupOp = doc.paths['/public/v1/catalog/{slug}/signup'].post;
    for (const status of ['201', '404', '429', '413']) assert.ok(signupOp.responses[status], `signup documents ${status}`);
    assert.equal(signupOp.responses['429'].content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope');
    assert.deepEqual(signupOp.security, []);
    const pricingOp = doc.paths['/public/v1/catalog/{slug}/pricing.json'].get;
    for (const status of ['200', '304', '404']) assert.ok(pricingOp.responses[status], `pricing.json documents ${status}`);
    assert.deepEqual(pricingOp.security, []);
  });

  test('when an agent signs up then 201 with an agent_ customer on the free plan, a PAID invoice, granted credits and a read+purchase key', async () => {
    const s = await shop();
    const res = await signup(s.slug, { email: ' agent@example.com ', name: 'Robo' });
    assert.equal(res.status, 201, res.text);
    const data = res.body.data;
    assert.deepEqual(Object.keys(data), ['customerReferenceId', 'apiKey', 'apiKeyScopes', 'plan', 'status', 'expires_at', 'limits', 'spend_mandate', 'status_url', 'owner_url', 'nextSteps']);
    assert.match(data.customerReferenceId, /^agent_[0-9a-f]{32}$/);
    assert.match(data.apiKey, /^ck_test_[0-9a-f]{32}$/);
    assert.deepEqual(data.apiKeyScopes, ['read', 'purchase']);
    assert.equal(data.plan, 'free');
    const ref = data.customerReferenceId;
    assert.deepEqual(data.nextSteps, {
      base_url: svc.baseUrl,
      check_entitlement: `${svc.baseUrl}/api/v1/client/entitlements/${ref}/{featureKey}`,
      record_usage: `${svc.baseUrl}/api/v1/client/events`,
      credit_balances: `${svc.baseUrl}/api/v1/client/credits/${ref}/pools`,
      docs: `${svc.baseUrl}/swagger-ui.html`,
      pricing: `${svc.baseUrl}/public/v1/catalog/${s.slug}/pricing.json`,
      check_entitlement_template: `${svc.baseUrl}/api/v1/client/entitlements/${ref}/{featureKey}`,
      check_entitlement_example: `${svc.baseUrl}/api/v1/client/entitlements/${ref}/ai.chat`,
      usage_summary: `${svc.baseUrl}/api/v1/client/customers/${ref}/usage`,
      usage_history: `${svc.baseUrl}/api/v1/client/customers/${ref}/usage/history`,
      usage_events: `${svc.baseUrl}/api/v1/client/customers/${ref}/usage/events`,
      buy_credits: `${svc.baseUrl}/api/v1/client/credits/purchases`,
      change_plan: `${svc.baseUrl}/api/v1/client/subscriptions/{subscriptionId}/plan-change`,
      runbook: `${svc.baseUrl}/agent-signup.md`,
    });

    const customer = await svc.ctx.db.selectFrom('customers').selectAll().where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
    assert.deepEqual([customer.account_id, customer.source, customer.email, customer.first_name], [s.accountId, 'AGENT_SIGNUP', 'agent@example.com', 'Robo']);
    const invoices = await s.m.invoices(ref);
    assert.deepEqual(invoices.items.map((i: any) => [i.status, i.type]), [['PAID', 'IN_ADVANCE_INITIAL']]);

    const as = (method: string, path: string, body?: unknown) => svc.http.request(method, `/api/v1/client${path}`, { auth: data.apiKey, ...(body === undefined ? {} : { body }) });
    const check = await as('GET', `/entitlements/${ref}/ai.chat`);
    assert.equal(check.status, 200, check.text);
    assert.equal(check.body.data.allowed, true, 'the subscription is active at once');
    const event = await as('POST', '/events', { eventName: 'chat.message', eventIdempotencyKey: 'agent-evt-1', featureKey: 'ai.chat', usageUnits: 3 });
    assert.ok(event.status >= 200 && event.status < 300, event.text);
    const pools = await as('GET', `/credits/${ref}/pools`);
    assert.equal(pools.status, 200, pools.text);
    assert.deepEqual(pools.body.data.items.map((p: any) => [p.denomination, p.totalGranted]), [['credits', 100]], 'the plan credits were granted');

    const other = await s.m.customer();
    const foreign = await as('GET', `/entitlements/${other.customerReferenceId}/ai.chat`);
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.error.message, 'This API key is scoped to another customer');
    for (const [method, path] of [['GET', '/plans'], ['POST', '/customers'], ['GET', `/billing/invoices/${ref}`]] as const) {
      const denied = await as(method, path, method === 'POST' ? { customerReferenceId: 'x', email: 'x@example.com' } : undefined);
      assert.equal(denied.status, 403, `${method} ${path} is tenant-only`);
      assert.equal(denied.body.error.message, 'Access denied');
    }
  });

  test('when the slug is unknown, signup is off, or the default plan is archived or not free then the same 404 and nothing is written', async () => {
    const off = await shop();
    await setCatalogSettings(svc, off, { slug: off.slug, agentSignupEnabled: false, agentSignupDefaultPlanId: off.free.id });
    const archived = await shop();
    await archived.m.expectOk(archived.m.admin('PATCH', `/plans/${archived.free.id}`, { status: 'ARCHIVED' }));
    const paid = await shop();
    await forceSettingsRow(svc, paid.accountId, { agent_signup_default_plan_id: paid.pro.id });
    const gone = await shop();
    await forceSettingsRow(svc, gone.accountId, { agent_signup_default_plan_id: null });

    const answers = [];
    for (const slug of ['no-such-shop', off.slug, archived.slug, paid.slug, gone.slug]) answers.push(await signup(slug));
    for (const res of answers) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'not_found');
      assert.equal(res.body.error.message, 'No signup at this address');
    }
    const [first, ...rest] = answers.map(comparable);
    for (const other of rest) assert.deepEqual(other, first, 'status, headers and body are identical');
    for (const s of [off, archived, paid, gone]) {
      assert.deepEqual(await footprint(s.accountId), { customers: 0, subscriptions: 0, invoices: 0, pools: 0, signups: 0, customerKeys: 0 });
    }
  });

  test('when the body is invalid or too large then 400 or 413 and nothing is written', async () => {
    const s = await shop();
    for (const body of [{}, { email: 'not-an-email' }, { email: '' }, { email: 'a@example.com', name: 'x'.repeat(101) }, { email: `${'a'.repeat(320)}@example.com` }]) {
      const res = await signup(s.slug, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_failed');
    }
    const big = await svc.http.post(`/public/v1/catalog/${s.slug}/signup`, { rawBody: JSON.stringify({ email: 'a@example.com', name: 'x'.repeat(5000) }), headers: { 'content-type': 'application/json' } });
    assert.equal(big.status, 413);
    assert.equal(big.body.error.code, 'payload_too_large');
    assert.equal((await footprint(s.accountId)).customers, 0);
  });

  test('when a step fails mid-signup then the whole signup rolls back: no customer, subscription, invoice, pool or key', async () => {
    const s = await shop();
    const before = await footprint(s.accountId);
    await sql`create function fail_agent_signup() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(svc.ctx.db);
    await sql`create trigger fail_agent_signup before insert on agent_signups for each row execute function fail_agent_signup()`.execute(svc.ctx.db);
    try {
      const res = await signup(s.slug);
      assert.equal(res.status, 500, res.text);
      assert.equal(res.body.error.code, 'internal_error');
    } finally {
      await sql`drop trigger fail_agent_signup on agent_signups`.execute(svc.ctx.db);
      await sql`drop function fail_agent_signup()`.execute(svc.ctx.db);
    }
    assert.deepEqual(await footprint(s.accountId), before);
    assert.equal((await signup(s.slug)).status, 201, 'the next signup goes through');
  });

  test('when 50 agents sign up at once against a cap of 10 then exactly 10 get 201, 40 get 429 with Retry-After, and 10 customers exist', async () => {
    const s = await shop({ cap: 10 });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => signup(s.slug, { email: `agent${i}@example.com` })));
    const created = answers.filter((r) => r.status === 201);
    const limited = answers.filter((r) => r.status === 429);
    assert.equal(created.length, 10, answers.filter((r) => r.status !== 201 && r.status !== 429).map((r) => r.text).join('\n'));
    assert.equal(limited.length, 40);
    for (const res of limited) {
      assert.equal(res.body.error.code, 'rate_limited');
      assert.equal(res.body.error.message, 'Signup rate limit reached for this catalog — retry later');
      assert.equal(res.headers.get('retry-after'), '3600', 'the clock is frozen: the oldest signup ages out in a full hour');
    }
    const after = await footprint(s.accountId);
    assert.deepEqual(after, { customers: 10, subscriptions: 10, invoices: 10, pools: 10, signups: 10, customerKeys: 10 });
    assert.equal(new Set(created.map((r) => r.body.data.customerReferenceId)).size, 10);
  });
});

describe('agent signup hourly cap over time (frozen clock)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-03-10T12:00:00Z' });
  });
  after(() => svc.close());

  test('when the cap is reached then Retry-After counts down to the oldest signup leaving the rolling hour, and then signup opens again', async () => {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const chat = await m.feature({ key: 'ai.chat' });
    const free = await m.activePlan({ key: 'free', price: 0, features: [{ id: chat.id }] });
    await setCatalogSettings(svc, acct, { slug: 'clockwork', agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: 2 });
    const signup = () => svc.http.post('/public/v1/catalog/clockwork/signup', { body: { email: 'agent@example.com' } });

    assert.equal((await signup()).status, 201); // 12:00:00
    svc.clock.advanceMs(10 * MINUTE);
    assert.equal((await signup()).status, 201); // 12:10:00
    svc.clock.advanceMs(5 * MINUTE + 500);
    const limited = await signup(); // 12:15:00.5: the 12:00 signup leaves at 13:00, 2699.5 s away
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '2700');

    svc.clock.set('2026-03-10T12:59:59.999Z');
    const last = await signup();
    assert.equal(last.status, 429);
    assert.equal(last.headers.get('retry-after'), '1', 'never 0');
    svc.clock.set('2026-03-10T13:00:00Z');
    assert.equal((await signup()).status, 201, 'the 12:00 signup is out of the window (created_at > now - 1h)');
    const again = await signup();
    assert.equal(again.status, 429);
    assert.equal(again.headers.get('retry-after'), String(10 * 60), 'now the 12:10 signup is the oldest');
  });
});
