import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyProcessorPayments0005';

type Obj = Record<string, any>;
type Event = { id: string; type: string; createdAt: string; data: Obj & { object: Obj } };

const PAYMENT_FIELDS = ['id', 'status', 'purpose', 'customerReferenceId', 'amount', 'currency', 'processorPaymentId', 'invoiceId', 'checkoutSessionId', 'grantId', 'subscriptionId', 'declineReason', 'createdAt'];

/**
 * Outbound events where the processor drives billing (issue 33, §E5.3–§E5.5, PROCESSOR_INTEGRATION),
 * the paths the first tests left out: a mirrored invoice voided or written off at the processor, its
 * failed and later successful payment (one Payment id for one processor payment), the processor's
 * plan change, and a declined card at subscribe. Each is recorded once, however often the processor's
 * webhooks arrive.
 */
describe('processor-driven payment and invoice events (issue 33)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let m: ReturnType<typeof monetization>;
  let basic: Obj;
  let pro: Obj;

  const deliverAll = async () => {
    const deliveries = await fake.deliverWebhooks();
    assert.deepEqual(deliveries.filter((d) => d.status !== 201).map((d) => [d.type, d.status]), [], 'every delivery is accepted');
    return deliveries;
  };
  /** Delivers what is pending, then every one of those events a second time. */
  const deliverTwice = async () => {
    const pending = fake.pendingEvents(STRIPE_KEY);
    await deliverAll();
    const endpoint = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!;
    for (const event of pending) assert.equal((await fake.deliver(event, endpoint.url as string, endpoint.secret as string)).status, 201);
  };
  const events = async (): Promise<Event[]> => {
    const res = await m.api('GET', '/api/v1/webhooks/events?limit=200');
    assert.equal(res.status, 200, res.text);
    return (res.body.data.items as Event[]).slice().sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  };
  const stripeSubscriptionOf = (subscriptionId: string) => fake.list(STRIPE_KEY, 'subscription').find((s) => (s.metadata as Obj).tally_subscription_id === subscriptionId)!;
  /** A customer subscribed to `basic` at the processor with a card; our subscription id. */
  const subscribed = async (ref: string): Promise<string> => {
    await m.customer(ref);
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: ref, planId: basic.id, paymentMethodId: 'pm_card_visa' });
    assert.equal(res.status, 201, res.text);
    await deliverAll();
    return res.body.data.subscription.id;
  };
  /** A processor invoice of the subscription for its next period (as processor-invoices.test.ts builds them). */
  const renewal = (stripeSub: Obj, id: string, status: string, extra: Obj = {}) => {
    const item = stripeSub.items.data[0];
    const [start, end] = [item.current_period_end as number, (2 * item.current_period_end - item.current_period_start) as number];
    return {
      id, object: 'invoice', customer: stripeSub.customer, status, currency: 'usd', billing_reason: 'subscription_cycle', created: start, due_date: null,
      total: 3000, amount_due: 3000, period_start: start, period_end: start, metadata: {},
      parent: { type: 'subscription_details', subscription_details: { subscription: stripeSub.id, metadata: stripeSub.metadata } },
      lines: { object: 'list', data: [{ id: `il_${id}`, object: 'line_item', amount: 3000, currency: 'usd', description: 'Renewal', period: { start, end } }] },
      ...extra,
    };
  };

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    m = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature();
    basic = await m.activePlan({ price: 30, features: [{ id: feature.id }] });
    pro = await m.activePlan({ price: 60, features: [{ id: feature.id }] });
    await connectStripe(m, STRIPE_KEY, 'PROCESSOR_INTEGRATION');
  });
  after(() => close());

  test('when the processor voids a mirrored invoice then invoice.voided is recorded once, with the VOID invoice', async () => {
    const id = await subscribed('pv_void');
    const stripeSub = stripeSubscriptionOf(id);
    fake.emitEvent(STRIPE_KEY, 'invoice.created', renewal(stripeSub, 'in_pv_void', 'open'));
    fake.emitEvent(STRIPE_KEY, 'invoice.voided', renewal(stripeSub, 'in_pv_void', 'void'));
    await deliverTwice();
    const voided = (await events()).filter((e) => e.type === 'invoice.voided' && e.data.object.subscriptionId === id);
    assert.equal(voided.length, 1);
    assert.deepEqual([voided[0]!.data.object.status, voided[0]!.data.object.type, voided[0]!.data.object.amount], ['VOID', 'REGULAR', 30]);
    const created = (await events()).filter((e) => e.type === 'invoice.created' && e.data.object.id === voided[0]!.data.object.id);
    assert.equal(created.length, 1, 'the mirror records invoice.created once');
  });

  test('when the processor marks a mirrored invoice uncollectible then invoice.past_due and subscription.past_due once; its failed and its later successful payment share one Payment id', async () => {
    const id = await subscribed('pv_unpaid');
    const stripeSub = stripeSubscriptionOf(id);
    const pi = 'pi_pv_renewal_0001';
    fake.emitEvent(STRIPE_KEY, 'invoice.created', renewal(stripeSub, 'in_pv_unpaid', 'open', { payment_intent: pi }));
    fake.emitEvent(STRIPE_KEY, 'invoice.payment_failed', renewal(stripeSub, 'in_pv_unpaid', 'open', { payment_intent: pi }));
    fake.emitEvent(STRIPE_KEY, 'invoice.marked_uncollectible', renewal(stripeSub, 'in_pv_unpaid', 'uncollectible', { payment_intent: pi }));
    await deliverTwice();
    let mine = (await events()).filter((e) => e.data.object.id === id || e.data.object.subscriptionId === id);
    const invoiceId = mine.find((e) => e.type === 'invoice.past_due')!.data.object.id as string;
    const ofRenewal = (list: Event[]) => list.filter((e) => e.data.object.id === invoiceId || e.data.object.invoiceId === invoiceId || e.type === 'subscription.past_due');
    assert.deepEqual(ofRenewal(mine).map((e) => e.type), ['invoice.created', 'invoice.finalized', 'payment.failed', 'invoice.past_due', 'subscription.past_due']);
    const pastDue = mine.find((e) => e.type === 'subscription.past_due')!;
    assert.equal(pastDue.data.invoice.id, invoiceId);
    assert.equal(pastDue.data.invoice.status, 'PAST_DUE');
    const failed = mine.find((e) => e.type === 'payment.failed')!.data.object;
    assert.deepEqual(Object.keys(failed).sort(), PAYMENT_FIELDS.slice().sort());
    assert.deepEqual(
      [failed.status, failed.purpose, failed.customerReferenceId, failed.amount, failed.currency, failed.processorPaymentId, failed.invoiceId, failed.subscriptionId, failed.grantId],
      ['FAILED', 'INVOICE', 'pv_unpaid', 30, 'USD', pi, invoiceId, id, null],
    );
    assert.equal(typeof failed.declineReason, 'string');

    fake.emitEvent(STRIPE_KEY, 'invoice.paid', renewal(stripeSub, 'in_pv_unpaid', 'paid', { payment_intent: pi }));
    fake.emitEvent(STRIPE_KEY, 'invoice.payment_succeeded', renewal(stripeSub, 'in_pv_unpaid', 'paid', { payment_intent: pi }));
    await deliverTwice();
    mine = ofRenewal((await events()).filter((e) => e.data.object.id === id || e.data.object.subscriptionId === id));
    assert.deepEqual(mine.map((e) => e.type), ['invoice.created', 'invoice.finalized', 'payment.failed', 'invoice.past_due', 'subscription.past_due', 'payment.succeeded', 'invoice.paid']);
    const succeeded = mine.find((e) => e.type === 'payment.succeeded')!.data.object;
    assert.equal(succeeded.id, failed.id, 'one processor payment, one Payment id');
    assert.deepEqual([succeeded.status, succeeded.processorPaymentId, succeeded.declineReason], ['SUCCEEDED', pi, null]);
  });

  test('when the processor bills an upgrade then subscription.plan_changed is recorded once, with the previous plan and UPGRADE, after the proration is paid', async () => {
    const id = await subscribed('pv_up');
    const res = await m.client('POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(res.status, 200, res.text);
    await deliverTwice();
    const mine = (await events()).filter((e) => e.data.object.id === id || e.data.object.subscriptionId === id);
    const changed = mine.filter((e) => e.type === 'subscription.plan_changed');
    assert.equal(changed.length, 1);
    assert.equal(changed[0]!.data.changeType, 'UPGRADE');
    assert.equal(changed[0]!.data.previousPlan.id, basic.id);
    assert.equal(changed[0]!.data.object.plan.id, pro.id);
    const adjustment = mine.filter((e) => e.type === 'payment.succeeded' && e.data.object.purpose === 'INVOICE');
    assert.equal(adjustment.length, 1, "the proration's payment, once");
    assert.equal(adjustment[0]!.data.object.amount, 30);
  });

  test('when the upgrade charge is declined then the mirrored proration invoice records payment.failed once, and no plan change until it is paid', async () => {
    const id = await subscribed('pv_up_declined');
    fake.setCard(STRIPE_KEY, stripeSubscriptionOf(id).default_payment_method as string, 'declined');
    const res = await m.client('POST', `/subscriptions/${id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(res.status, 202, res.text);
    await deliverTwice();
    let mine = (await events()).filter((e) => e.data.object.id === id || e.data.object.subscriptionId === id);
    const failed = mine.filter((e) => e.type === 'payment.failed');
    assert.equal(failed.length, 1);
    assert.deepEqual([failed[0]!.data.object.invoiceId, failed[0]!.data.object.subscriptionId, failed[0]!.data.object.amount], [res.body.data.invoice.id, id, 30]);
    assert.equal(mine.filter((e) => e.type === 'subscription.plan_changed').length, 0);

    fake.payInvoice(STRIPE_KEY, stripeSubscriptionOf(id).latest_invoice as string);
    await deliverTwice();
    mine = (await events()).filter((e) => e.data.object.id === id || e.data.object.subscriptionId === id);
    assert.equal(mine.filter((e) => e.type === 'subscription.plan_changed').length, 1);
  });

  test('when the card given at subscribe is declined then payment.failed is recorded with the fallback checkout session; nothing else', async () => {
    await m.customer('pv_declined');
    const before = (await events()).length;
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'pv_declined', planId: basic.id, paymentMethodId: 'pm_card_chargeDeclined' });
    assert.equal(res.status, 201, res.text);
    const sessionId = res.body.data.checkoutSessionId as string;
    assert.ok(sessionId);
    await deliverTwice();
    const added = (await events()).slice(before).filter((e) => e.type !== 'customer.created');
    assert.deepEqual(added.map((e) => e.type), ['payment.failed']);
    const payment = added[0]!.data.object;
    assert.deepEqual(Object.keys(payment).sort(), PAYMENT_FIELDS.slice().sort());
    assert.deepEqual(
      [payment.status, payment.purpose, payment.customerReferenceId, payment.amount, payment.currency, payment.checkoutSessionId, payment.invoiceId, payment.subscriptionId, payment.declineReason],
      ['FAILED', 'SUBSCRIPTION', 'pv_declined', 30, 'USD', sessionId, null, null, 'off-session charge declined'],
    );
  });
});
