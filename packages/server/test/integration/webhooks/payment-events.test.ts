import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyPaymentEvents000001';

/**
 * The payments module's outbound events (issue 33, api-contract-events.md §E5.5) against the Stripe
 * fake: payment.succeeded once per processor payment however many requests and webhooks report it,
 * payment.failed with the fallback checkout of a declined charge, checkout.completed once per session,
 * each recorded in the order the contract gives.
 */
type Event = { id: string; type: string; createdAt: string; data: { object: any } };

describe('payment outbound events (issue 33)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let m: ReturnType<typeof monetization>;
  let poolId: string;
  let url: string;
  let secret: string;
  const ref = 'payer';

  const purchase = (body: Record<string, unknown>) => m.client('POST', '/credits/purchases', body);
  const deliver = () => fake.deliverWebhooks();
  /** The account's events, in the order recorded (createdAt, then id). */
  const events = async (type?: string): Promise<Event[]> => {
    const res = await m.api('GET', `/api/v1/webhooks/events?limit=200${type ? `&type=${type}` : ''}`);
    assert.equal(res.status, 200, res.text);
    return (res.body.data.items as Event[]).slice().sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  };
  const paymentsOf = async (pred: (o: any) => boolean) => (await events()).filter((e) => e.type.startsWith('payment.') && pred(e.data.object));

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    const acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    await m.creditModel({ denomination: 'credits' });
    const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: ref, email: 'payer@example.com' }), 201);
    poolId = (await m.expectOk(m.admin('POST', '/credits/pools', { name: 'wallet', denomination: 'credits', customerId: customer.id }), 201)).id;
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'credits', pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
    assert.equal((await m.api('POST', '/api/v1/data/stripe/api', { clientStripeApiKey: STRIPE_KEY })).status, 201);
    assert.equal((await m.api('POST', '/api/v1/data/stripe/webhook/register')).status, 201);
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeMode: 'PAYMENT_PASS_THROUGH' }));
    url = `${svc.baseUrl}/public/stripe/ingest/webhook/${acct.accountId}`;
    secret = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!.secret as string;
  });
  after(() => close());

  test('when a purchase is refused by the spend cap then no payment event is recorded', async () => {
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { agentMaxTopupAmount: 5 }));
    const res = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 600 });
    assert.equal(res.status, 403, res.text);
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { agentMaxTopupAmount: 0 }));
    assert.deepEqual(await paymentsOf(() => true), []);
  });

  test('when a hosted checkout completes and its webhook arrives again 20 times at once then one payment.succeeded, then one checkout.completed', async () => {
    const res = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 100 });
    assert.equal(res.status, 402, res.text);
    const sessionId = res.body.data.checkoutSessionId as string;
    assert.deepEqual(await paymentsOf(() => true), [], 'no card was tried: no payment.failed');
    const [session] = fake.list(STRIPE_KEY, 'checkout.session');
    fake.completeCheckout(STRIPE_KEY, session!.id);
    const event = fake.pendingEvents(STRIPE_KEY).find((e) => e.type === 'checkout.session.completed')!;
    await deliver();
    await Promise.all(Array.from({ length: 20 }, () => fake.deliver(event, url, secret)));

    const paid = await paymentsOf((o) => o.checkoutSessionId === sessionId);
    assert.equal(paid.length, 1);
    const payment = paid[0]!.data.object;
    assert.equal(paid[0]!.type, 'payment.succeeded');
    assert.equal(payment.status, 'SUCCEEDED');
    assert.equal(payment.purpose, 'CREDIT_TOPUP');
    assert.equal(payment.customerReferenceId, ref);
    assert.equal(payment.amount, 1);
    assert.equal(payment.currency, 'USD');
    assert.match(payment.processorPaymentId, /^(pi|cs)_/);
    assert.equal(payment.declineReason, null);
    const completed = (await events('checkout.completed')).filter((e) => e.data.object.id === sessionId);
    assert.equal(completed.length, 1);
    assert.equal(completed[0]!.data.object.status, 'COMPLETED');
    assert.equal(completed[0]!.data.object.customerReferenceId, ref);
    const order = (await events()).map((e) => e.id);
    assert.ok(order.indexOf(paid[0]!.id) < order.indexOf(completed[0]!.id), 'payment.succeeded is recorded before checkout.completed');
  });

  test('when a saved card is charged off-session then payment.succeeded is recorded once, though payment_intent.succeeded arrives too', async () => {
    const intent = await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-intent`));
    fake.confirmSetupIntent(STRIPE_KEY, intent.setup_intent_id);
    await deliver();
    const res = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 250 });
    assert.equal(res.status, 201, res.text);
    await deliver();
    const paid = await paymentsOf((o) => o.processorPaymentId === res.body.data.paymentIntentId);
    assert.deepEqual(paid.map((e) => e.type), ['payment.succeeded']);
    assert.equal(paid[0]!.data.object.amount, 2.5);
    assert.equal(paid[0]!.data.object.purpose, 'CREDIT_TOPUP');
  });

  test('when the card is declined or needs authentication then 402 and payment.failed is recorded with the fallback checkout session', async () => {
    const declined = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 100, paymentMethodId: 'pm_card_chargeDeclined' });
    assert.equal(declined.status, 402, declined.text);
    const auth = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 100, paymentMethodId: 'pm_card_authenticationRequired' });
    assert.equal(auth.status, 402, auth.text);
    const failed = await paymentsOf((o) => o.status === 'FAILED');
    assert.deepEqual(failed.map((e) => e.type), ['payment.failed', 'payment.failed']);
    assert.deepEqual(
      failed.map((e) => [e.data.object.checkoutSessionId, e.data.object.declineReason]),
      [
        [declined.body.data.checkoutSessionId, 'off-session charge declined'],
        [auth.body.data.checkoutSessionId, 'authentication required'],
      ],
    );
  });

  test('when a hosted invoice page is paid then payment.succeeded, invoice.paid, subscription.activated, checkout.completed are recorded once each, in that order', async () => {
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 20, features: [{ id: feature.id }] });
    await m.customer('invoiced');
    const sub = await m.subscribe('invoiced', plan.id);
    assert.equal(sub.invoice.status, 'DUE');
    await m.expectOk(m.client('POST', `/billing/subscriptions/${sub.subscription.id}/stripe/checkout`));
    const hosted = fake.list(STRIPE_KEY, 'invoice').find((i) => (i.metadata as Record<string, string>).tally_invoice_id === sub.invoice.id)!;
    fake.payInvoice(STRIPE_KEY, hosted.id);
    const deliveries = await deliver();
    assert.ok(deliveries.some((d) => d.type === 'invoice.paid') && deliveries.some((d) => d.type === 'invoice.payment_succeeded'));

    const mine = (await events()).filter((e) => [e.data.object.id, e.data.object.invoiceId, e.data.object.subscriptionId].some((id) => id === sub.invoice.id || id === sub.subscription.id) && e.type !== 'invoice.created' && e.type !== 'invoice.finalized' && e.type !== 'subscription.created');
    assert.deepEqual(mine.map((e) => e.type), ['payment.succeeded', 'invoice.paid', 'subscription.activated', 'checkout.completed']);
    const payment = mine[0]!.data.object;
    assert.equal(payment.invoiceId, sub.invoice.id);
    assert.equal(payment.subscriptionId, sub.subscription.id);
    assert.equal(payment.amount, 20);
    assert.equal(payment.customerReferenceId, 'invoiced');
  });

  test('when the processor reports invoice.payment_failed then payment.failed is recorded once per processor event', async () => {
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 15, features: [{ id: feature.id }] });
    await m.customer('failing');
    const sub = await m.subscribe('failing', plan.id);
    await m.expectOk(m.client('POST', `/billing/subscriptions/${sub.subscription.id}/stripe/checkout`));
    const hosted = fake.list(STRIPE_KEY, 'invoice').find((i) => (i.metadata as Record<string, string>).tally_invoice_id === sub.invoice.id)!;
    const event = fake.emitEvent(STRIPE_KEY, 'invoice.payment_failed', hosted);
    await deliver();
    await fake.deliver(event, url, secret);
    const failed = await paymentsOf((o) => o.invoiceId === sub.invoice.id);
    assert.deepEqual(failed.map((e) => e.type), ['payment.failed']);
    assert.equal(failed[0]!.data.object.amount, 15);
    assert.equal((await m.invoices('failing')).items.find((i: any) => i.id === sub.invoice.id).status, 'DUE', 'the invoice stays DUE');
  });

  test('when a customer with a saved card subscribes then the off-session charge records payment.succeeded before invoice.paid, once', async () => {
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 12, features: [{ id: feature.id }] });
    const sub = await m.subscribe(ref, plan.id);
    assert.equal(sub.invoice.status, 'PAID', 'charged with the saved card');
    await deliver();
    const mine = (await events()).filter((e) => (e.type === 'payment.succeeded' && e.data.object.invoiceId === sub.invoice.id) || (e.type === 'invoice.paid' && e.data.object.id === sub.invoice.id));
    assert.deepEqual(mine.map((e) => e.type), ['payment.succeeded', 'invoice.paid']);
    assert.equal(mine[0]!.data.object.purpose, 'SUBSCRIPTION');
    assert.match(mine[0]!.data.object.processorPaymentId, /^pi_/);
  });
});
