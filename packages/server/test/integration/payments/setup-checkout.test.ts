import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_setupcheckout0001';

/**
 * A card added or replaced on the processor's hosted page (api-contract-money.md §3.4): Checkout
 * mode=setup through the official SDK against the Stripe fake; the completion makes the card the
 * default on our record and at the processor, once however often the event arrives.
 */
describe('setup checkout: the default payment method from a hosted page', () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  const ref = 'carol';

  const as = (token: string, method: string, path: string) => svc.http.request(method, `/api/v1/client${path}`, { auth: token });
  const portal = async (body: Record<string, unknown>) => (await m.expectOk(m.client('POST', `/customers/${ref}/portal-sessions`, body), 201)).token as string;
  const webhookUrl = () => `${svc.baseUrl}/public/stripe/ingest/webhook/${acct.accountId}`;
  const processorSessionOf = async (checkoutSessionId: string) =>
    (await svc.ctx.db.selectFrom('checkout_sessions').select('processor_session_id').where('id', '=', checkoutSessionId).executeTakeFirstOrThrow()).processor_session_id!;

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: ref, email: 'carol@example.com' }), 201);
    await m.customer('dave');
  });
  after(() => close());

  test('when no processor is connected then 400 with the contract message, and nothing is opened', async () => {
    for (const credential of [acct.apiKey, await portal({ allowPurchase: true })]) {
      const res = await svc.http.request('POST', `/api/v1/client/customers/${ref}/payment-methods/setup-checkout`, { auth: credential });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.message, 'A payment processor must be connected to add a payment method');
    }
    assert.equal(fake.calls('/v1/checkout/sessions', 'POST').length, 0);
    const none = await m.client('GET', `/customers/${ref}/payment-methods/default`);
    assert.equal(none.status, 404, none.text);
    assert.equal(none.body.error.message, `No default payment method for customer ${ref}`);
  });

  test('when the key is stored but stripeMode is NONE then still 400', async () => {
    await connectStripe(m, STRIPE_KEY, 'NONE');
    const res = await m.client('POST', `/customers/${ref}/payment-methods/setup-checkout`);
    assert.equal(res.status, 400, res.text);
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeMode: 'PAYMENT_PASS_THROUGH' }));
  });

  test('when a tenant key opens a setup checkout then a mode=setup session for the processor customer, returning to /portal, stored PENDING with purpose PAYMENT_METHOD', async () => {
    const opened = await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-checkout`), 201);
    assert.match(opened.checkoutUrl, /\/c\/pay\/cs_test_/);
    const session = fake.get(STRIPE_KEY, await processorSessionOf(opened.checkoutSessionId))!;
    assert.equal(session.mode, 'setup');
    assert.match(session.customer as string, /^cus_/);
    assert.equal(session.success_url, `${svc.baseUrl}/portal`);
    assert.equal(session.cancel_url, `${svc.baseUrl}/portal`);
    assert.equal(session.client_reference_id, opened.checkoutSessionId);
    const ours = await m.expectOk(m.client('GET', `/checkout-sessions/${opened.checkoutSessionId}`));
    assert.equal(ours.purpose, 'PAYMENT_METHOD');
    assert.equal(ours.status, 'PENDING');
    assert.equal(ours.paymentMethodId, undefined);
    const again = await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-checkout`), 201);
    assert.notEqual(again.checkoutSessionId, opened.checkoutSessionId, 'each call makes a new session');
  });

  test("when the account has checkout URLs then they are used; a portal link's returnUrl wins for its token", async () => {
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeCheckoutSuccessUrl: 'https://shop.example/ok', stripeCheckoutCancelUrl: 'https://shop.example/no' }));
    const tenant = await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-checkout`), 201);
    const tenantSession = fake.get(STRIPE_KEY, await processorSessionOf(tenant.checkoutSessionId))!;
    assert.deepEqual([tenantSession.success_url, tenantSession.cancel_url], ['https://shop.example/ok', 'https://shop.example/no']);
    const token = await portal({ allowAutoTopup: true, returnUrl: 'https://app.example/billing' });
    const viaPortal = await as(token, 'POST', `/customers/${ref}/payment-methods/setup-checkout`);
    assert.equal(viaPortal.status, 201, viaPortal.text);
    const portalSession = fake.get(STRIPE_KEY, await processorSessionOf(viaPortal.body.data.checkoutSessionId))!;
    assert.deepEqual([portalSession.success_url, portalSession.cancel_url], ['https://app.example/billing', 'https://app.example/billing']);
    const withoutReturn = await as(await portal({ allowPlanChange: true }), 'POST', `/customers/${ref}/payment-methods/setup-checkout`);
    const plain = fake.get(STRIPE_KEY, await processorSessionOf(withoutReturn.body.data.checkoutSessionId))!;
    assert.equal(plain.success_url, 'https://shop.example/ok', 'a link without returnUrl uses the account URLs');
  });

  test('when the customer completes the page then the card is the default here and at the processor, the session COMPLETED with it; a replay changes nothing', async () => {
    const opened = await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-checkout`), 201);
    const processorSessionId = await processorSessionOf(opened.checkoutSessionId);
    fake.completeCheckout(STRIPE_KEY, processorSessionId);
    const event = fake.pendingEvents(STRIPE_KEY).find((e) => e.type === 'checkout.session.completed')!;
    const deliveries = await fake.deliverWebhooks();
    assert.ok(deliveries.every((d) => d.status === 201), JSON.stringify(deliveries));
    const setupIntentId = fake.get(STRIPE_KEY, processorSessionId)!.setup_intent as string;
    assert.equal(fake.calls(`/v1/setup_intents/${setupIntentId}`, 'GET').length, 1, 'the setup intent was read');

    const done = await m.expectOk(m.client('GET', `/checkout-sessions/${opened.checkoutSessionId}`));
    assert.equal(done.status, 'COMPLETED');
    assert.match(done.paymentMethodId, /^pm_/);
    const processorCustomer = fake.get(STRIPE_KEY, fake.get(STRIPE_KEY, processorSessionId)!.customer as string)!;
    assert.equal((processorCustomer.invoice_settings as { default_payment_method: string }).default_payment_method, done.paymentMethodId);
    const saved = await m.expectOk(m.client('GET', `/customers/${ref}/payment-methods/default`));
    assert.deepEqual(saved, { paymentMethodId: done.paymentMethodId, brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 });
    const completedEvents = async () =>
      (await svc.ctx.db.selectFrom('outbound_events').select('id').where('account_id', '=', acct.accountId).where('type', '=', 'checkout.completed').execute()).length;
    const eventsBefore = await completedEvents();

    const secret = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!.secret as string;
    const replays = await Promise.all([fake.deliver(event, webhookUrl(), secret), fake.deliver(event, webhookUrl(), secret)]);
    assert.deepEqual(replays.map((d) => d.status), [201, 201]);
    assert.equal(fake.calls(`/v1/setup_intents/${setupIntentId}`, 'GET').length, 1, 'a replay calls the processor no more');
    assert.deepEqual(await m.expectOk(m.client('GET', `/checkout-sessions/${opened.checkoutSessionId}`)), done);
    assert.equal(await completedEvents(), eventsBefore, 'checkout.completed once');
  });

  test("when a setup checkout completes then the customer's auto top-up retry blocks are lifted (money §2.5)", async () => {
    await m.creditModel({ denomination: 'tokens' });
    const customer = (await m.expectOk<{ id: string; customerReferenceId: string }[]>(m.admin('GET', '/customers'))).find((x) => x.customerReferenceId === ref)!;
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'wallet', denomination: 'tokens', customerId: customer.id }), 201);
    await m.expectOk(m.client('PUT', `/credits/${ref}/pools/${pool.id}/auto-topup`, { enabled: false, threshold: 10, topupCredits: 100 }));
    const blocked = new Date(svc.clock.now().getTime() + 3_600_000);
    await svc.ctx.db.updateTable('credit_auto_topup_rules').set({ retry_after: blocked }).where('credit_pool_id', '=', pool.id).execute();
    const opened = await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-checkout`), 201);
    fake.completeCheckout(STRIPE_KEY, await processorSessionOf(opened.checkoutSessionId), 'pm_card_visa');
    await fake.deliverWebhooks();
    assert.equal((await m.expectOk(m.client('GET', `/checkout-sessions/${opened.checkoutSessionId}`))).status, 'COMPLETED');
    const rule = await m.expectOk(m.client('GET', `/credits/${ref}/pools/${pool.id}/auto-topup`));
    assert.equal(rule.retryAfter, null);
  });

  test('when a second setup checkout completes with another card then it replaces the default, and a portal token reads it', async () => {
    const token = await portal({ allowPurchase: true });
    const opened = await as(token, 'POST', `/customers/${ref}/payment-methods/setup-checkout`);
    assert.equal(opened.status, 201, opened.text);
    fake.completeCheckout(STRIPE_KEY, await processorSessionOf(opened.body.data.checkoutSessionId), 'pm_card_mastercard');
    await fake.deliverWebhooks();
    const saved = await as(token, 'GET', `/customers/${ref}/payment-methods/default`);
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.data.brand, 'mastercard');
    const session = await as(token, 'GET', `/checkout-sessions/${opened.body.data.checkoutSessionId}`);
    assert.equal(session.body.data.paymentMethodId, saved.body.data.paymentMethodId);
  });

  test('when customer keys call the routes then the setup checkout needs purchase and the read does not; another customer is 403', async () => {
    const readKey = await m.customerKey(ref, ['read']);
    const refused = await as(readKey, 'POST', `/customers/${ref}/payment-methods/setup-checkout`);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.message, "This API key lacks the 'purchase' scope");
    assert.equal((await as(readKey, 'GET', `/customers/${ref}/payment-methods/default`)).status, 200);
    const purchaseKey = await m.customerKey(ref, ['read', 'purchase']);
    assert.equal((await as(purchaseKey, 'POST', `/customers/${ref}/payment-methods/setup-checkout`)).status, 201);
    for (const [method, path] of [['POST', '/customers/dave/payment-methods/setup-checkout'], ['GET', '/customers/dave/payment-methods/default']] as const) {
      const other = await as(purchaseKey, method, path);
      assert.equal(other.status, 403, `${path}: ${other.text}`);
      assert.equal(other.body.error.message, 'This API key is scoped to another customer');
    }
  });
});
