import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { setCatalogSettings } from './agent-helpers.js';

const ADDRESS_MESSAGE = 'Signup rate limit reached for this address — retry later';
const MINUTE = 60_000;

/** An account whose signup is open (hourly cap out of the way) with this per-address cap. */
async function shop(svc: TestService, perIpCap: number | null) {
  const acct = await createTestAccount(svc);
  const m = monetization(svc, acct);
  const free = await m.activePlan({ key: 'free', price: 0, features: [await m.feature()] });
  const slug = `cap-${acct.accountId.slice(-8)}`;
  await setCatalogSettings(svc, acct, { slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: 1000 });
  const r = await svc.http.patch('/api/v1/tanso/account-settings', { auth: acct.token, body: { agentSignupPerIpCap: perIpCap } });
  assert.equal(r.status, 200, r.text);
  const customers = async () =>
    Number((await svc.ctx.db.selectFrom('customers').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', acct.accountId).executeTakeFirstOrThrow()).n);
  return { ...acct, slug, customers };
}

const signup = (svc: TestService, slug: string, forwardedFor?: string) =>
  svc.http.post(`/public/v1/catalog/${slug}/signup`, { body: { email: 'a@example.com' }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

describe(`per-address signup cap (api-contract-agent-v2.md §4.3), X-Forwarded-For not trusted, on ${backend}`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-09-10T10:00:00Z' });
  });
  after(() => svc.close());

  test('when the cap is reached from one peer then 429 with the message and Retry-After, a fresh X-Forwarded-For does not dodge it, and nothing is left', async () => {
    const a = await shop(svc, 2);
    assert.equal((await signup(svc, a.slug, '198.51.100.1')).status, 201);
    svc.clock.advanceMs(15 * MINUTE);
    assert.equal((await signup(svc, a.slug, '198.51.100.2')).status, 201);
    const refused = await signup(svc, a.slug, '198.51.100.3');
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.equal(refused.body.error.message, ADDRESS_MESSAGE);
    assert.equal(refused.headers.get('retry-after'), String(45 * 60), 'until the oldest counted signup ages out');
    assert.equal(await a.customers(), 2, 'a 429 leaves nothing behind');

    // Counted across all accounts: the same peer's signups elsewhere count against this one's cap.
    const b = await shop(svc, 3);
    const r = await signup(svc, b.slug);
    assert.equal(r.status, 201, 'two from this address in the hour, below 3');
    assert.equal((await signup(svc, b.slug)).status, 429, 'three: at the cap');
    // No per-address cap (0 clears it): the same peer signs up freely.
    const c = await shop(svc, 0);
    assert.equal((await signup(svc, c.slug)).status, 201);
  });
});

describe(`per-address signup cap behind a trusted proxy (APP_TRUST_PROXY=true) on ${backend}`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-09-10T10:00:00Z', env: { APP_TRUST_PROXY: 'true' } });
  });
  after(() => svc.close());

  test('when X-Forwarded-For is trusted then its leftmost entry is the client: two clients each get their own cap', async () => {
    const a = await shop(svc, 1);
    assert.equal((await signup(svc, a.slug, '203.0.113.7, 10.0.0.1')).status, 201);
    const again = await signup(svc, a.slug, '203.0.113.7');
    assert.equal(again.status, 429, again.text);
    assert.equal(again.body.error.message, ADDRESS_MESSAGE);
    assert.equal((await signup(svc, a.slug, '203.0.113.8')).status, 201, 'another client address');
  });

  test('when 20 signups from one address race a cap of 5 then exactly 5 succeed and the rest get 429', async () => {
    const a = await shop(svc, 5);
    const answers = await Promise.all(Array.from({ length: 20 }, () => signup(svc, a.slug, '192.0.2.50')));
    const statuses = answers.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 5, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 429).length, 15);
    assert.equal(await a.customers(), 5);
  });
});
