import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { setCatalogSettings } from './agent-helpers.js';

describe(`spend mandate requests (api-contract-agent-v2.md §4.6) on ${backend}`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-09-10T10:00:00Z' });
  });
  after(() => svc.close());

  async function shop(settings: Record<string, unknown>) {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const free = await m.activePlan({ key: 'free', price: 0, features: [await m.feature()] });
    const slug = `mnd-${acct.accountId.slice(-8)}`;
    await setCatalogSettings(svc, acct, { slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: 1000 });
    const r = await svc.http.patch('/api/v1/tanso/account-settings', { auth: acct.token, body: settings });
    assert.equal(r.status, 200, r.text);
    const count = async (table: 'customers' | 'agent_signups' | 'subscriptions') =>
      Number((await svc.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', acct.accountId).executeTakeFirstOrThrow()).n);
    return { ...acct, slug, count };
  }

  test('when a signup asks for a mandate that fails its checks then 400 and nothing is saved', async () => {
    const s = await shop({ agentMaxMandateAmount: '50', agentSpendMandateEnabled: true });
    const cases: [unknown, string][] = [
      [{}, 'spend_mandate.max_amount is required'],
      [{ max_amount: 0 }, 'spend_mandate.max_amount must be positive'],
      [{ max_amount: 10, currency: 'EUR' }, 'spend_mandate.currency must be USD, the account currency'],
      [{ max_amount: 10, period: 'year' }, 'spend_mandate.period must be day, week or month'],
      [{ max_amount: 60 }, "spend_mandate.max_amount 60.00 is above this account's limit of 50.00 USD; ask for 50.00 or less."],
    ];
    for (const [mandate, message] of cases) {
      const r = await svc.http.post(`/public/v1/catalog/${s.slug}/signup`, { body: { email: 'a@example.com', spend_mandate: mandate } });
      assert.equal(r.status, 400, `${JSON.stringify(mandate)}: ${r.text}`);
      assert.equal(r.body.error.code, 'validation_failed');
      assert.equal(r.body.error.message, message);
    }
    assert.deepEqual([await s.count('customers'), await s.count('agent_signups'), await s.count('subscriptions')], [0, 0, 0]);
  });

  test('when a signup asks for a valid mandate without a processor then the signup succeeds and the mandate is unavailable', async () => {
    const s = await shop({ agentMaxMandateAmount: '50', agentSpendMandateEnabled: true });
    const r = await svc.http.post(`/public/v1/catalog/${s.slug}/signup`, { body: { email: 'a@example.com', spend_mandate: { max_amount: '20', currency: 'usd', period: 'Week' } } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.data.spend_mandate, { status: 'unavailable', setup_url: null, max_amount: 20, currency: 'USD', period: 'week' });
  });

  test('when a customer key asks for a mandate then checks run first, and with the mandate off the answer is unavailable', async () => {
    const s = await shop({ agentMaxMandateAmount: '50' });
    const signup = await svc.http.post(`/public/v1/catalog/${s.slug}/signup`, { body: { email: 'a@example.com' } });
    assert.equal(signup.status, 201, signup.text);
    const { customerReferenceId: ref, apiKey } = signup.body.data;
    const ask = (body: unknown, auth = apiKey) => svc.http.post(`/api/v1/client/customers/${ref}/spend-mandate`, { auth, body });
    const bad = await ask({ max_amount: 51 });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.error.message, "spend_mandate.max_amount 51.00 is above this account's limit of 50.00 USD; ask for 50.00 or less.");
    const off = await ask({ max_amount: 5 });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.body.data, { status: 'unavailable', setup_url: null, max_amount: 5, currency: 'USD', period: 'month' });
    const tenant = await ask({ max_amount: 5 }, s.apiKey);
    assert.equal(tenant.status, 200, 'the tenant key may ask too');
    const status = await svc.http.get(`/api/v1/client/customers/${ref}/status`, { auth: apiKey });
    assert.equal(status.body.data.spend_mandate.status, 'none', 'an unavailable answer opened no page');
  });
});
