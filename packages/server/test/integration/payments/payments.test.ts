import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyPaymentsAccount0001';

/**
 * Payments through HTTP with the official SDK against the Stripe fake on 127.0.0.1: the processor
 * connection, saved cards, credit purchases (off-session and hosted), the webhook, hosted invoice
 * pages and mark-paid by mode. After every scenario the ledger audit is clean and each payment
 * granted credits exactly once.
 */
describe('payments with the Stripe SDK', () => {
  let svc: TestService;
  let fake: StripeFake;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  let poolId: string;
  const ref = 'buyer';

  const settings = (body: Record<string, unknown>) => m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', body));
  const purchase = (body: Record<string, unknown>, headers?: Record<string, string>) => m.client('POST', '/credits/purchases', body, headers);
  const grantsOf = async (id: string) => m.expectOk<any[]>(m.admin('GET', `/credits/pools/${id}/grants`));
  const deliver = () => fake.deliverWebhooks();

  let close: () => Promise<void>;

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    await m.creditModel({ denomination: 'credits' });
    const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: ref, email: 'buyer@example.com' }), 201);
    poolId = (await m.expectOk(m.admin('POST', '/credits/pools', { name: 'wallet', denomination: 'credits', customerId: customer.id }), 201)).id;
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'credits', pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
  });
  after(() => close());

  test('when no processor is connected then a purchase answers 402 with the decline reason, no checkout and the gate that says whom to ask', async () => {
    const res = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 100 });
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.error.code, 'payment_required');
    // api-contract-agent-v2.md §1.2: nothing to hand over, nothing to poll.
    assert.equal(res.body.error.message, 'Payment is required but no payment processor is connected to this instance; contact the operator.');
    assert.deepEqual([res.body.error.gate, res.body.error.action, res.body.error.url, res.body.error.poll, res.body.error.retry_after], ['payment', 'complete_checkout', null, null, null]);
    assert.equal(res.body.data.declineReason, 'no payment processor connected');
    assert.equal(res.body.data.checkoutUrl, undefined);
    assert.equal(fake.requests.length, 0);
  });

  test('when the key is refused by Stripe then 502 vendor_error and nothing is stored', async () => {
    const res = await m.api('POST', '/api/v1/data/stripe/api', { clientStripeApiKey: 'sk_test_revokedKey000000' });
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.error.code, 'vendor_error');
    assert.deepEqual(await m.expectOk(m.api('GET', '/api/v1/data/stripe/api')), {});
  });

  test('when the key is stored and the webhook registered then both read back masked and Stripe points at our webhook', async () => {
    assert.equal((await m.api('POST', '/api/v1/data/stripe/api', { clientStripeApiKey: STRIPE_KEY })).status, 201);
    assert.equal((await m.api('POST', '/api/v1/data/stripe/webhook/register')).status, 201);
    const masked = await m.expectOk(m.api('GET', '/api/v1/data/stripe/api'));
    assert.equal(masked.stripeApiKey, `sk_t${'*'.repeat(12)}0001`);
    assert.match(masked.webhookSecret, /^whse\*{12}[0-9a-f]{4}$/);
    const [endpoint] = fake.list(STRIPE_KEY, 'webhook_endpoint');
    assert.equal(endpoint!.url, `${svc.baseUrl}/public/stripe/ingest/webhook/${acct.accountId}`);
    for (const type of ['checkout.session.completed', 'setup_intent.succeeded', 'payment_intent.succeeded', 'invoice.paid', 'invoice.payment_succeeded']) {
      assert.ok((endpoint!.enabled_events as string[]).includes(type), type);
    }
    const stored = await svc.ctx.db.selectFrom('processor_connections').selectAll().where('account_id', '=', acct.accountId).executeTakeFirstOrThrow();
    assert.ok(!stored.api_key_sealed!.includes(STRIPE_KEY), 'the key is stored encrypted');
    await settings({ stripeMode: 'PAYMENT_PASS_THROUGH' });
  });

  test('when the spend cap is below the amount then 403 spend_cap_exceeded before any processor call', async () => {
    await settings({ agentMaxTopupAmount: 5 });
    const before = fake.requests.length;
    const res = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 600 });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'spend_cap_exceeded');
    assert.equal(res.body.error.message, "Amount 6.00 exceeds this account's agent spend cap of 5.00");
    assert.equal(fake.requests.length, before, 'no processor call at all');
    await settings({ agentMaxTopupAmount: 0 });
  });

  test('when the amount is below 0.50 then 400 with the contract message', async () => {
    const res = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 49 });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.message, 'Purchase amount 0.49 USD is below the 0.50 payment minimum — buy more credits at once');
  });

  test('when there is no saved card then a purchase opens a hosted checkout (402), and the webhook grants once however often it arrives', async () => {
    const res = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 100 });
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.data.completed, false);
    assert.equal(res.body.data.amountCharged, 1);
    const sessionId = res.body.data.checkoutSessionId as string;
    assert.match(res.body.data.checkoutUrl, /\/c\/pay\/cs_test_/);
    const pending = await m.expectOk(m.client('GET', `/checkout-sessions/${sessionId}`));
    assert.equal(pending.status, 'PENDING');
    assert.equal(pending.purpose, 'CREDIT_TOPUP');

    const [session] = fake.list(STRIPE_KEY, 'checkout.session');
    fake.completeCheckout(STRIPE_KEY, session!.id);
    const event = fake.pendingEvents(STRIPE_KEY).find((e) => e.type === 'checkout.session.completed')!;
    const deliveries = await deliver();
    assert.ok(deliveries.every((d) => d.status === 201), JSON.stringify(deliveries));
    // The same event again, and twice at once: acknowledged, nothing applied.
    const url = `${svc.baseUrl}/public/stripe/ingest/webhook/${acct.accountId}`;
    const secret = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!.secret as string;
    const again = await Promise.all([fake.deliver(event, url, secret), fake.deliver(event, url, secret), fake.deliver(event, url, secret)]);
    assert.deepEqual(again.map((d) => d.status), [201, 201, 201]);

    const done = await m.expectOk(m.client('GET', `/checkout-sessions/${sessionId}`));
    assert.equal(done.status, 'COMPLETED');
    assert.equal(done.credits, 100);
    const purchased = (await grantsOf(poolId)).filter((g) => g.grantType === 'PURCHASED');
    assert.equal(purchased.length, 1);
    assert.equal(purchased[0].amount, 100);
    await m.audit();
  });

  test('when a card is saved through a setup intent then purchases charge it off-session (201) and grant once', async () => {
    const intent = await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-intent`));
    assert.match(intent.setup_intent_id, /^seti_/);
    assert.match(intent.client_secret, /^seti_.+_secret_/);
    assert.match(intent.stripe_customer_id, /^cus_/);
    fake.confirmSetupIntent(STRIPE_KEY, intent.setup_intent_id);
    await deliver();

    const res = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: '250.5' }, { 'Idempotency-Key': 'buy-1' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.completed, true);
    assert.equal(res.body.data.amountCharged, 2.51);
    assert.match(res.body.data.paymentIntentId, /^pi_/);
    const replay = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: '250.5' }, { 'Idempotency-Key': 'buy-1' });
    assert.equal(replay.status, 201);
    assert.equal(replay.body.data.paymentIntentId, res.body.data.paymentIntentId);
    // The processor also reports the payment: no second grant.
    await deliver();
    const grants = (await grantsOf(poolId)).filter((g) => g.grantType === 'PURCHASED' && g.amount === 250.5);
    assert.equal(grants.length, 1);
    assert.equal(fake.list(STRIPE_KEY, 'payment_intent').filter((p) => p.status === 'succeeded' && p.amount === 251).length, 1);
    await m.audit();
  });

  test('when the processor fails mid-charge then 502, and a retry with the same Idempotency-Key charges once', async () => {
    fake.failNext({ method: 'POST', path: '/v1/payment_intents' }, { status: 500 });
    const body = { customerReferenceId: ref, creditPoolId: poolId, credits: 300 };
    const failed = await purchase(body, { 'Idempotency-Key': 'buy-2' });
    assert.equal(failed.status, 502, failed.text);
    const retried = await purchase(body, { 'Idempotency-Key': 'buy-2' });
    assert.equal(retried.status, 201, retried.text);
    const charges = fake.calls('/v1/payment_intents', 'POST').filter((r) => r.body.amount === '300');
    assert.equal(new Set(charges.map((c) => c.idempotencyKey)).size, 1, 'every attempt used one charge key');
    assert.equal(fake.list(STRIPE_KEY, 'payment_intent').filter((p) => p.amount === 300).length, 1);
    await m.audit();
  });

  test('when the card is declined then 402 with a hosted checkout and the decline reason', async () => {
    const res = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 100, paymentMethodId: 'pm_card_chargeDeclined' });
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.data.declineReason, 'off-session charge declined');
    assert.ok(res.body.data.checkoutUrl);
    const authRequired = await purchase({ customerReferenceId: ref, creditPoolId: poolId, credits: 100, paymentMethodId: 'pm_card_authenticationRequired' });
    assert.equal(authRequired.status, 402, authRequired.text);
  });

  test('when a webhook signature is missing, wrong, stale or for an unknown account then 400 and nothing is applied', async () => {
    const url = `${svc.baseUrl}/public/stripe/ingest/webhook/${acct.accountId}`;
    const secret = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!.secret as string;
    const event = { id: 'evt_forged', object: 'event', type: 'invoice.paid', created: 1, data: { object: { id: 'in_x', object: 'invoice', metadata: {} } } };
    const payload = JSON.stringify(event);
    const now = Math.floor(svc.clock.now().getTime() / 1000);
    const cases: [string, Record<string, string>][] = [
      ['missing', {}],
      ['wrong secret', { 'stripe-signature': fake.signatureHeader(payload, 'whsec_wrong', now) }],
      ['stale', { 'stripe-signature': fake.signatureHeader(payload, secret, now - 3600) }],
      ['garbage', { 'stripe-signature': 't=1,v1=zz' }],
    ];
    for (const [name, headers] of cases) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload });
      assert.equal(res.status, 400, name);
      const body = (await res.json()) as { success: boolean; error: { code: string } };
      assert.equal(body.success, false);
      assert.equal(body.error.code, 'validation_failed');
    }
    const unknown = await fetch(`${svc.baseUrl}/public/stripe/ingest/webhook/00000000-0000-4000-8000-000000000000`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': fake.signatureHeader(payload, secret, now) }, body: payload });
    assert.equal(unknown.status, 400);
    const recorded = await svc.ctx.db.selectFrom('processor_events').select('event_id').where('event_id', '=', 'evt_forged').execute();
    assert.deepEqual(recorded, []);
  });

  test('when a paid plan is subscribed by the tenant then its hosted invoice page settles the invoice once on invoice.paid', async () => {
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 20, features: [{ id: feature.id }] });
    // A customer without a saved card: the tenant's subscribe leaves the invoice DUE.
    await m.customer('invoiced');
    const sub = await m.subscribe('invoiced', plan.id);
    assert.equal(sub.invoice.status, 'DUE');
    const page = await m.expectOk(m.client('POST', `/billing/subscriptions/${sub.subscription.id}/stripe/checkout`));
    const again = await m.expectOk(m.client('POST', `/billing/subscriptions/${sub.subscription.id}/stripe/checkout`));
    assert.equal(again.url, page.url, 'a retried checkout returns the same page');
    const hosted = fake.list(STRIPE_KEY, 'invoice').find((i) => (i.metadata as Record<string, string>).tally_invoice_id === sub.invoice.id)!;
    assert.equal(hosted.amount_due, 2000);
    fake.payInvoice(STRIPE_KEY, hosted.id);
    const deliveries = await deliver();
    assert.ok(deliveries.some((d) => d.type === 'invoice.paid') && deliveries.some((d) => d.type === 'invoice.payment_succeeded'));
    const invoices = await m.invoices('invoiced');
    assert.equal(invoices.items.find((i: any) => i.id === sub.invoice.id).status, 'PAID');
    const check = await m.check('invoiced', feature.key);
    assert.equal(check.allowed, true);
  });

  test('when the account is processor-driven then mark-paid is refused with the original message', async () => {
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 15, features: [{ id: feature.id }] });
    await m.customer('marked');
    const sub = await m.subscribe('marked', plan.id);
    assert.equal(sub.invoice.status, 'DUE');
    await settings({ stripeMode: 'STRIPE_INTEGRATION' });
    const res = await m.client('POST', `/billing/invoices/${sub.invoice.id}/mark-paid`);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.message, 'Manual invoice payment is not available for Stripe-integrated accounts. Invoices are paid through Stripe.');
    await settings({ stripeMode: 'PAYMENT_PASS_THROUGH' });
    const paid = await Promise.all([m.client('POST', `/billing/invoices/${sub.invoice.id}/mark-paid`), m.client('POST', `/billing/invoices/${sub.invoice.id}/mark-paid`)]);
    assert.deepEqual(paid.map((r) => r.status), [200, 200]);
    assert.deepEqual(paid.map((r) => r.body.data.status), ['PAID', 'PAID']);
    await m.audit();
  });

  test('when the connection is deleted then both secrets go and stripeMode resets to NONE, audit-logged', async () => {
    assert.equal((await m.api('DELETE', '/api/v1/data/stripe/api')).status, 200);
    assert.deepEqual(await m.expectOk(m.api('GET', '/api/v1/data/stripe/api')), {});
    const current = await m.expectOk(m.api('GET', '/api/v1/tanso/account-settings'));
    assert.equal(current.stripeMode, 'NONE');
    assert.equal(current.stripeEnabled, false);
    const log = await svc.ctx.db.selectFrom('account_audit_log').selectAll().where('account_id', '=', acct.accountId).execute();
    assert.ok(log.some((e) => (e.details as Record<string, unknown>).to === 'NONE'), JSON.stringify(log.map((e) => e.details)));
  });
});
