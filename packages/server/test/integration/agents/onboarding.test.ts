import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { setCatalogSettings } from './agent-helpers.js';

const DAY = 24 * 60 * 60 * 1000;

describe(`agent onboarding v2 (api-contract-agent-v2.md §4.1–§4.5, §4.7) on ${backend}`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-09-10T10:00:00Z' });
  });
  after(() => svc.close());

  const signup = (slug: string, body: unknown = { email: 'Agent@Example.com' }, headers: Record<string, string> = {}) =>
    svc.http.post(`/public/v1/catalog/${slug}/signup`, { body, headers });

  async function shop(settings: Record<string, unknown> = {}) {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const chat = await m.feature({ key: 'ai.chat' });
    const free = await m.activePlan({ key: 'free', price: 0, features: [{ id: chat.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0, max_usage: 100 } } }] });
    const slug = `onb-${acct.accountId.slice(-8)}`;
    await setCatalogSettings(svc, acct, { slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: 1000 });
    if (Object.keys(settings).length > 0) {
      const r = await svc.http.patch('/api/v1/tanso/account-settings', { auth: acct.token, body: settings });
      assert.equal(r.status, 200, r.text);
    }
    const signUp = async (body: unknown = { email: 'Agent@Example.com' }) => {
      const r = await signup(slug, body);
      assert.equal(r.status, 201, r.text);
      return r.body.data as { customerReferenceId: string; apiKey: string; [k: string]: any };
    };
    const status = (ref: string, auth: string) => svc.http.get(`/api/v1/client/customers/${ref}/status`, { auth });
    return { ...acct, m, slug, free, chat, signUp, status };
  }

  test('when an agent signs up then it is provisional for agentProvisionalDays with limits, urls and no mandate', async () => {
    const s = await shop({ agentProvisionalDays: 3, agentMaxTopupAmount: '25' });
    const data = await s.signUp();
    const ref = data.customerReferenceId;
    assert.equal(data.status, 'provisional');
    assert.equal(data.expires_at, new Date(svc.clock.now().getTime() + 3 * DAY).toISOString());
    assert.deepEqual(data.limits, { features: { 'ai.chat': { included: 100, period: 'month', unlimited: false } }, spend_cap: 25, currency: 'USD' });
    assert.equal(data.spend_mandate, null, 'null fields are written out');
    assert.equal(data.status_url, `${svc.baseUrl}/api/v1/client/customers/${ref}/status`);
    assert.equal(data.owner_url, `${svc.baseUrl}/api/v1/client/customers/${ref}/owner`);
    const row = await svc.ctx.db.selectFrom('customers').selectAll().where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
    assert.deepEqual([row.email, row.owner_email, row.agent_status], ['agent@example.com', 'agent@example.com', 'provisional'], 'stored lower-cased');
  });

  test('when the same e-mail signs up twice then two customers are made (the e-mail never finds one)', async () => {
    const s = await shop();
    const a = await s.signUp();
    const b = await s.signUp();
    assert.notEqual(a.customerReferenceId, b.customerReferenceId);
  });

  test('when a status is read then it carries every field; the customer key reads only its own customer', async () => {
    const s = await shop();
    const data = await s.signUp();
    const ref = data.customerReferenceId;
    const r = await s.status(ref, data.apiKey);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data, {
      customerReferenceId: ref,
      status: 'provisional',
      expires_at: data.expires_at,
      claimed_at: null,
      plan: 'free',
      limits: { features: { 'ai.chat': { included: 100, period: 'month', unlimited: false } }, spend_cap: null, currency: 'USD' },
      remaining: { 'ai.chat': 100 },
      spend: null,
      owner_email: 'agent@example.com',
      spend_mandate: { status: 'none', setup_url: null, max_amount: null, spent: null, remaining: null, period: null, resets_at: null, currency: null },
    });
    const event = await svc.http.post('/api/v1/client/events', { auth: data.apiKey, body: { eventName: 'chat', eventIdempotencyKey: 'e1', featureKey: 'ai.chat', usageUnits: 3 } });
    assert.ok(event.status < 300, event.text);
    assert.deepEqual((await s.status(ref, data.apiKey)).body.data.remaining, { 'ai.chat': 97 });
    const tenant = await s.status(ref, s.apiKey);
    assert.equal(tenant.status, 200, tenant.text);
    const other = await s.signUp();
    const denied = await s.status(other.customerReferenceId, data.apiKey);
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.body.error.code, 'forbidden');
    const unknown = await s.status('nobody', s.apiKey);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.message, 'Customer not found: nobody');
  });

  test('when a customer was made by the tenant then it reads claimed with no expiry', async () => {
    const s = await shop();
    const c = await s.m.customer();
    const r = await s.status(c.customerReferenceId, s.apiKey);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.body.data.status, r.body.data.expires_at, r.body.data.claimed_at, r.body.data.plan, r.body.data.owner_email], ['claimed', null, null, null, null]);
  });

  test('when an owner is nominated then it is stored trimmed and lower-cased, the customer e-mail is kept, and a repeat changes nothing', async () => {
    const s = await shop();
    const data = await s.signUp();
    const ref = data.customerReferenceId;
    const put = (body: unknown, auth = data.apiKey) => svc.http.put(`/api/v1/client/customers/${ref}/owner`, { auth, body });
    const r = await put({ email: '  Boss@Example.COM ' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.owner_email, 'boss@example.com');
    assert.equal(r.body.data.status, 'provisional', 'nominating does not claim');
    const row = await svc.ctx.db.selectFrom('customers').selectAll().where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
    assert.equal(row.email, 'agent@example.com', 'an existing customer e-mail is kept');
    const again = await put({ email: 'boss@example.com' });
    assert.equal(again.status, 200);
    for (const bad of [{}, { email: '' }, { email: '   ' }, { email: 'not-an-address' }, { email: `${'x'.repeat(250)}@example.com` }]) {
      const refused = await put(bad);
      assert.equal(refused.status, 400, JSON.stringify(bad));
      assert.equal(refused.body.error.code, 'validation_failed');
    }
    const plain = await s.m.customer();
    const tenantPut = await svc.http.put(`/api/v1/client/customers/${plain.customerReferenceId}/owner`, { auth: s.apiKey, body: { email: 'Owner@x.example' } });
    assert.equal(tenantPut.status, 200, tenantPut.text);
    const plainRow = await svc.ctx.db.selectFrom('customers').selectAll().where('customer_reference_id', '=', plain.customerReferenceId).executeTakeFirstOrThrow();
    if (plain.email === null) assert.equal(plainRow.email, 'owner@x.example', 'a customer without e-mail takes the owner address');
  });

  test('when a provisional customer passes its expiry then its keys are refused at once, and the job expires it and revokes them', async () => {
    const s = await shop({ agentProvisionalDays: 1 });
    const data = await s.signUp();
    const ref = data.customerReferenceId;
    assert.equal((await s.status(ref, data.apiKey)).status, 200, 'the key works while provisional (and is cached)');
    const start = svc.clock.now();
    try {
      svc.clock.set(new Date(start.getTime() + DAY));
      const refused = await s.status(ref, data.apiKey);
      assert.equal(refused.status, 401, 'refused before the job has run');
      assert.equal(refused.body.error.code, 'unauthorized');
      const tenantView = await s.status(ref, s.apiKey);
      assert.equal(tenantView.body.data.status, 'provisional', 'until the job flips it');
      svc.clock.set(new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate() + 2, 3, 30)));
      const outcome = await svc.scheduler.run('agent-expiry');
      assert.equal(outcome.status, 'ran');
      const after = await s.status(ref, s.apiKey);
      assert.equal(after.body.data.status, 'expired');
      const keys = await svc.ctx.db.selectFrom('api_keys').select(['revoked_at']).where('customer_id', '=', (await svc.ctx.db.selectFrom('customers').select('id').where('customer_reference_id', '=', ref).executeTakeFirstOrThrow()).id).execute();
      assert.ok(keys.length > 0 && keys.every((k) => k.revoked_at !== null), 'its keys are revoked');
      assert.equal((await svc.scheduler.run('agent-expiry')).status, 'skipped', 'once per slot');
    } finally {
      svc.clock.set(start);
    }
  });

  test('when a provisional customer pays an invoice of a positive amount then it is claimed; its free signup invoice did not claim it', async () => {
    const s = await shop();
    const data = await s.signUp();
    const ref = data.customerReferenceId;
    const pro = await s.m.activePlan({ key: 'pro', price: 20, features: [{ id: s.chat.id }] });
    await s.m.subscribe(ref, pro.id);
    const due = (await s.m.invoices(ref)).items.find((i: any) => i.status === 'DUE');
    assert.ok(due, 'the paid plan raised a DUE invoice');
    assert.equal((await s.status(ref, s.apiKey)).body.data.status, 'provisional');
    const paid = await svc.http.post(`/api/v1/client/billing/invoices/${due.id}/mark-paid`, { auth: s.apiKey });
    assert.equal(paid.status, 200, paid.text);
    const after = (await s.status(ref, data.apiKey)).body.data;
    assert.deepEqual([after.status, after.expires_at, after.claimed_at], ['claimed', null, svc.clock.now().toISOString()]);
  });

  test('when a provisional customer is claimed before its expiry then its key keeps working after it and the job leaves it', async () => {
    const s = await shop({ agentProvisionalDays: 1 });
    const data = await s.signUp();
    const ref = data.customerReferenceId;
    assert.equal((await s.status(ref, data.apiKey)).status, 200);
    const { claimCustomer } = await import('../../../src/modules/customers/index.js');
    const { withTransaction } = await import('../../../src/platform/db/transaction.js');
    const row = await svc.ctx.db.selectFrom('customers').selectAll().where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
    const start = svc.clock.now();
    assert.equal(await withTransaction(svc.ctx.db, (tx) => claimCustomer(tx, s.accountId, row.id, start)), true);
    assert.equal(await withTransaction(svc.ctx.db, (tx) => claimCustomer(tx, s.accountId, row.id, start)), false, 'idempotent');
    try {
      svc.clock.set(new Date(start.getTime() + 2 * DAY));
      const r = await s.status(ref, data.apiKey);
      assert.equal(r.status, 200, 'a cached key of a since-claimed customer is read again, not refused');
      assert.deepEqual([r.body.data.status, r.body.data.expires_at, r.body.data.claimed_at], ['claimed', null, start.toISOString()]);
    } finally {
      svc.clock.set(start);
    }
  });
});
