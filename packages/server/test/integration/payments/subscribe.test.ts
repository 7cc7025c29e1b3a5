import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallySubscribeAccount0002';

/** Paid subscribes in PAYMENT_PASS_THROUGH by caller and payment method (contract §4.5). */
describe('paid subscribe through the processor', () => {
  let svc: TestService;
  let fake: StripeFake;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  let featureKey: string;
  let planId: string;

  const settings = (body: Record<string, unknown>) => m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', body));
  const subscribeAs = (key: string, body: Record<string, unknown>) => svc.http.request('POST', '/api/v1/client/subscriptions', { auth: key, body });

  let close: () => Promise<void>;

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const feature = await m.feature();
    featureKey = feature.key;
    planId = (await m.activePlan({ price: 30, features: [{ id: feature.id }] })).id;
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
  });
  after(() => close());

  test('when a customer key subscribes without a card then 402 with the hosted invoice page, the same page on retry, and the webhook activates it', async () => {
    await m.customer('agent-a');
    const key = await m.customerKey('agent-a');
    const res = await subscribeAs(key, { planId });
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'payment_required');
    assert.equal(res.body.data.subscription.status, 'PENDING_PAYMENT');
    assert.equal(res.body.data.invoice.status, 'DUE');
    assert.match(res.body.data.checkoutUrl, /\/i\/in_/);
    const retry = await subscribeAs(key, { planId });
    assert.equal(retry.status, 402);
    assert.equal(retry.body.data.checkoutSessionId, res.body.data.checkoutSessionId);
    assert.equal(retry.body.data.subscription.id, res.body.data.subscription.id);

    const hosted = fake.list(STRIPE_KEY, 'invoice').find((i) => (i.metadata as Record<string, string>).tally_invoice_id === res.body.data.invoice.id)!;
    fake.payInvoice(STRIPE_KEY, hosted.id);
    await fake.deliverWebhooks();
    const session = await svc.http.request('GET', `/api/v1/client/checkout-sessions/${res.body.data.checkoutSessionId}`, { auth: key });
    assert.equal(session.body.data.status, 'COMPLETED');
    assert.equal(session.body.data.purpose, 'SUBSCRIPTION');
    assert.equal(session.body.data.subscriptionId, res.body.data.subscription.id);
    const check = await svc.http.request('GET', `/api/v1/client/entitlements/agent-a/${featureKey}`, { auth: key });
    assert.equal(check.body.data.allowed, true);
  });

  test('when the tenant subscribes a customer with a saved card then the first invoice is charged off-session and the subscription is active (201)', async () => {
    await m.customer('carded');
    const intent = await m.expectOk(m.client('POST', '/customers/carded/payment-methods/setup-intent'));
    fake.confirmSetupIntent(STRIPE_KEY, intent.setup_intent_id);
    await fake.deliverWebhooks();
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'carded', planId });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.subscription.status, 'ACTIVE');
    assert.equal(res.body.data.invoice.status, 'PAID');
    const charges = fake.list(STRIPE_KEY, 'payment_intent').filter((p) => (p.metadata as Record<string, string>).tally_invoice_id === res.body.data.invoice.id);
    assert.deepEqual(charges.map((c) => [c.amount, c.status]), [[3000, 'succeeded']]);
    // The processor reports the charge too: nothing changes.
    await fake.deliverWebhooks();
    assert.equal((await m.invoices('carded')).items.filter((i: any) => i.status === 'PAID').length, 1);
  });

  test('when the tenant subscribes a customer without a card then 201 with a DUE invoice, as without a processor', async () => {
    await m.customer('cardless');
    const sub = await m.subscribe('cardless', planId);
    assert.equal(sub.invoice.status, 'DUE');
    assert.equal(sub.subscription.isActive, false);
  });

  test('when the card is declined then 402 with the hosted page and the decline reason', async () => {
    await m.customer('declined');
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'declined', planId, paymentMethodId: 'pm_card_chargeDeclined' });
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.data.declineReason, 'off-session charge declined');
    assert.ok(res.body.data.checkoutUrl);
  });

  test('when the plan price exceeds the agent spend cap then 403 before anything is written or charged', async () => {
    await m.customer('capped');
    const key = await m.customerKey('capped');
    await settings({ agentMaxTopupAmount: 10 });
    const calls = fake.requests.length;
    const res = await subscribeAs(key, { planId });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'spend_cap_exceeded');
    assert.equal(fake.requests.length, calls);
    const subs = await m.expectOk(m.client('GET', '/customers/capped'));
    assert.deepEqual(subs.subscriptions ?? [], []);
    await settings({ agentMaxTopupAmount: 0 });
  });
});
