import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyPaidUpgradesPI0048';

type Obj = Record<string, any>;

/**
 * Paid upgrades where the processor drives billing (api-contract-agent-v2.md §4.8,
 * PROCESSOR_INTEGRATION): Stripe charges the subscription's card for its proration and applies the
 * new price only once paid; a customer key's off-session charge is checked and reserved against its
 * budget first; an unpaid proration invoice is the page of the 402 gate, and cancelling the waiting
 * upgrade voids it at Stripe.
 */
describe(`paid upgrades where the processor drives billing (§4.8) on ${backend}`, () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let m: ReturnType<typeof monetization>;
  let basic: Obj;
  let pro: Obj;

  const deliverAll = async () => {
    const deliveries = await fake.deliverWebhooks();
    assert.deepEqual(deliveries.filter((d) => d.status !== 201), [], 'every delivery is accepted');
  };
  const stripeSubscriptionOf = (subscriptionId: string) => fake.list(STRIPE_KEY, 'subscription').find((s) => (s.metadata as Obj).tally_subscription_id === subscriptionId)!;
  const stripeInvoice = (id: string) => fake.list(STRIPE_KEY, 'invoice').find((i) => i.id === id)!;
  const asKey = (key: string, method: string, path: string, body?: unknown) => svc.http.request(method, `/api/v1/client${path}`, { auth: key, ...(body === undefined ? {} : { body }) });
  const upgrade = (key: string, id: string) => asKey(key, 'POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
  const subscription = async (ref: string, id: string): Promise<Obj> => ((await m.expectOk(m.client('GET', `/customers/${ref}`))).subscriptions as Obj[]).find((s) => s.id === id)!;
  const budget = async (ref: string, keyId: string) => m.expectOk(m.client('GET', `/customers/${ref}/keys/${keyId}/budget`));
  /** A customer with a card, subscribed to basic at Stripe, and one of its keys with a MONTH money budget. */
  const subscribedWithKey = async (ref: string, amountLimit: number) => {
    await m.customer(ref);
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: ref, planId: basic.id, paymentMethodId: 'pm_card_visa' });
    assert.equal(res.status, 201, res.text);
    await deliverAll();
    const k = await m.expectOk(m.client('POST', `/customers/${ref}/keys`, { scopes: ['read', 'purchase'] }), 201);
    await m.expectOk(m.client('PUT', `/customers/${ref}/keys/${k.id}/budget`, { period: 'MONTH', amountLimit }));
    return { id: res.body.data.subscription.id as string, keyId: k.id as string, key: k.apiKey as string };
  };

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    const acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const feature = await m.feature();
    basic = await m.activePlan({ price: 30, features: [{ id: feature.id }] });
    pro = await m.activePlan({ price: 60, features: [{ id: feature.id }] });
    await connectStripe(m, STRIPE_KEY, 'PROCESSOR_INTEGRATION');
  });
  after(() => close());

  test('when a customer key upgrades and Stripe charges the card then 200, the plan moves and the key budget counts the proration', async () => {
    const s = await subscribedWithKey('pi_paid', 100);
    const res = await upgrade(s.key, s.id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.subscription.plan.id, pro.id);
    assert.deepEqual([res.body.data.invoice.type, res.body.data.invoice.status, res.body.data.invoice.amount], ['ADJUSTMENT', 'PAID', 30]);
    assert.match(fake.calls(`/v1/subscriptions/${stripeSubscriptionOf(s.id).id}`, 'POST').at(-1)!.idempotencyKey ?? '', /^tally-plan-change-/);
    await deliverAll();
    assert.equal((await subscription('pi_paid', s.id)).plan.id, pro.id);
    assert.equal((await budget('pi_paid', s.keyId)).amountSpent, 30);
  });

  test('when the card is declined then 402 with the proration invoice as the gate url, the reservation given back; a retry answers the same invoice; paying it moves the plan and counts once', async () => {
    const s = await subscribedWithKey('pi_declined', 100);
    fake.setCard(STRIPE_KEY, stripeSubscriptionOf(s.id).default_payment_method as string, 'declined');
    const res = await upgrade(s.key, s.id);
    assert.equal(res.status, 402, res.text);
    const e = res.body.error;
    assert.deepEqual([e.code, e.gate, e.action, e.retry_after], ['payment_required', 'payment', 'complete_checkout', null]);
    const proration = stripeInvoice(stripeSubscriptionOf(s.id).latest_invoice as string);
    assert.deepEqual([proration.status, proration.billing_reason], ['open', 'subscription_update']);
    assert.equal(e.url, proration.hosted_invoice_url);
    assert.equal(res.body.data.checkoutUrl, proration.hosted_invoice_url);
    assert.ok(e.poll.endsWith('/api/v1/client/customers/pi_declined/status'), e.poll);
    assert.equal(res.body.data.subscription.plan.id, basic.id);
    assert.deepEqual([res.body.data.subscription.scheduledChange.type, res.body.data.subscription.scheduledChange.status], ['UPGRADE', 'PENDING']);
    assert.deepEqual([res.body.data.invoice.type, res.body.data.invoice.status, res.body.data.invoice.amount], ['ADJUSTMENT', 'DUE', 30]);
    assert.equal((await budget('pi_declined', s.keyId)).amountSpent, 0, 'a declined charge spends nothing yet');

    const updates = fake.calls(`/v1/subscriptions/${stripeSubscriptionOf(s.id).id}`, 'POST').length;
    const invoices = fake.list(STRIPE_KEY, 'invoice').length;
    const again = await upgrade(s.key, s.id);
    assert.equal(again.status, 402, again.text);
    assert.equal(again.body.data.invoice.id, res.body.data.invoice.id);
    assert.equal(again.body.error.url, e.url);
    assert.equal(fake.calls(`/v1/subscriptions/${stripeSubscriptionOf(s.id).id}`, 'POST').length, updates, 'the change is not sent again');
    assert.equal(fake.list(STRIPE_KEY, 'invoice').length, invoices);

    fake.payInvoice(STRIPE_KEY, proration.id as string);
    await deliverAll();
    await deliverAll();
    const ours = await subscription('pi_declined', s.id);
    assert.deepEqual([ours.plan.id, ours.scheduledChange], [pro.id, null]);
    assert.equal((await budget('pi_declined', s.keyId)).amountSpent, 30, 'the hosted payment counts once, when paid');
  });

  test('when a waiting upgrade is cancelled then its proration invoice is voided at Stripe and here, the price stays, and the key holds nothing', async () => {
    const s = await subscribedWithKey('pi_cancel', 100);
    fake.setCard(STRIPE_KEY, stripeSubscriptionOf(s.id).default_payment_method as string, 'declined');
    const res = await upgrade(s.key, s.id);
    assert.equal(res.status, 402, res.text);
    const prorationId = stripeSubscriptionOf(s.id).latest_invoice as string;
    const cancel = await asKey(s.key, 'DELETE', `/subscriptions/${s.id}/plan-change/scheduled`);
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal(stripeInvoice(prorationId).status, 'void');
    assert.equal(stripeSubscriptionOf(s.id).pending_update, null);
    assert.equal((stripeSubscriptionOf(s.id).items as Obj).data[0].price.unit_amount, 3000);
    await deliverAll();
    const ours = await subscription('pi_cancel', s.id);
    assert.deepEqual([ours.plan.id, ours.scheduledChange], [basic.id, null]);
    const invoices = (await m.invoices('pi_cancel')).items.filter((i: Obj) => i.type === 'ADJUSTMENT');
    assert.deepEqual(invoices.map((i: Obj) => [i.id, i.status]), [[res.body.data.invoice.id, 'VOID']]);
    assert.equal((await budget('pi_cancel', s.keyId)).amountSpent, 0);
    const spends = await svc.ctx.db.selectFrom('api_key_spend').selectAll().where('key_id', '=', s.keyId).execute();
    assert.deepEqual(spends, []);
  });

  test('when the proration is above the key\'s whole money budget then 403 spend_cap_exceeded raise_spend_cap before any Stripe call', async () => {
    const s = await subscribedWithKey('pi_refused', 10);
    const calls = fake.requests.length;
    const res = await upgrade(s.key, s.id);
    assert.equal(res.status, 403, res.text);
    assert.deepEqual([res.body.error.code, res.body.error.action], ['spend_cap_exceeded', 'raise_spend_cap']);
    assert.equal(fake.requests.length, calls);
    const ours = await subscription('pi_refused', s.id);
    assert.deepEqual([ours.plan.id, ours.scheduledChange], [basic.id, null]);
  });
});
