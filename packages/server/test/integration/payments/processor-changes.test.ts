import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyProcessorChanges0004';

type Obj = Record<string, any>;

/**
 * Cancel and plan change through our API where the processor drives billing (contract §4.5, §6.3):
 * the request reaches the Stripe subscription, our state follows from Stripe's answer and its
 * webhooks (either order, repeats change nothing), and a Stripe failure leaves ours as it was.
 */
describe('cancel and plan change reach Stripe (PROCESSOR_INTEGRATION)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let m: ReturnType<typeof monetization>;
  let basic: Obj;
  let pro: Obj;
  let close: () => Promise<void>;

  const deliverAll = async () => {
    const deliveries = await fake.deliverWebhooks();
    assert.deepEqual(deliveries.filter((d) => d.status !== 201), [], 'every delivery is accepted');
    return deliveries;
  };
  const stripeSubscriptionOf = (subscriptionId: string) => {
    const found = fake.list(STRIPE_KEY, 'subscription').filter((s) => (s.metadata as Obj).tally_subscription_id === subscriptionId);
    assert.equal(found.length, 1);
    return found[0]!;
  };
  const itemPrice = (stripeSub: Obj) => stripeSub.items.data[0].price;
  const subscription = async (ref: string, id: string): Promise<Obj> => ((await m.expectOk(m.client('GET', `/customers/${ref}`))).subscriptions as Obj[]).find((s) => s.id === id)!;
  /** A customer with a saved card subscribed to `basic` at Stripe; the webhooks delivered. */
  const subscribed = async (ref: string): Promise<string> => {
    await m.customer(ref);
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: ref, planId: basic.id, paymentMethodId: 'pm_card_visa' });
    assert.equal(res.status, 201, res.text);
    await deliverAll();
    return res.body.data.subscription.id;
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

  test('when a subscription is cancelled at period end then Stripe cancels at period end, ours is CANCEL_SCHEDULED, and undo reaches Stripe too', async () => {
    const id = await subscribed('eop');
    const res = await m.client('POST', `/subscriptions/cancellation/${id}?cancelMode=END_OF_PERIOD`);
    assert.equal(res.status, 200, res.text);
    const stripeSub = stripeSubscriptionOf(id);
    assert.equal(stripeSub.cancel_at_period_end, true);
    assert.equal(stripeSub.status, 'active');
    let ours = await subscription('eop', id);
    assert.equal(ours.status, 'CANCEL_SCHEDULED');
    assert.equal(ours.cancelMode, 'END_OF_PERIOD');
    assert.equal(new Date(ours.cancelEffectiveAt).getTime(), (stripeSub.items as Obj).data[0].current_period_end * 1000);
    await deliverAll();
    assert.equal((await subscription('eop', id)).status, 'CANCEL_SCHEDULED');

    const undo = await m.client('DELETE', `/subscriptions/cancellation/${id}/scheduled`);
    assert.equal(undo.status, 200, undo.text);
    assert.equal(stripeSubscriptionOf(id).cancel_at_period_end, false);
    await deliverAll();
    ours = await subscription('eop', id);
    assert.equal(ours.status, 'ACTIVE');
    assert.equal(ours.cancelEffectiveAt, null);
  });

  test('when a subscription is cancelled immediately then Stripe cancels it with a prorated credit, ours ends, and the credit mirrors once as a CREDIT invoice', async () => {
    const id = await subscribed('now');
    const res = await m.client('POST', `/subscriptions/cancellation/${id}?cancelMode=IMMEDIATE`);
    assert.equal(res.status, 200, res.text);
    assert.equal(stripeSubscriptionOf(id).status, 'canceled');
    const ours = await subscription('now', id);
    assert.deepEqual([ours.status, ours.isActive, ours.cancelMode], ['CANCELLED', false, 'IMMEDIATE']);
    const events = fake.pendingEvents(STRIPE_KEY);
    await deliverAll();
    const endpoint = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!;
    for (const event of events) assert.equal((await fake.deliver(event, endpoint.url as string, endpoint.secret as string)).status, 201);
    const invoices = (await m.invoices('now')).items.map((i: Obj) => [i.type, i.status, i.amount]).sort();
    assert.deepEqual(invoices, [['CREDIT', 'PAID', -30], ['IN_ADVANCE_INITIAL', 'PAID', 30]]);
    // Cancelling again is refused before Stripe is called.
    const calls = fake.requests.length;
    const again = await m.client('POST', `/subscriptions/cancellation/${id}?cancelMode=IMMEDIATE`);
    assert.equal(again.status, 400, again.text);
    assert.equal(fake.requests.length, calls);
  });

  test('when a subscription is upgraded then Stripe prorates and charges now, ours swaps once the proration is paid, and the answer carries the mirrored ADJUSTMENT invoice', async () => {
    const id = await subscribed('up');
    const res = await m.client('POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.subscription.plan.id, pro.id);
    assert.equal(res.body.data.subscription.scheduledChange, null);
    assert.deepEqual([res.body.data.invoice.type, res.body.data.invoice.status, res.body.data.invoice.amount], ['ADJUSTMENT', 'PAID', 30]);
    const stripeSub = stripeSubscriptionOf(id);
    assert.equal(itemPrice(stripeSub).unit_amount, 6000);
    const update = fake.calls(`/v1/subscriptions/${stripeSub.id}`, 'POST').at(-1)!;
    assert.equal(update.body.proration_behavior, 'always_invoice');
    assert.equal(update.body.payment_behavior, 'pending_if_incomplete');
    assert.match(update.idempotencyKey ?? '', /^tally-plan-change-/);
    await deliverAll();
    const invoices = (await m.invoices('up')).items.map((i: Obj) => [i.type, i.status, i.amount]).sort();
    assert.deepEqual(invoices, [['ADJUSTMENT', 'PAID', 30], ['IN_ADVANCE_INITIAL', 'PAID', 30]]);
    assert.equal((await subscription('up', id)).plan.id, pro.id);
  });

  test('when the upgrade charge is declined then Stripe keeps the old price, the tenant gets 202 payment_pending with the proration invoice to pay, and paying it completes the swap', async () => {
    const id = await subscribed('declined');
    const stripeSub = stripeSubscriptionOf(id);
    fake.setCard(STRIPE_KEY, stripeSub.default_payment_method as string, 'declined');
    const res = await m.client('POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.data.status, 'payment_pending');
    assert.equal(res.body.data.paymentUrl, fake.list(STRIPE_KEY, 'invoice').find((i) => i.id === stripeSubscriptionOf(id).latest_invoice)!.hosted_invoice_url);
    assert.equal(res.body.data.subscription.plan.id, basic.id);
    assert.deepEqual([res.body.data.subscription.scheduledChange.type, res.body.data.subscription.scheduledChange.status], ['UPGRADE', 'PENDING']);
    assert.deepEqual([res.body.data.invoice.type, res.body.data.invoice.status], ['ADJUSTMENT', 'DUE']);
    assert.equal(itemPrice(stripeSubscriptionOf(id)).unit_amount, 3000);
    await deliverAll();
    assert.equal((await subscription('declined', id)).plan.id, basic.id);

    fake.payInvoice(STRIPE_KEY, stripeSubscriptionOf(id).latest_invoice as string);
    await deliverAll();
    const ours = await subscription('declined', id);
    assert.equal(ours.plan.id, pro.id);
    assert.equal(ours.scheduledChange, null);
    const adjustments = (await m.invoices('declined')).items.filter((i: Obj) => i.type === 'ADJUSTMENT');
    assert.deepEqual(adjustments.map((i: Obj) => i.status), ['PAID']);
  });

  test('when a subscription is downgraded then Stripe bills the new price from the next period without proration, and ours swaps when that period starts', async () => {
    const id = await subscribed('down');
    const up = await m.client('POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(up.status, 200, up.text);
    await deliverAll();
    const invoicesBefore = fake.list(STRIPE_KEY, 'invoice').length;
    const res = await m.client('POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: basic.id, changeType: 'DOWNGRADE' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.invoice, null);
    assert.equal(res.body.data.subscription.plan.id, pro.id);
    assert.deepEqual([res.body.data.subscription.scheduledChange.type, res.body.data.subscription.scheduledChange.status], ['DOWNGRADE', 'PENDING']);
    const stripeSub = stripeSubscriptionOf(id);
    assert.equal(itemPrice(stripeSub).unit_amount, 3000);
    assert.equal(fake.calls(`/v1/subscriptions/${stripeSub.id}`, 'POST').at(-1)!.body.proration_behavior, 'none');
    assert.equal(fake.list(STRIPE_KEY, 'invoice').length, invoicesBefore);
    await deliverAll();
    assert.equal((await subscription('down', id)).plan.id, pro.id);

    // Stripe renews the subscription: the next period starts, billed at the new price.
    const item = (stripeSub.items as Obj).data[0];
    const length = item.current_period_end - item.current_period_start;
    Object.assign(item, { current_period_start: item.current_period_end, current_period_end: item.current_period_end + length });
    svc.clock.advanceMs(length * 1000);
    fake.emitEvent(STRIPE_KEY, 'customer.subscription.updated', stripeSub);
    await deliverAll();
    const ours = await subscription('down', id);
    assert.equal(ours.plan.id, basic.id);
    assert.equal(ours.scheduledChange, null);
    assert.equal(new Date(ours.currentPeriodStart).getTime(), item.current_period_start * 1000);
  });

  test('when a scheduled downgrade is undone then Stripe goes back to the current price and the change is cancelled', async () => {
    const id = await subscribed('undo');
    const down = await m.client('POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: pro.id, changeType: 'DOWNGRADE' });
    assert.equal(down.status, 200, down.text);
    assert.equal(itemPrice(stripeSubscriptionOf(id)).unit_amount, 6000);
    const res = await m.client('DELETE', `/subscriptions/${id}/plan-change/scheduled`);
    assert.equal(res.status, 200, res.text);
    assert.equal(itemPrice(stripeSubscriptionOf(id)).unit_amount, 3000);
    await deliverAll();
    const ours = await subscription('undo', id);
    assert.equal(ours.plan.id, basic.id);
    assert.equal(ours.scheduledChange, null);
  });

  test('when Stripe fails a cancel or a plan change then 502 and ours follows what Stripe did; a customer key of another customer is refused before Stripe', async () => {
    const id = await subscribed('fails');
    fake.failNext({ method: 'POST', path: '/v1/subscriptions/' }, { status: 500 });
    const res = await m.client('POST', `/subscriptions/cancellation/${id}?cancelMode=END_OF_PERIOD`);
    assert.equal(res.status, 502, res.text);
    assert.equal(res.body.error.code, 'vendor_error');
    assert.equal((await subscription('fails', id)).status, 'ACTIVE');
    assert.equal(stripeSubscriptionOf(id).cancel_at_period_end, false);

    // A plan change that fails before Stripe was asked to change anything is FAILED, not left scheduled.
    fake.failNext({ method: 'GET', path: '/v1/subscriptions/' }, { status: 500 });
    const change = await m.client('POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(change.status, 502, change.text);
    const unchanged = await subscription('fails', id);
    assert.deepEqual([unchanged.plan.id, unchanged.scheduledChange], [basic.id, null]);
    // Stripe's answer to the change itself lost: the change stays PENDING until Stripe's webhook shows the new price.
    fake.failNext({ method: 'POST', path: `/v1/subscriptions/${stripeSubscriptionOf(id).id}` }, { status: 500, lostAnswer: true });
    const lost = await m.client('POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(lost.status, 502, lost.text);
    assert.equal((await subscription('fails', id)).scheduledChange.status, 'PENDING');
    assert.equal(itemPrice(stripeSubscriptionOf(id)).unit_amount, 6000);
    await deliverAll();
    const upgraded = await subscription('fails', id);
    assert.deepEqual([upgraded.plan.id, upgraded.scheduledChange], [pro.id, null]);

    await m.customer('stranger');
    const key = await m.customerKey('stranger');
    const calls = fake.requests.length;
    const foreign = await svc.http.request('POST', `/api/v1/client/subscriptions/cancellation/${id}?cancelMode=IMMEDIATE`, { auth: key });
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal(fake.requests.length, calls);
  });
});
