import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, type TestService } from '../../harness.js';
import { setCatalogSettings } from './agent-helpers.js';

const STRIPE_KEY = 'sk_test_tallyMandatePages000001';
const DAY_MS = 24 * 3600 * 1000;

/**
 * Spend mandate pages through HTTP with the Stripe fake (api-contract-agent-v2.md §4.6, §7): the
 * POST and the signup open a Checkout page in setup mode; completing it activates the mandate
 * (card, claim, e-mail) once; an expired page (event or hourly job) reads expired in the status.
 */
describe(`spend mandate pages on ${backend}`, () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  let slug: string;

  const settings = (body: Record<string, unknown>) => m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', body));
  const signup = async (body: Record<string, unknown> = {}) => {
    const r = await svc.http.post(`/public/v1/catalog/${slug}/signup`, { body: { email: 'agent-owner@example.com', ...body } });
    assert.equal(r.status, 201, r.text);
    return r.body.data as { customerReferenceId: string; apiKey: string; spend_mandate: any };
  };
  const ask = (ref: string, auth: string, body: unknown) => svc.http.post(`/api/v1/client/customers/${ref}/spend-mandate`, { auth, body });
  const status = async (ref: string, auth = acct.apiKey) => {
    const r = await svc.http.get(`/api/v1/client/customers/${ref}/status`, { auth });
    assert.equal(r.status, 200, r.text);
    return r.body.data;
  };
  const customerRow = (ref: string) =>
    svc.ctx.db.selectFrom('customers').selectAll().where('account_id', '=', acct.accountId).where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
  const mandateSessions = async (ref: string) => {
    const c = await customerRow(ref);
    return svc.ctx.db.selectFrom('checkout_sessions').selectAll().where('account_id', '=', acct.accountId).where('customer_id', '=', c.id).where('purpose', '=', 'SPEND_MANDATE').orderBy('created_at').execute();
  };
  const pageOf = (url: string) => fake.list(STRIPE_KEY, 'checkout.session').find((s) => s.url === url)!;

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    svc.clock.set('2026-09-14T10:00:00Z');
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const free = await m.activePlan({ key: 'free', price: 0, features: [await m.feature()] });
    slug = `pages-${acct.accountId.slice(-8)}`;
    await setCatalogSettings(svc, acct, { slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: 1000 });
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    await settings({ agentMaxMandateAmount: '100', agentSpendMandateEnabled: true });
  });
  after(() => close());

  test('when a customer key asks for a mandate with a processor connected then 200 pending with a setup page, recorded as a SPEND_MANDATE session with its period and key', async () => {
    const { customerReferenceId: ref, apiKey } = await signup();
    const keyId = (await m.expectOk(m.client('GET', `/customers/${ref}/keys`))).items[0].id;
    const res = await ask(ref, apiKey, { max_amount: '25', currency: 'usd', period: 'Week' });
    assert.equal(res.status, 200, res.text);
    const { setup_url: url, ...rest } = res.body.data;
    assert.deepEqual(rest, { status: 'pending', max_amount: 25, currency: 'USD', period: 'week' });
    const page = pageOf(url);
    assert.equal(page.mode, 'setup');
    assert.equal(page.success_url, `${svc.baseUrl}/public/checkout/complete?kind=setup`);
    assert.equal(page.cancel_url, `${svc.baseUrl}/public/checkout/cancelled`);
    const [session] = await mandateSessions(ref);
    assert.deepEqual([session!.status, Number(session!.amount), session!.currency, session!.checkout_url], ['PENDING', 25, 'USD', url]);
    assert.equal(session!.expires_at?.toISOString(), new Date(svc.clock.now().getTime() + DAY_MS).toISOString(), "the processor's expiry");
    const row = await svc.ctx.db.selectFrom('spend_mandate_pages').selectAll().where('account_id', '=', acct.accountId).where('checkout_session_id', '=', session!.id).executeTakeFirstOrThrow();
    assert.deepEqual([row.period, row.api_key_id], ['week', keyId]);
    assert.deepEqual((await status(ref, apiKey)).spend_mandate, {
      status: 'pending', setup_url: url, max_amount: 25, spent: null, remaining: null, period: null, resets_at: null, currency: 'USD',
    });
  });

  test('when the principal completes the page then the mandate is active, the saved card the default, the customer claimed; the same completion again changes nothing', async () => {
    const { customerReferenceId: ref, apiKey } = await signup();
    assert.equal((await status(ref, apiKey)).status, 'provisional');
    const url = (await ask(ref, apiKey, { max_amount: 40, period: 'day' })).body.data.setup_url;
    const [session] = await mandateSessions(ref);
    const completed = fake.completeCheckout(STRIPE_KEY, pageOf(url).id, 'pm_card_visa', 'someone-else@example.com');
    const events = fake.pendingEvents(STRIPE_KEY);
    const deliveries = await fake.deliverWebhooks();
    assert.ok(deliveries.every((d) => d.status < 300), JSON.stringify(deliveries));
    const activatedAt = svc.clock.now();

    const s = await status(ref, apiKey);
    assert.deepEqual([s.status, s.expires_at, s.claimed_at], ['claimed', null, activatedAt.toISOString()]);
    assert.deepEqual(s.spend_mandate, {
      status: 'active', setup_url: null, max_amount: 40, spent: 0, remaining: 40, period: 'day', resets_at: new Date(activatedAt.getTime() + DAY_MS).toISOString(), currency: 'USD',
    });
    const intent = fake.get(STRIPE_KEY, completed.setup_intent as string)!;
    const card = await m.expectOk(m.client('GET', `/customers/${ref}/payment-methods/default`));
    assert.equal(card.paymentMethodId, intent.payment_method);
    const processorCustomer = fake.get(STRIPE_KEY, completed.customer as string)!;
    assert.equal((processorCustomer.invoice_settings as { default_payment_method: string }).default_payment_method, intent.payment_method);
    const view = await svc.http.get(`/api/v1/client/checkout-sessions/${session!.id}`, { auth: apiKey });
    assert.deepEqual([view.body.data.purpose, view.body.data.status, view.body.data.paymentMethodId], ['SPEND_MANDATE', 'COMPLETED', intent.payment_method]);
    assert.equal((await customerRow(ref)).email, 'agent-owner@example.com', 'an existing e-mail is kept');

    // Once per event id, and a second completion of the same page (another event id) changes nothing.
    svc.clock.advanceMs(3600_000);
    const before = await customerRow(ref);
    const endpoint = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!;
    const completion = events.find((e) => e.type === 'checkout.session.completed')!;
    assert.ok((await fake.deliver(completion, endpoint.url as string, endpoint.secret as string)).status < 300);
    fake.emitEvent(STRIPE_KEY, 'checkout.session.completed', (completion.data as { object: { id: string; object: string } }).object);
    await fake.deliverWebhooks();
    const again = await customerRow(ref);
    assert.deepEqual(
      [again.spend_mandate_amount, again.spend_mandate_period, again.spend_mandate_started_at, again.agent_claimed_at, again.modified_at],
      [before.spend_mandate_amount, before.spend_mandate_period, before.spend_mandate_started_at, before.agent_claimed_at, before.modified_at],
    );
    const outbound = await svc.ctx.db
      .selectFrom('outbound_events')
      .select('type')
      .where('account_id', '=', acct.accountId)
      .where('type', 'in', ['checkout.completed', 'customer.claimed'])
      .where((eb) => eb.or([eb('payload', 'like', `%${session!.id}%`), eb('payload', 'like', `%"customerReferenceId":"${ref}"%`)]))
      .execute();
    assert.deepEqual(outbound.map((e) => e.type).sort(), ['checkout.completed', 'customer.claimed'], 'each recorded once');
    svc.clock.advanceMs(-3600_000);
  });

  test('when a customer without an e-mail completes a page the tenant key opened then it takes the e-mail typed on the page, and so does its processor customer', async () => {
    // A customer an event created has no e-mail.
    const ref = `no-mail-${acct.accountId.slice(-6)}`;
    await m.event({ customerReferenceId: ref, featureKey: 'anything', usageUnits: 1 });
    assert.equal((await customerRow(ref)).email, null);
    const res = await ask(ref, acct.apiKey, { max_amount: 10 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'pending');
    const processorCustomer = pageOf(res.body.data.setup_url).customer as string;
    assert.equal(fake.get(STRIPE_KEY, processorCustomer)!.email, null);
    fake.completeCheckout(STRIPE_KEY, pageOf(res.body.data.setup_url).id, 'pm_card_visa', ' Principal@Example.COM ');
    await fake.deliverWebhooks();
    const row = await customerRow(ref);
    assert.equal(row.email, 'principal@example.com');
    assert.equal(fake.get(STRIPE_KEY, processorCustomer)!.email, 'principal@example.com', 'pushed after the webhook committed');
    assert.equal(row.agent_status, null, 'a customer not made by signup is not moved by the claim');
    assert.equal((await status(ref)).spend_mandate.status, 'active');
  });

  test("when a page expires unused then it is EXPIRED and the status reads expired; a raised mandate's page waits beside the active one", async () => {
    const { customerReferenceId: ref, apiKey } = await signup();
    const first = (await ask(ref, apiKey, { max_amount: 30 })).body.data.setup_url;
    fake.expireCheckout(STRIPE_KEY, pageOf(first).id);
    await fake.deliverWebhooks();
    assert.deepEqual((await mandateSessions(ref)).map((s) => s.status), ['EXPIRED']);
    assert.deepEqual((await status(ref, apiKey)).spend_mandate, {
      status: 'expired', setup_url: null, max_amount: 30, spent: null, remaining: null, period: null, resets_at: null, currency: 'USD',
    });
    const second = (await ask(ref, apiKey, { max_amount: 30 })).body.data.setup_url;
    fake.completeCheckout(STRIPE_KEY, pageOf(second).id);
    await fake.deliverWebhooks();
    const raise = (await ask(ref, apiKey, { max_amount: 60 })).body.data.setup_url;
    const s = (await status(ref, apiKey)).spend_mandate;
    assert.deepEqual([s.status, s.max_amount, s.setup_url], ['active', 30, raise], 'the active mandate, with the raised one waiting');
    fake.completeCheckout(STRIPE_KEY, pageOf(raise).id);
    await fake.deliverWebhooks();
    const raised = (await status(ref, apiKey)).spend_mandate;
    assert.deepEqual([raised.status, raised.max_amount, raised.setup_url, raised.period], ['active', 60, null, 'month'], 'the last completed wins');
  });

  test('when checkout.session.expired is missed then the hourly checkout-expiry job marks the page EXPIRED once its processor expiry has passed', async () => {
    const { customerReferenceId: ref, apiKey } = await signup();
    await ask(ref, apiKey, { max_amount: 5 });
    const start = svc.clock.now();
    try {
      svc.clock.set(new Date(start.getTime() + 23 * 3600_000));
      assert.equal((await svc.scheduler.run('checkout-expiry')).status, 'ran');
      assert.deepEqual((await mandateSessions(ref)).map((s) => s.status), ['PENDING'], 'not lapsed yet');
      svc.clock.set(new Date(start.getTime() + 25 * 3600_000));
      assert.equal((await svc.scheduler.run('checkout-expiry')).status, 'ran');
      assert.deepEqual((await mandateSessions(ref)).map((s) => s.status), ['EXPIRED']);
      assert.equal((await status(ref, apiKey)).spend_mandate.status, 'expired');
      assert.equal(fake.pendingEvents(STRIPE_KEY).filter((e) => e.type === 'checkout.session.expired').length, 0, 'no event was needed');
    } finally {
      svc.clock.set(start);
    }
  });

  test('when a signup asks for a mandate with a processor connected then its answer is pending with the page', async () => {
    const data = await signup({ spend_mandate: { max_amount: 12.5, period: 'month' } });
    assert.equal(data.spend_mandate.status, 'pending');
    assert.equal(pageOf(data.spend_mandate.setup_url).mode, 'setup');
    assert.deepEqual([data.spend_mandate.max_amount, data.spend_mandate.currency, data.spend_mandate.period], [12.5, 'USD', 'month']);
    const customer = await customerRow(data.customerReferenceId);
    const key = (await svc.ctx.db.selectFrom('api_keys').select('id').where('account_id', '=', acct.accountId).where('customer_id', '=', customer.id).executeTakeFirstOrThrow()).id;
    const [session] = await mandateSessions(data.customerReferenceId);
    const row = await svc.ctx.db.selectFrom('spend_mandate_pages').selectAll().where('account_id', '=', acct.accountId).where('checkout_session_id', '=', session!.id).executeTakeFirstOrThrow();
    assert.ok(row.api_key_id !== null && row.api_key_id === key, 'the signup key asked');
  });

  test('when the request is invalid then 400 opens nothing; mandate off, no ceiling, mode NONE or a refusing processor answer 200 unavailable', async () => {
    const { customerReferenceId: ref, apiKey } = await signup();
    const calls = fake.requests.length;
    const bad = await ask(ref, apiKey, { max_amount: 101 });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.error.message, "spend_mandate.max_amount 101.00 is above this account's limit of 100.00 USD; ask for 100.00 or less.");
    assert.equal(fake.requests.length, calls, 'no processor call');
    const unavailable = { status: 'unavailable', setup_url: null, max_amount: 5, currency: 'USD', period: 'month' };

    fake.failNext({ method: 'POST', path: '/v1/checkout/sessions' }, { status: 400, body: { type: 'invalid_request_error', message: 'No such customer' } });
    const refused = await ask(ref, apiKey, { max_amount: 5 });
    assert.equal(refused.status, 200, refused.text);
    assert.deepEqual(refused.body.data, unavailable);
    assert.deepEqual((await mandateSessions(ref)).map((s) => [s.status, s.checkout_url]), [['EXPIRED', null]]);
    assert.equal((await status(ref, apiKey)).spend_mandate.status, 'none', 'a page that never opened is not shown');

    await settings({ agentSpendMandateEnabled: false });
    assert.deepEqual((await ask(ref, apiKey, { max_amount: 5 })).body.data, unavailable);
    await settings({ stripeMode: 'NONE', agentSpendMandateEnabled: true });
    assert.deepEqual((await ask(ref, apiKey, { max_amount: 5 })).body.data, unavailable);
    await settings({ stripeMode: 'PAYMENT_PASS_THROUGH', agentSpendMandateEnabled: false, agentMaxMandateAmount: '0' });
    assert.deepEqual((await ask(ref, apiKey, { max_amount: 5 })).body.data, unavailable, 'no ceiling');
    assert.equal((await mandateSessions(ref)).length, 1, 'no page opened');
    await settings({ agentMaxMandateAmount: '100', agentSpendMandateEnabled: true });
  });
});
