import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { parseForm } from './form.js';
import { StripeFake } from './server.js';

/** The fake answers the real SDK the way Stripe does (vendor-apis.md §6), so service tests can trust it. */
describe('Stripe fake driven by the official SDK', () => {
  let fake: StripeFake;
  let stripe: Stripe;
  const key = 'sk_test_fake_account_one';

  before(async () => {
    fake = await StripeFake.start();
    const url = new URL(fake.baseUrl);
    stripe = new Stripe(key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0, telemetry: false });
  });
  after(() => fake.close());

  test('when a form body nests brackets then it parses into objects and arrays', () => {
    assert.deepEqual(parseForm('a[b]=1&items[0][price]=p1&items[1][price]=p2&x=hello+world&e[]=a&e[]=b'), {
      a: { b: '1' }, items: [{ price: 'p1' }, { price: 'p2' }], x: 'hello world', e: ['a', 'b'],
    });
  });

  test('when a card is saved through a setup intent and charged off-session then the charge succeeds once per idempotency key', async () => {
    const customer = await stripe.customers.create({ email: 'a@example.com', metadata: { ref: 'alice' } });
    const intent = await stripe.setupIntents.create({ customer: customer.id, usage: 'off_session', allowed_payment_method_types: ['card'] });
    assert.equal(intent.status, 'requires_payment_method');
    assert.match(intent.client_secret!, /^seti_.+_secret_/);
    const confirmed = fake.confirmSetupIntent(key, intent.id);
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: confirmed.payment_method as string } });
    const params = { amount: 4200, currency: 'usd', customer: customer.id, payment_method: confirmed.payment_method as string, off_session: true, confirm: true };
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: 'charge-1' });
    const again = await stripe.paymentIntents.create(params, { idempotencyKey: 'charge-1' });
    assert.equal(first.status, 'succeeded');
    assert.equal(again.id, first.id);
    assert.equal(fake.list(key, 'payment_intent').length, 1);
    await assert.rejects(stripe.paymentIntents.create({ ...params, amount: 4300 }, { idempotencyKey: 'charge-1' }), (err: Error) => err instanceof Stripe.errors.StripeIdempotencyError);
  });

  test('when the card is declined or needs authentication then the SDK raises a card error with the code', async () => {
    const customer = await stripe.customers.create({ email: 'b@example.com' });
    for (const [token, code] of [['pm_card_chargeDeclined', 'card_declined'], ['pm_card_authenticationRequired', 'authentication_required']] as const) {
      const pm = await stripe.paymentMethods.attach(token, { customer: customer.id });
      await assert.rejects(
        stripe.paymentIntents.create({ amount: 1000, currency: 'usd', customer: customer.id, payment_method: pm.id, off_session: true, confirm: true }),
        (err: Error) => err instanceof Stripe.errors.StripeCardError && err.code === code && err.statusCode === 402,
      );
    }
  });

  test('when an amount is below the minimum then the SDK raises an invalid request error', async () => {
    await assert.rejects(stripe.paymentIntents.create({ amount: 49, currency: 'usd' }), (err: Error) => err instanceof Stripe.errors.StripeInvalidRequestError);
  });

  test('when a hosted checkout is paid then a signed checkout.session.completed reaches the endpoint and verifies with the SDK', async () => {
    const received: { body: string; signature: string }[] = [];
    const { createServer } = await import('node:http');
    const sink = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => { received.push({ body, signature: String(req.headers['stripe-signature']) }); res.writeHead(201).end('{}'); });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
    const port = (sink.address() as { port: number }).port;
    try {
      await assert.rejects(stripe.webhookEndpoints.create({ url: `http://127.0.0.1:${port}/hook`, enabled_events: ['no.such_event' as never] }), Stripe.errors.StripeInvalidRequestError);
      const endpoint = await stripe.webhookEndpoints.create({ url: `http://127.0.0.1:${port}/hook`, enabled_events: ['checkout.session.completed'] });
      assert.match(endpoint.secret!, /^whsec_/);
      const session = await stripe.checkout.sessions.create({
        mode: 'payment', success_url: 'https://example.com/ok', cancel_url: 'https://example.com/no', client_reference_id: 'purchase-1',
        line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 5000, product_data: { name: 'Credits' } } }], metadata: { purpose: 'CREDIT_TOPUP' },
      });
      assert.equal(session.status, 'open');
      assert.equal(session.amount_total, 5000);
      fake.completeCheckout(key, session.id);
      const deliveries = await fake.deliverWebhooks();
      assert.deepEqual(deliveries.map((d) => [d.type, d.status]), [['checkout.session.completed', 201]]);
      const event = stripe.webhooks.constructEvent(received[0]!.body, received[0]!.signature, endpoint.secret!);
      assert.equal(event.type, 'checkout.session.completed');
      const completed = event.data.object as Stripe.Checkout.Session;
      assert.equal(completed.payment_status, 'paid');
      assert.equal(completed.client_reference_id, 'purchase-1');
      assert.throws(() => stripe.webhooks.constructEvent(received[0]!.body, received[0]!.signature, 'whsec_wrong'), Stripe.errors.StripeSignatureVerificationError);
    } finally {
      sink.close();
    }
  });

  test('when a subscription is created off-session then its invoice is paid and both invoice events are queued', async () => {
    const customer = await stripe.customers.create({ email: 'c@example.com' });
    const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    const product = await stripe.products.create({ name: 'Pro' });
    const price = await stripe.prices.create({ product: product.id, unit_amount: 4900, currency: 'usd', recurring: { interval: 'month' } });
    const subscription = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], default_payment_method: pm.id, metadata: { tally: 'x' } });
    assert.equal(subscription.status, 'active');
    const types = fake.pendingEvents(key).map((e) => e.type);
    assert.ok(types.includes('invoice.paid') && types.includes('invoice.payment_succeeded'), types.join());
  });

  test('when a failure is injected then the SDK sees a Stripe API error and the next call succeeds', async () => {
    fake.failNext({ method: 'POST', path: '/v1/customers' }, { status: 500 });
    await assert.rejects(stripe.customers.create({ email: 'd@example.com' }), Stripe.errors.StripeAPIError);
    assert.ok((await stripe.customers.create({ email: 'd@example.com' })).id.startsWith('cus_'));
  });

  test('when a key is invalid then the SDK raises an authentication error', async () => {
    const url = new URL(fake.baseUrl);
    const bad = new Stripe('sk_test_invalid', { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
    await assert.rejects(bad.balance.retrieve(), Stripe.errors.StripeAuthenticationError);
  });

  test('when a meter event is sent twice with one identifier then the second is refused', async () => {
    const customer = await stripe.customers.create({ email: 'e@example.com' });
    await stripe.billing.meters.create({ display_name: 'Tokens', event_name: 'tokens', default_aggregation: { formula: 'sum' } });
    const event = { event_name: 'tokens', identifier: 'ev-1', payload: { stripe_customer_id: customer.id, value: '12' } };
    await stripe.billing.meterEvents.create(event);
    await assert.rejects(stripe.billing.meterEvents.create(event), Stripe.errors.StripeInvalidRequestError);
    assert.equal(fake.meterEvents(key).length, 1);
  });
});
