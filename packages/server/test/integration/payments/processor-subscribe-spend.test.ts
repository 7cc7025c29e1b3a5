import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, type TestService } from '../../harness.js';
import { callTool, mcpClient } from '../mcp/mcp-helpers.js';

const STRIPE_KEY = 'sk_test_tallyProcessorSubscribeSpend1';

type Obj = Record<string, any>;

/**
 * A customer key's paid subscribe where the processor drives billing (PROCESSOR_INTEGRATION;
 * api-contract-agent-v2.md §2.5, §2.6 steps 3–5, §4.6; ADR 0040 addendum): off-session, the plan's
 * price is checked against the key budget and the spend mandate and reserved before any processor
 * call (a refusal writes nothing and calls nothing), settled when the processor's subscription is
 * paid, released on a decline; the checkout a human then pays counts against the key only.
 */
describe(`processor-driven subscribe, key budget and mandate, on ${backend}`, () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  const plans: Record<'four' | 'three' | 'six', string> = { four: '', three: '', six: '' };
  const mcp: Client[] = [];

  const mandate = async (ref: string) => (await m.expectOk(m.client('GET', `/customers/${ref}/status`))).spend_mandate;
  const keyIdOf = async (ref: string) => (await m.expectOk(m.client('GET', `/customers/${ref}/keys`))).items.at(-1).id as string;
  const amountSpent = async (ref: string, keyId: string) => (await m.expectOk(m.client('GET', `/customers/${ref}/keys/${keyId}/budget`))).amountSpent;
  const subscribe = (key: string, body: Obj) => svc.http.request('POST', '/api/v1/client/subscriptions', { auth: key, body });
  const written = async (customerId: string, keyId: string) => ({
    subscriptions: await svc.ctx.db.selectFrom('subscriptions').select('id').where('account_id', '=', acct.accountId).where('customer_id', '=', customerId).orderBy('id').execute(),
    intents: await svc.ctx.db.selectFrom('processor_subscriptions').select(['subscription_id', 'status']).where('account_id', '=', acct.accountId).where('customer_id', '=', customerId).orderBy('subscription_id').execute(),
    mandateSpend: await svc.ctx.db.selectFrom('customer_mandate_spend').select(['id', 'state']).where('account_id', '=', acct.accountId).where('customer_id', '=', customerId).orderBy('id').execute(),
    keySpend: await svc.ctx.db.selectFrom('api_key_spend').select(['id', 'state']).where('account_id', '=', acct.accountId).where('key_id', '=', keyId).orderBy('id').execute(),
    processorCalls: fake.requests.length,
  });

  /** A customer key whose principal approved `amount` a month on the mandate page (its card saved), with a key budget of `budget` a day. */
  async function agent(ref: string, amount: number, budget: number) {
    await m.customer(ref);
    const key = await m.customerKey(ref);
    const page = await svc.http.post(`/api/v1/client/customers/${ref}/spend-mandate`, { auth: key, body: { max_amount: amount, period: 'month' } });
    assert.equal(page.body.data?.status, 'pending', page.text);
    fake.completeCheckout(STRIPE_KEY, fake.list(STRIPE_KEY, 'checkout.session').find((s) => s.url === page.body.data.setup_url)!.id);
    await fake.deliverWebhooks();
    assert.equal((await mandate(ref)).status, 'active');
    const keyId = await keyIdOf(ref);
    await m.expectOk(m.client('PUT', `/customers/${ref}/keys/${keyId}/budget`, { period: 'DAY', amountLimit: budget }));
    const customer = await svc.ctx.db.selectFrom('customers').select('id').where('account_id', '=', acct.accountId).where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
    return { ref, key, keyId, customerId: customer.id };
  }

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    for (const [name, price] of [['four', 4], ['three', 3], ['six', 6]] as const) plans[name] = (await m.activePlan({ key: `p-${name}`, price, features: [await m.feature()] })).id;
    await connectStripe(m, STRIPE_KEY, 'STRIPE_INTEGRATION');
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { agentMaxMandateAmount: '100', agentSpendMandateEnabled: true }));
  });
  after(async () => {
    for (const c of mcp) await c.close();
    await close();
  });

  test('when the mandate or the key budget refuses a paid subscribe (REST, then MCP subscribePlan) then 403 and nothing is written and Stripe is not called; within both it is counted and settled', async () => {
    const a = await agent('mandated', 5, 100);
    const nothing = await written(a.customerId, a.keyId);
    const whole = await subscribe(a.key, { planId: plans.six });
    assert.equal(whole.status, 403, whole.text);
    assert.deepEqual([whole.body.error.code, whole.body.error.action], ['spend_cap_exceeded', 'raise_mandate']);
    assert.deepEqual(await written(a.customerId, a.keyId), nothing, 'no subscription, no reservation, no processor call');

    const b = await agent('budgeted', 100, 3);
    const client = await mcpClient(svc, b.key);
    mcp.push(client);
    const before = await written(b.customerId, b.keyId);
    const refused = await callTool(client, 'subscribePlan', { planId: plans.four, confirmAction: true });
    assert.equal(refused.isError, true, refused.text);
    assert.equal(refused.json.error.code, 'spend_cap_exceeded', refused.text);
    assert.deepEqual(await written(b.customerId, b.keyId), before, 'the refused subscribePlan wrote nothing and called nothing');

    const ok = await subscribe(a.key, { planId: plans.four });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.data.subscription.status, 'ACTIVE');
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, a.keyId)], [4, 4]);
    const after = await written(a.customerId, a.keyId);
    assert.deepEqual([after.mandateSpend.map((s) => s.state), after.keySpend.map((s) => s.state)], [['SETTLED'], ['SETTLED']]);
    assert.equal(after.mandateSpend[0]!.id, ok.body.data.subscription.id, 'reserved under our subscription id');
    await fake.deliverWebhooks();
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, a.keyId)], [4, 4], 'the webhooks do not count it twice');
  });

  test('when the off-session charge is declined then the reservation is released, and the checkout a human then pays counts against the key, never the mandate', async () => {
    const a = await agent('declining', 10, 100);
    const res = await subscribe(a.key, { planId: plans.three, paymentMethodId: 'pm_card_chargeDeclined' });
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.data.declineReason, 'off-session charge declined');
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, a.keyId)], [0, 0], 'a declined charge spends nothing');
    const left = await written(a.customerId, a.keyId);
    assert.deepEqual(left.mandateSpend, []);
    assert.deepEqual(left.keySpend.map((s) => s.state), ['OPEN'], 'the checkout waits, uncounted');

    const session = fake.list(STRIPE_KEY, 'checkout.session').find((s) => (s.metadata as Obj).tally_checkout_session_id === res.body.data.checkoutSessionId)!;
    fake.completeCheckout(STRIPE_KEY, session.id);
    await fake.deliverWebhooks();
    await fake.deliverWebhooks();
    assert.deepEqual((await m.expectOk(m.client('GET', `/customers/${a.ref}`))).subscriptions.map((s: Obj) => s.status), ['ACTIVE']);
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, a.keyId)], [0, 3], 'a human paid: the key counts it, the mandate does not');
  });

  test('when Stripe fails mid-subscribe then the reservation counts until the sweep gives it back after 15 minutes; a retry whose answer was lost is settled by its webhook and kept', async () => {
    const a = await agent('unanswered', 10, 100);
    fake.failNext({ method: 'POST', path: '/v1/subscriptions' }, { status: 500 });
    assert.equal((await subscribe(a.key, { planId: plans.three })).status, 502);
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, a.keyId)], [3, 3], 'an unknown outcome still counts');
    await svc.scheduler.run('spend-reservation-sweep');
    assert.equal((await mandate(a.ref)).spent, 3, 'younger than 15 minutes: kept');
    svc.clock.advanceMs(16 * 60 * 1000);
    assert.equal((await svc.scheduler.run('spend-reservation-sweep')).status, 'ran');
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, a.keyId)], [0, 0], 'the sweep found no paid subscription under the id and gave it back');

    fake.failNext({ method: 'POST', path: '/v1/subscriptions' }, { status: 500, lostAnswer: true });
    assert.equal((await subscribe(a.key, { planId: plans.three })).status, 502);
    await fake.deliverWebhooks();
    svc.clock.advanceMs(16 * 60 * 1000);
    await svc.scheduler.run('spend-reservation-sweep');
    const rows = await written(a.customerId, a.keyId);
    assert.deepEqual([rows.mandateSpend.map((s) => s.state), rows.keySpend.map((s) => s.state)], [['SETTLED'], ['SETTLED']]);
    assert.deepEqual([(await mandate(a.ref)).spent, await amountSpent(a.ref, a.keyId)], [3, 3], 'the paid subscription counted once');
  });
});
