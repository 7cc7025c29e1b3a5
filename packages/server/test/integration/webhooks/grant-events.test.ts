import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, type TestService } from '../../harness.js';
import { setCatalogSettings } from '../agents/agent-helpers.js';
import { callTool, mcpClient } from '../mcp/mcp-helpers.js';

type Event = { id: string; type: string; createdAt: string; data: Record<string, any> };

/**
 * The remaining paths of issue 33's catalogue (api-contract-events.md §E5.4–§E5.6): credits.granted
 * for a purchase (off-session and through checkout, after the purchase's payment.succeeded, which
 * names the grant), for an upgrade's delta and an agent's signup; invoice.paid from the MCP
 * mark-paid tool (no payment event); credits.balance_low from a capture above its hold. Each test
 * has an account of its own, so the event log holds only its events.
 */
describe(`grant, mark-paid and capture events (${backend})`, () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  const unique = () => randomBytes(4).toString('hex');

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
  });
  after(() => close());

  async function account() {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    /** Every event of the account, in the order recorded (createdAt, then id). */
    const events = async (type?: string): Promise<Event[]> =>
      ((await m.expectOk(m.api('GET', `/api/v1/webhooks/events?limit=200${type ? `&type=${type}` : ''}`))).items as Event[])
        .slice()
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    return { acct, m, events };
  }

  /** An account in pass-through mode with a priced denomination and a customer's pool in it. */
  async function purchasable() {
    const { m, events } = await account();
    // A Stripe account of its own: the fake sends each key's events to that key's endpoints only.
    const key = `sk_test_grantEvents${unique()}`;
    const model = await m.creditModel();
    const ref = `buyer-${unique()}`;
    const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: ref, email: `${ref}@example.com` }), 201);
    const poolId = (await m.expectOk(m.admin('POST', '/credits/pools', { name: 'wallet', denomination: model.denomination, customerId: customer.id }), 201)).id as string;
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: model.denomination, pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
    await m.expectOk(m.api('POST', '/api/v1/data/stripe/api', { clientStripeApiKey: key }), 201);
    await m.expectOk(m.api('POST', '/api/v1/data/stripe/webhook/register'), 201);
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeMode: 'PAYMENT_PASS_THROUGH' }));
    const webhook = fake.list(key, 'webhook_endpoint')[0]!;
    return { m, events, ref, poolId, webhook, key };
  }

  /** The purchase's payment.succeeded and credits.granted: once each, in that order, the payment naming the grant. */
  function assertPaidThenGranted(all: Event[], poolId: string, grantId: string) {
    const mine = all.filter((e) => (e.type === 'payment.succeeded' && e.data.object.grantId === grantId) || (e.type === 'credits.granted' && e.data.object.id === grantId));
    assert.deepEqual(mine.map((e) => e.type), ['payment.succeeded', 'credits.granted']);
    const [payment, granted] = [mine[0]!.data.object, mine[1]!.data];
    assert.equal(payment.purpose, 'CREDIT_TOPUP');
    assert.equal(granted.object.grantType, 'PURCHASED');
    assert.equal(granted.object.amount, 300);
    assert.equal(granted.pool.id, poolId);
    assert.equal(granted.pool.balance, 300);
    assert.equal(all.filter((e) => e.type === 'payment.succeeded').length, 1, 'one payment.succeeded for the purchase');
    return payment;
  }

  test('when credits are bought off-session and payment_intent.succeeded arrives twice then payment.succeeded (with grantId) then credits.granted, once each', async () => {
    const { m, events, ref, poolId, webhook, key } = await purchasable();
    const res = await m.client('POST', '/credits/purchases', { customerReferenceId: ref, creditPoolId: poolId, credits: 300, paymentMethodId: 'pm_card_visa' });
    assert.equal(res.status, 201, res.text);
    const intentEvents = fake.pendingEvents(key).filter((e) => e.type === 'payment_intent.succeeded');
    await fake.deliverWebhooks();
    for (const event of intentEvents) await fake.deliver(event, webhook.url as string, webhook.secret as string);
    const payment = assertPaidThenGranted(await events(), poolId, res.body.data.grantId);
    assert.equal(payment.processorPaymentId, res.body.data.paymentIntentId);
  });

  test('when credits are bought through a hosted checkout then payment.succeeded (with grantId), credits.granted, checkout.completed, once each', async () => {
    const { m, events, ref, poolId, webhook, key } = await purchasable();
    const res = await m.client('POST', '/credits/purchases', { customerReferenceId: ref, creditPoolId: poolId, credits: 300 });
    assert.equal(res.status, 402, res.text);
    const session = fake.list(key, 'checkout.session').find((s) => (s.metadata as Record<string, string>).tally_checkout_session_id === res.body.data.checkoutSessionId)!;
    fake.completeCheckout(key, session.id);
    const pending = fake.pendingEvents(key);
    await fake.deliverWebhooks();
    for (const event of pending) await fake.deliver(event, webhook.url as string, webhook.secret as string);
    const grants = await m.expectOk(m.admin('GET', `/credits/pools/${poolId}/grants`));
    assert.equal(grants.length, 1);
    const all = await events();
    const payment = assertPaidThenGranted(all, poolId, grants[0].id);
    assert.equal(payment.checkoutSessionId, res.body.data.checkoutSessionId);
    const types = all.filter((e) => ['payment.succeeded', 'credits.granted', 'checkout.completed'].includes(e.type)).map((e) => e.type);
    assert.deepEqual(types, ['payment.succeeded', 'credits.granted', 'checkout.completed']);
  });

  test('when a subscription with plan credits is upgraded then the delta records credits.granted once, after plan_changed', async () => {
    const { m, events } = await account();
    const model = await m.creditModel();
    const feature = await m.feature();
    const basic = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
    const pro = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
    // Allocations on active plans (allowed: they apply from the next grant).
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${basic.id}?creditAmount=100`), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${pro.id}?creditAmount=250`), 201);
    await m.customer('upgrader');
    const sub = await m.subscribe('upgrader', basic.id);
    const changed = await m.client('POST', `/subscriptions/${sub.subscription.id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(changed.status, 200, changed.text);
    const all = await events();
    const granted = all.filter((e) => e.type === 'credits.granted');
    assert.deepEqual(granted.map((e) => [e.data.object.grantType, e.data.object.amount]), [['PLAN_INCLUDED', 100], ['PLAN_INCLUDED', 150]]);
    assert.equal(granted[1]!.data.pool.balance, 250);
    const types = all.map((e) => e.type);
    assert.ok(types.indexOf('subscription.plan_changed') < types.lastIndexOf('credits.granted'), 'the delta follows the swap');
  });

  test('when an agent signs up to a plan with credits then credits.granted is recorded after the subscription events', async () => {
    const { acct, m, events } = await account();
    const model = await m.creditModel();
    const feature = await m.feature();
    const free = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${free.id}?creditAmount=40`), 201);
    const slug = `grants-${acct.accountId.slice(-8)}`;
    await setCatalogSettings(svc, acct, { slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: 10 });
    const res = await svc.http.post(`/public/v1/catalog/${slug}/signup`, { body: { email: 'agent@example.com' } });
    assert.equal(res.status, 201, res.text);
    const all = await events();
    const granted = all.filter((e) => e.type === 'credits.granted');
    assert.equal(granted.length, 1);
    assert.deepEqual([granted[0]!.data.object.grantType, granted[0]!.data.object.amount, granted[0]!.data.pool.balance], ['PLAN_INCLUDED', 40, 40]);
    const types = all.map((e) => e.type);
    assert.ok(types.indexOf('subscription.activated') < types.indexOf('credits.granted'));
  });

  test('when the MCP markInvoicePaid tool pays an invoice then invoice.paid and subscription.activated once, and no payment event; calling it again records nothing', async () => {
    const { acct, m, events } = await account();
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 25, features: [{ id: feature.id }] });
    await m.customer('mcp_payer');
    const sub = await m.subscribe('mcp_payer', plan.id);
    const tenant = await mcpClient(svc, acct.apiKey);
    try {
      const first = await callTool(tenant, 'markInvoicePaid', { invoiceId: sub.invoice.id, confirmAction: true });
      assert.equal(first.isError, false, first.text);
      const again = await callTool(tenant, 'markInvoicePaid', { invoiceId: sub.invoice.id, confirmAction: true });
      assert.equal(again.isError, false, again.text);
    } finally {
      await tenant.close();
    }
    const all = await events();
    assert.deepEqual(all.filter((e) => !e.type.startsWith('customer.')).map((e) => e.type), ['subscription.created', 'invoice.created', 'invoice.finalized', 'invoice.paid', 'subscription.activated']);
    const paid = all.find((e) => e.type === 'invoice.paid')!;
    assert.deepEqual([paid.data.object.id, paid.data.object.status], [sub.invoice.id, 'PAID']);
  });

  test('when a capture above its hold takes the balance below the threshold then credits.balance_low once, with the balance after the capture', async () => {
    const { m, events } = await account();
    const w = await m.wallet(100, false);
    await m.expectOk(m.admin('PATCH', `/credits/pools/${w.poolId}`, { lowBalanceThreshold: 50 }));
    const hold = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 40, idempotencyKey: `k-${unique()}` }), 201);
    assert.deepEqual(await events('credits.balance_low'), [], 'a hold leaving 60 ≥ 50 fires nothing');
    const captured = await m.expectOk(m.client('POST', `/credits/reservations/${hold.id}/capture`, { amount: 60 }));
    assert.equal(captured.amountCaptured, 60);
    const low = await events('credits.balance_low');
    assert.equal(low.length, 1);
    assert.deepEqual([low[0]!.data.availableBalance, low[0]!.data.lowBalanceThreshold, low[0]!.data.object.id, low[0]!.data.object.balance], [40, 50, w.poolId, 40]);
    // A second draw below the threshold records nothing more (disarmed).
    const second = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: 5, idempotencyKey: `k-${unique()}` }), 201);
    await m.expectOk(m.client('POST', `/credits/reservations/${second.id}/capture`, { amount: 10 }));
    assert.equal((await events('credits.balance_low')).length, 1);
  });
});
