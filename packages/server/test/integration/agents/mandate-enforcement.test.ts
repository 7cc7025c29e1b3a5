import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, type HttpResponse, type TestService } from '../../harness.js';
import { callTool, mcpClient } from '../mcp/mcp-helpers.js';
import { setCatalogSettings } from './agent-helpers.js';

const STRIPE_KEY = 'sk_test_tallyMandateEnforce0001';
const DENOMINATION = 'mandate-credits';

/**
 * The spend mandate enforced through HTTP with the Stripe fake (api-contract-agent-v2.md §2.6 step
 * 5, §4.6): every off-session charge a customer key starts (credit purchase, paid subscribe; REST
 * and MCP) fits the mandate and the key budget, checked and reserved in one transaction under the
 * customer row lock; hosted pages and tenant-key charges are neither checked nor counted; the sweep
 * settles or deletes what a crash left PENDING.
 */
describe(`spend mandate enforcement on ${backend}`, () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  let slug: string;
  const mcp: Client[] = [];

  const charges = () => fake.list(STRIPE_KEY, 'payment_intent').filter((p) => p.status === 'succeeded').length;
  const customerRow = (ref: string) =>
    svc.ctx.db.selectFrom('customers').selectAll().where('account_id', '=', acct.accountId).where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
  const mandate = async (ref: string) => {
    const r = await svc.http.get(`/api/v1/client/customers/${ref}/status`, { auth: acct.apiKey });
    assert.equal(r.status, 200, r.text);
    return r.body.data.spend_mandate;
  };
  const keyIdOf = async (ref: string) => (await m.expectOk(m.client('GET', `/customers/${ref}/keys`))).items.at(-1).id as string;
  const putBudget = (ref: string, keyId: string, body: unknown) => m.expectOk(m.client('PUT', `/customers/${ref}/keys/${keyId}/budget`, body));
  const amountSpent = async (ref: string, keyId: string) => (await m.expectOk(m.client('GET', `/customers/${ref}/keys/${keyId}/budget`))).amountSpent;
  const written = async (customerId: string) => ({
    purchases: (await svc.ctx.db.selectFrom('credit_purchases').select('id').where('account_id', '=', acct.accountId).where('customer_id', '=', customerId).execute()).length,
    reservations: (await svc.ctx.db.selectFrom('customer_mandate_spend').select('id').where('account_id', '=', acct.accountId).where('customer_id', '=', customerId).execute()).length,
    processorCalls: fake.requests.length,
  });

  /** A signed-up agent whose principal approved `amount` per `period` on the mandate page (its card saved); a pool to buy into. */
  async function agentWithMandate(amount: number, period: 'day' | 'week' | 'month' = 'month') {
    const signup = await svc.http.post(`/public/v1/catalog/${slug}/signup`, { body: { email: 'principal@example.com' } });
    assert.equal(signup.status, 201, signup.text);
    const { customerReferenceId: ref, apiKey: key } = signup.body.data as { customerReferenceId: string; apiKey: string };
    const page = await svc.http.post(`/api/v1/client/customers/${ref}/spend-mandate`, { auth: key, body: { max_amount: amount, period } });
    assert.equal(page.body.data?.status, 'pending', page.text);
    fake.completeCheckout(STRIPE_KEY, fake.list(STRIPE_KEY, 'checkout.session').find((s) => s.url === page.body.data.setup_url)!.id);
    await fake.deliverWebhooks();
    assert.equal((await mandate(ref)).status, 'active');
    const customer = await customerRow(ref);
    const poolId = (await m.expectOk(m.admin('POST', '/credits/pools', { name: `wallet-${ref}`, denomination: DENOMINATION, customerId: customer.id }), 201)).id as string;
    return { ref, key, customerId: customer.id, poolId };
  }
  const buy = (key: string, poolId: string, credits: number, extra: Record<string, unknown> = {}) =>
    svc.http.post('/api/v1/client/credits/purchases', { auth: key, body: { creditPoolId: poolId, credits, ...extra } });

  function assertGate(res: HttpResponse, code: string, action: string, url: string | null) {
    assert.equal(res.status, 403, res.text);
    const e = res.body.error;
    assert.deepEqual([e.code, e.gate, e.action, e.url, e.poll], [code, 'budget', action, url, null], res.text);
    if (action === 'wait') assert.ok(Number.isInteger(e.retry_after) && e.retry_after >= 1, res.text);
    else assert.equal(e.retry_after, null);
  }

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const free = await m.activePlan({ key: 'free', price: 0, features: [await m.feature()] });
    slug = `enforce-${acct.accountId.slice(-8)}`;
    await setCatalogSettings(svc, acct, { slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: 1000 });
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { agentMaxMandateAmount: '100', agentSpendMandateEnabled: true }));
    await m.creditModel({ denomination: DENOMINATION });
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: DENOMINATION, pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
  });
  after(async () => {
    for (const c of mcp) await c.close();
    await close();
  });

  test('when 20 purchases of 2.00 from two keys of one customer race a 10.00 mandate then exactly 5 succeed, 15 get 403 budget_exceeded, the processor sees 5 charges and the mandate spent is 10.00', async () => {
    const a = await agentWithMandate(10);
    const second = await m.customerKey(a.ref);
    const keys = [a.key, second];
    const before = charges();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => buy(keys[i % 2]!, a.poolId, 200)));
    assert.equal(results.filter((r) => r.status === 201).length, 5, results.map((r) => `${r.status}`).join(','));
    const refused = results.filter((r) => r.status === 403);
    assert.equal(refused.length, 15);
    for (const r of refused) assertGate(r, 'budget_exceeded', 'wait', null);
    assert.match(refused[0]!.body.error.message, /^This charge \(2\.00\) would pass the 10\.00 per month your principal approved: 10\.00 already spent in this window, which resets at /);
    assert.equal(charges() - before, 5, 'the processor saw exactly 5 charges');
    const s = await mandate(a.ref);
    assert.deepEqual([s.spent, s.remaining], [10, 0]);
    const rows = await svc.ctx.db.selectFrom('customer_mandate_spend').select('state').where('account_id', '=', acct.accountId).where('customer_id', '=', a.customerId).execute();
    assert.deepEqual(rows.map((r) => r.state), Array(5).fill('SETTLED'));
    await m.audit();
  });

  test('when a charge is above the whole mandate then 403 spend_cap_exceeded raise_mandate with the spend-mandate url; past the window 403 wait until it resets; neither writes anything nor reaches the processor', async () => {
    const a = await agentWithMandate(5, 'week');
    const before = await written(a.customerId);
    const whole = await buy(a.key, a.poolId, 600);
    assertGate(whole, 'spend_cap_exceeded', 'raise_mandate', `${svc.baseUrl}/api/v1/client/customers/${a.ref}/spend-mandate`);
    assert.equal(whole.body.error.message, 'This charge (6.00) is above the 5.00 per week your principal approved; give your principal url to approve a higher limit, or buy less.');
    assert.deepEqual(await written(a.customerId), before, 'nothing written, no processor call');

    assert.equal((await buy(a.key, a.poolId, 300)).status, 201);
    const after = await written(a.customerId);
    const window = await buy(a.key, a.poolId, 300);
    assertGate(window, 'budget_exceeded', 'wait', null);
    const resetsAt = new Date((await mandate(a.ref)).resets_at);
    assert.equal(window.body.error.retry_after, Math.ceil((resetsAt.getTime() - svc.clock.now().getTime()) / 1000));
    assert.equal(
      window.body.error.message,
      `This charge (3.00) would pass the 5.00 per week your principal approved: 3.00 already spent in this window, which resets at ${resetsAt.toISOString().replace('.000Z', 'Z')}; wait for the window to reset or buy less.`,
    );
    assert.deepEqual(await written(a.customerId), after, 'nothing written, no processor call');
  });

  test('when the key budget and the mandate both refuse then the key budget answers first (§2.6 order)', async () => {
    const a = await agentWithMandate(5);
    const keyId = await keyIdOf(a.ref);
    await putBudget(a.ref, keyId, { period: 'DAY', amountLimit: 1 });
    const res = await buy(a.key, a.poolId, 600);
    assertGate(res, 'spend_cap_exceeded', 'raise_spend_cap', null);
    assert.match(res.body.error.message, /^This charge \(6\) is above this API key's whole spend budget of 1/);
  });

  test('when a card is declined then the mandate reservation is released; the hosted page a human then pays and tenant-key charges are neither checked nor counted', async () => {
    const a = await agentWithMandate(5);
    const declined = await buy(a.key, a.poolId, 400, { paymentMethodId: 'pm_card_chargeDeclined' });
    assert.equal(declined.status, 402, declined.text);
    assert.equal((await mandate(a.ref)).spent, 0, 'a declined charge spends nothing');
    fake.completeCheckout(STRIPE_KEY, declined.body.data.checkoutUrl.split('/').at(-1));
    await fake.deliverWebhooks();
    await fake.deliverWebhooks();
    assert.equal((await mandate(a.ref)).spent, 0, 'a page a human paid does not count against the mandate');
    const tenant = await m.client('POST', '/credits/purchases', { customerReferenceId: a.ref, creditPoolId: a.poolId, credits: 800 });
    assert.equal(tenant.status, 201, `the tenant key is not checked: ${tenant.text}`);
    assert.equal((await mandate(a.ref)).spent, 0, 'nor counted');
    assert.equal((await buy(a.key, a.poolId, 500)).status, 201, 'the whole mandate is still there');
    await m.audit();
  });

  test('when a customer key subscribes to paid plans off-session then the key budget and the mandate check and count each first invoice; a refused subscribe charges nothing and goes through on a retry once it fits', async () => {
    const a = await agentWithMandate(10);
    const keyId = await keyIdOf(a.ref);
    await putBudget(a.ref, keyId, { period: 'MONTH', amountLimit: 6 });
    const plans = [];
    for (const key of ['four-a', 'four-b', 'four-c']) plans.push((await m.activePlan({ key: `${key}-${acct.accountId.slice(-6)}`, price: 4, features: [await m.feature()] })).id);
    const subscribe = (planId: string) => svc.http.post('/api/v1/client/subscriptions', { auth: a.key, body: { planId } });

    const first = await subscribe(plans[0]!);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.invoice.status, 'PAID');
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, keyId)], [4, 4]);

    const calls = charges();
    const overBudget = await subscribe(plans[1]!);
    assertGate(overBudget, 'budget_exceeded', 'wait', null);
    assert.match(overBudget.body.error.message, /^This API key's spend budget of 6 would be exceeded: 4 already used, 4 requested/);
    assert.equal(charges(), calls, 'no charge');
    await putBudget(a.ref, keyId, { period: 'MONTH', amountLimit: 20 });
    const retried = await subscribe(plans[1]!);
    assert.equal(retried.status, 201, retried.text);
    const pending = await svc.ctx.db.selectFrom('subscriptions').select('id').where('account_id', '=', acct.accountId).where('customer_id', '=', a.customerId).where('plan_id', '=', plans[1]!).execute();
    assert.deepEqual(pending.map((p) => p.id), [retried.body.data.subscription.id], 'the refused subscribe left no subscription; the retry made and paid one');
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, keyId)], [8, 8]);
    const own = await svc.http.get(`/api/v1/client/customers/${a.ref}/status`, { auth: a.key });
    const { resets_at: resetsAt, ...spend } = own.body.data.spend;
    assert.deepEqual(spend, { cap: 20, spent: 8, remaining: 12, currency: 'USD' }, "the status's spend is the calling key's money budget");
    assert.ok(resetsAt);
    const tenantView = await svc.http.get(`/api/v1/client/customers/${a.ref}/status`, { auth: acct.apiKey });
    assert.equal(tenantView.body.data.spend, null, 'the tenant key has no budget');

    const overMandate = await subscribe(plans[2]!);
    assertGate(overMandate, 'budget_exceeded', 'wait', null);
    assert.match(overMandate.body.error.message, /^This charge \(4\.00\) would pass the 10\.00 per month your principal approved: 8\.00 already spent/);
    assert.equal(charges(), calls + 1, 'one charge: the retried subscribe');
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, keyId)], [8, 8]);
  });

  test('when a paid subscribe (REST, then MCP subscribePlan) is refused by the mandate or the key budget then it writes nothing: no subscription, no invoice, no reservation, no charge; once the window resets the same subscribe goes through', async () => {
    const suffix = acct.accountId.slice(-6);
    const planOf = async (key: string, price: number) => (await m.activePlan({ key: `${key}-${suffix}`, price, features: [await m.feature()] })).id;
    const [four, three, six] = [await planOf('left-four', 4), await planOf('left-three', 3), await planOf('left-six', 6)];
    const left = async (customerId: string, keyId: string) => {
      const subscriptions = await svc.ctx.db.selectFrom('subscriptions').select(['id', 'plan_id']).where('account_id', '=', acct.accountId).where('customer_id', '=', customerId).orderBy('id').execute();
      const invoices = await svc.ctx.db.selectFrom('invoices').select(['id', 'status']).where('account_id', '=', acct.accountId).where('customer_id', '=', customerId).orderBy('id').execute();
      const mandateSpend = await svc.ctx.db.selectFrom('customer_mandate_spend').select(['id', 'state']).where('account_id', '=', acct.accountId).where('customer_id', '=', customerId).orderBy('id').execute();
      const keySpend = await svc.ctx.db.selectFrom('api_key_spend').select(['id', 'state']).where('account_id', '=', acct.accountId).where('key_id', '=', keyId).orderBy('id').execute();
      return { subscriptions, invoices, mandateSpend, keySpend, charges: charges() };
    };

    // The mandate (5.00 a day) refuses, REST.
    const a = await agentWithMandate(5, 'day');
    const aKey = await keyIdOf(a.ref);
    const subscribe = (planId: string) => svc.http.post('/api/v1/client/subscriptions', { auth: a.key, body: { planId } });
    assert.equal((await subscribe(four)).status, 201);
    const before = await left(a.customerId, aKey);
    assertGate(await subscribe(six), 'spend_cap_exceeded', 'raise_mandate', `${svc.baseUrl}/api/v1/client/customers/${a.ref}/spend-mandate`);
    const window = await subscribe(three);
    assertGate(window, 'budget_exceeded', 'wait', null);
    assert.deepEqual(await left(a.customerId, aKey), before, 'the refused subscribes wrote nothing and charged nothing');
    svc.clock.advanceMs(window.body.error.retry_after * 1000);
    const retried = await subscribe(three);
    assert.equal(retried.status, 201, retried.text);
    assert.deepEqual([retried.body.data.subscription.status, retried.body.data.invoice.status], ['ACTIVE', 'PAID']);
    assert.equal((await mandate(a.ref)).spent, 3, 'counted in the new window');
    assert.equal(charges(), before.charges + 1);

    // The key budget (5 a day) refuses, MCP subscribePlan.
    const b = await agentWithMandate(100);
    const keyId = await keyIdOf(b.ref);
    await putBudget(b.ref, keyId, { period: 'DAY', amountLimit: 5 });
    const client = await mcpClient(svc, b.key);
    mcp.push(client);
    const subscribePlan = (planId: string) => callTool(client, 'subscribePlan', { planId, confirmAction: true });
    const first = await subscribePlan(four);
    assert.equal(first.isError, false, first.text);
    const kept = await left(b.customerId, keyId);
    const refused = await subscribePlan(three);
    assert.equal(refused.isError, true, refused.text);
    assert.equal(refused.json.error.code, 'budget_exceeded', refused.text);
    assert.deepEqual(await left(b.customerId, keyId), kept, 'the refused subscribePlan wrote nothing and charged nothing');
    assert.deepEqual([(await mandate(b.ref)).spent, await amountSpent(b.ref, keyId)], [4, 4]);
    svc.clock.advanceMs(24 * 60 * 60 * 1000);
    const again = await subscribePlan(three);
    assert.equal(again.isError, false, again.text);
    assert.equal(again.json.invoice.status, 'PAID');
    assert.deepEqual([(await mandate(b.ref)).spent, await amountSpent(b.ref, keyId)], [7, 3], 'the mandate month counts both, the key budget only the new day');
    await m.audit();
  });

  test("when a customer key's paid subscribe goes to a hosted invoice then the key budget counts it when a human pays it, and the mandate never does", async () => {
    const ref = `hosted-${acct.accountId.slice(-6)}`;
    await m.customer(ref);
    const key = await m.customerKey(ref);
    const keyId = await keyIdOf(ref);
    await putBudget(ref, keyId, { period: 'MONTH', amountLimit: 2 });
    const planId = (await m.activePlan({ key: `five-${acct.accountId.slice(-6)}`, price: 5, features: [await m.feature()] })).id;
    const res = await svc.http.post('/api/v1/client/subscriptions', { auth: key, body: { planId } });
    assert.equal(res.status, 402, `a hosted page is not refused by the key budget: ${res.text}`);
    assert.equal(await amountSpent(ref, keyId), 0, 'counted only when paid');
    const hosted = fake.list(STRIPE_KEY, 'invoice').find((i) => (i.metadata as Record<string, string>).tally_invoice_id === res.body.data.invoice.id)!;
    fake.payInvoice(STRIPE_KEY, hosted.id);
    await fake.deliverWebhooks();
    assert.equal(await amountSpent(ref, keyId), 5, 'a human paid: past the limit, counted');
    assert.equal((await mandate(ref)).status, 'none');
  });

  test('when an MCP client with a customer key buys past the mandate then the tool answers budget_exceeded and nothing is charged; within it the purchase counts', async () => {
    const a = await agentWithMandate(3);
    const client = await mcpClient(svc, a.key);
    mcp.push(client);
    const ok = await callTool(client, 'purchaseCredits', { creditPoolId: a.poolId, credits: 200, confirmAction: true });
    assert.equal(ok.isError, false, ok.text);
    const before = charges();
    const refused = await callTool(client, 'purchaseCredits', { creditPoolId: a.poolId, credits: 200, confirmAction: true });
    assert.equal(refused.isError, true, refused.text);
    assert.equal(refused.json.error.code, 'budget_exceeded');
    assert.equal(charges(), before);
    assert.equal((await mandate(a.ref)).spent, 2);
  });

  test('when the processor fails mid-charge then the reservation counts until the sweep deletes it after 15 minutes; a charge whose answer was lost is settled by its webhook and kept', async () => {
    const a = await agentWithMandate(10);
    fake.failNext({ method: 'POST', path: '/v1/payment_intents' }, { status: 500 });
    assert.equal((await buy(a.key, a.poolId, 300)).status, 502);
    assert.equal((await mandate(a.ref)).spent, 3, 'an unknown outcome still counts');
    fake.failNext({ method: 'POST', path: '/v1/payment_intents' }, { status: 500, lostAnswer: true });
    assert.equal((await buy(a.key, a.poolId, 200)).status, 502);
    assert.equal((await mandate(a.ref)).spent, 5);
    await fake.deliverWebhooks();
    await svc.scheduler.run('spend-reservation-sweep');
    assert.equal((await mandate(a.ref)).spent, 5, 'younger than 15 minutes: kept');
    svc.clock.advanceMs(16 * 60 * 1000);
    assert.equal((await svc.scheduler.run('spend-reservation-sweep')).status, 'ran');
    const rows = await svc.ctx.db.selectFrom('customer_mandate_spend').select(['state', 'amount']).where('account_id', '=', acct.accountId).where('customer_id', '=', a.customerId).execute();
    assert.deepEqual(rows.map((r) => [r.state, Number(r.amount)]), [['SETTLED', 2]], 'the unanswered charge deleted, the confirmed one settled');
    assert.equal((await mandate(a.ref)).spent, 2);
    await m.audit();
  });
});
