import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyProcessorIntegration0003';

type Obj = Record<string, any>;

/**
 * PROCESSOR_INTEGRATION (contract §4.5, §5.4–5.5): the processor drives billing. Plans sync to a
 * product and price, paid subscribes create processor subscriptions (or a subscription checkout),
 * webhooks create, sync and cancel ours and mirror invoices, and the cycle jobs leave the account alone.
 */
describe('processor-driven billing (PROCESSOR_INTEGRATION)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  let planId: string;
  let featureKey: string;

  const subscribeAs = (key: string, body: Obj) => svc.http.request('POST', '/api/v1/client/subscriptions', { auth: key, body });
  const subscriptionsOf = async (ref: string): Promise<Obj[]> => (await m.expectOk(m.client('GET', `/customers/${ref}`))).subscriptions ?? [];
  const stripeSubscriptionsOf = (subscriptionId: string) => fake.list(STRIPE_KEY, 'subscription').filter((s) => (s.metadata as Obj).tally_subscription_id === subscriptionId);
  const deliverAll = async () => {
    const deliveries = await fake.deliverWebhooks();
    assert.deepEqual(deliveries.filter((d) => d.status !== 201), [], 'every delivery is accepted');
    return deliveries;
  };
  const saveCard = async (ref: string) => {
    const intent = await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-intent`));
    fake.confirmSetupIntent(STRIPE_KEY, intent.setup_intent_id);
    await deliverAll();
  };
  const stripeApi = (method: string, path: string) => fetch(`${fake.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${STRIPE_KEY}` } });

  let close: () => Promise<void>;

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const feature = await m.feature();
    featureKey = feature.key;
    planId = (await m.activePlan({ price: 30, features: [{ id: feature.id }] })).id;
    await connectStripe(m, STRIPE_KEY, 'STRIPE_INTEGRATION');
  });
  after(() => close());

  test('when the tenant subscribes a customer with a saved card then 201 with an active subscription, one Stripe subscription on the synced price, and the first invoice mirrored PAID once', async () => {
    await m.customer('carded');
    await saveCard('carded');
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'carded', planId });
    assert.equal(res.status, 201, res.text);
    const subscription = res.body.data.subscription;
    assert.equal(subscription.status, 'ACTIVE');
    assert.equal(subscription.isActive, true);
    const [stripeSub, ...others] = stripeSubscriptionsOf(subscription.id);
    assert.equal(others.length, 0);
    assert.equal(stripeSub!.status, 'active');
    const price = (stripeSub!.items as Obj).data[0].price;
    assert.deepEqual([price.unit_amount, price.currency, price.recurring.interval, price.recurring.interval_count], [3000, 'usd', 'month', 1]);
    assert.equal(fake.list(STRIPE_KEY, 'product').length, 1);

    await deliverAll();
    const invoices = (await m.invoices('carded')).items;
    assert.deepEqual(invoices.map((i: Obj) => [i.status, i.amount, i.type, i.subscriptionId]), [['PAID', 30, 'IN_ADVANCE_INITIAL', subscription.id]]);
    const subs = await subscriptionsOf('carded');
    assert.deepEqual(subs.map((s) => [s.id, s.status]), [[subscription.id, 'ACTIVE']]);
    // The subscription's period is the processor's (items.data[].current_period_*).
    assert.equal(new Date(subs[0]!.currentPeriodStart).getTime(), (stripeSub!.items as Obj).data[0].current_period_start * 1000);
  });

  test('when a second customer subscribes with a supplied card then the plan product and price are reused', async () => {
    await m.customer('supplied');
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'supplied', planId, paymentMethodId: 'pm_card_visa' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.subscription.status, 'ACTIVE');
    assert.equal(fake.list(STRIPE_KEY, 'product').length, 1);
    // The base price and the metered price of the plan's one usage-priced feature.
    assert.equal(fake.list(STRIPE_KEY, 'price').length, 2);
    await deliverAll();
  });

  test('when a customer with an active subscription subscribes again then 400 and Stripe is not called', async () => {
    const calls = fake.requests.length;
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'carded', planId });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error.message, /^STRIPE_INTEGRATION accounts only support one active subscription per customer\. \S/);
    assert.equal(fake.requests.length, calls);
  });

  test('when a customer key subscribes without a card then 402 with a subscription checkout, a retry returns it, and the webhooks create the subscription once and complete the session', async () => {
    await m.customer('agent');
    const key = await m.customerKey('agent');
    const res = await subscribeAs(key, { planId });
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.error.code, 'payment_required');
    assert.equal(res.body.data.subscription, null);
    assert.equal(res.body.data.invoice, null);
    assert.ok(res.body.data.checkoutUrl);
    const retry = await subscribeAs(key, { planId });
    assert.equal(retry.status, 402);
    assert.equal(retry.body.data.checkoutSessionId, res.body.data.checkoutSessionId);

    const sessions = fake.list(STRIPE_KEY, 'checkout.session').filter((s) => (s.metadata as Obj).tally_checkout_session_id === res.body.data.checkoutSessionId);
    assert.deepEqual(sessions.map((s) => s.mode), ['subscription']);
    fake.completeCheckout(STRIPE_KEY, sessions[0]!.id);
    const events = fake.pendingEvents(STRIPE_KEY);
    await deliverAll();
    // Every event again (Stripe retries): nothing changes.
    const endpoint = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!;
    for (const event of events) assert.equal((await fake.deliver(event, endpoint.url as string, endpoint.secret as string)).status, 201);

    const session = await svc.http.request('GET', `/api/v1/client/checkout-sessions/${res.body.data.checkoutSessionId}`, { auth: key });
    assert.equal(session.body.data.status, 'COMPLETED');
    assert.equal(session.body.data.purpose, 'SUBSCRIPTION');
    const subs = await subscriptionsOf('agent');
    assert.deepEqual(subs.map((s) => [s.id, s.status]), [[session.body.data.subscriptionId, 'ACTIVE']]);
    assert.equal(stripeSubscriptionsOf(session.body.data.subscriptionId).length, 1);
    const invoices = (await m.invoices('agent')).items;
    assert.deepEqual(invoices.map((i: Obj) => [i.status, i.amount]), [['PAID', 30]]);
  });

  test('when the tenant subscribes a customer without a card then 201 with the same checkout data', async () => {
    await m.customer('cardless');
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'cardless', planId });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.success, true);
    assert.equal(res.body.data.subscription, null);
    assert.equal(res.body.data.invoice, null);
    assert.ok(res.body.data.checkoutUrl);
    assert.ok(res.body.data.checkoutSessionId);
    assert.deepEqual(await subscriptionsOf('cardless'), []);
  });

  test('when the off-session charge is declined then a customer key gets 402 with a subscription checkout and no Stripe subscription is left', async () => {
    await m.customer('declined');
    const key = await m.customerKey('declined');
    const res = await subscribeAs(key, { planId, paymentMethodId: 'pm_card_chargeDeclined' });
    assert.equal(res.status, 402, res.text);
    assert.equal(res.body.data.declineReason, 'off-session charge declined');
    assert.equal(res.body.data.subscription, null);
    assert.ok(res.body.data.checkoutSessionId);
    const link = await svc.ctx.db
      .selectFrom('processor_customers')
      .innerJoin('customers', (j) => j.onRef('customers.account_id', '=', 'processor_customers.account_id').onRef('customers.id', '=', 'processor_customers.customer_id'))
      .select('processor_customer_id')
      .where('customers.account_id', '=', acct.accountId)
      .where('customers.customer_reference_id', '=', 'declined')
      .executeTakeFirstOrThrow();
    assert.equal(fake.list(STRIPE_KEY, 'subscription').filter((s) => s.customer === link.processor_customer_id).length, 0);
    await deliverAll();
    assert.deepEqual(await subscriptionsOf('declined'), []);
  });

  test('when Stripe reports invoices of a subscription then they are mirrored with the status mapping, exact amounts, once per invoice, and invoice.paid settles', async () => {
    const [ours] = await subscriptionsOf('carded');
    const stripeSub = stripeSubscriptionsOf(ours!.id)[0]!;
    const period = (stripeSub.items as Obj).data[0];
    const invoice = (id: string, status: string, total: number) => ({
      id, object: 'invoice', customer: stripeSub.customer, status, currency: 'usd', total, amount_due: total, billing_reason: 'subscription_update', created: period.current_period_start,
      due_date: null, period_start: period.current_period_start, period_end: period.current_period_start, metadata: {},
      parent: { type: 'subscription_details', subscription_details: { subscription: stripeSub.id, metadata: stripeSub.metadata } },
      lines: { object: 'list', data: [{ id: `il_${id}`, object: 'line_item', amount: total, currency: 'usd', description: `Proration ${id}`, period: { start: period.current_period_start, end: period.current_period_end } }] },
    });
    const statuses = { in_draft: 'draft', in_open: 'open', in_void: 'void', in_uncollectible: 'uncollectible', in_paid: 'paid' } as const;
    for (const [id, status] of Object.entries(statuses)) fake.emitEvent(STRIPE_KEY, 'invoice.created', invoice(id, status, 1234));
    const duplicate = fake.emitEvent(STRIPE_KEY, 'invoice.created', invoice('in_dup', 'open', 999));
    await deliverAll();
    const endpoint = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!;
    assert.equal((await fake.deliver(duplicate, endpoint.url as string, endpoint.secret as string)).status, 201);
    // Another event about the same invoice does not mirror it twice.
    fake.emitEvent(STRIPE_KEY, 'invoice.finalized', invoice('in_dup', 'open', 999));
    await deliverAll();

    const mirrored = async () => (await m.invoices('carded')).items.filter((i: Obj) => i.type === 'ADJUSTMENT').map((i: Obj) => [i.status, i.amount]).sort();
    assert.deepEqual(await mirrored(), [['DUE', 12.34], ['DUE', 9.99], ['PAID', 12.34], ['PAST_DUE', 12.34], ['PENDING', 12.34], ['VOID', 12.34]].sort());

    fake.emitEvent(STRIPE_KEY, 'invoice.paid', invoice('in_open', 'paid', 1234));
    fake.emitEvent(STRIPE_KEY, 'invoice.payment_succeeded', invoice('in_open', 'paid', 1234));
    fake.emitEvent(STRIPE_KEY, 'invoice.created', invoice('in_void', 'open', 1234));
    await deliverAll();
    assert.deepEqual(await mirrored(), [['DUE', 9.99], ['PAID', 12.34], ['PAID', 12.34], ['PAST_DUE', 12.34], ['PENDING', 12.34], ['VOID', 12.34]].sort());
  });

  test('when mark-paid is called in PROCESSOR_INTEGRATION then 400 and the invoice stays as Stripe says', async () => {
    const due = (await m.invoices('carded')).items.find((i: Obj) => i.status === 'DUE');
    const res = await m.client('POST', `/billing/invoices/${due.id}/mark-paid`);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.message, 'Manual invoice payment is not available for Stripe-integrated accounts. Invoices are paid through Stripe.');
  });

  test('when usage is ingested then the meter sync sends each event once with our event id as identifier, and a Stripe 5xx leaves the rest pending for the next run', async () => {
    const ids: string[] = [];
    for (const units of [3, 2]) {
      const res = await m.event({ customerReferenceId: 'carded', featureKey, usageUnits: units });
      assert.equal(res.status, 201, res.text);
      ids.push(res.body.data.eventId);
    }
    const outbox = () => svc.ctx.db.selectFrom('processor_meter_events').select(['event_id', 'status', 'attempts']).where('account_id', '=', acct.accountId).orderBy('event_id').execute();
    assert.deepEqual((await outbox()).map((r) => [r.event_id, r.status]), ids.map((id) => [id, 'PENDING']));

    fake.failNext({ method: 'POST', path: '/v1/billing/meter_events' }, { status: 500 });
    assert.equal((await svc.scheduler.run('stripe-meter-sync')).status, 'ran');
    assert.deepEqual(fake.meterEvents(STRIPE_KEY), []);
    assert.deepEqual((await outbox()).map((r) => [r.status, r.attempts]), [['PENDING', 1], ['PENDING', 0]]);

    svc.clock.advanceMs(5 * 60_000);
    assert.equal((await svc.scheduler.run('stripe-meter-sync')).status, 'ran');
    svc.clock.advanceMs(5 * 60_000);
    assert.equal((await svc.scheduler.run('stripe-meter-sync')).status, 'ran');
    const sent = fake.meterEvents(STRIPE_KEY);
    assert.deepEqual(sent.map((e) => [e.identifier, e.event_name, (e.payload as Obj).value]), [[ids[0], `tally_${featureKey.replace(/-/g, '_')}`, '3'], [ids[1], `tally_${featureKey.replace(/-/g, '_')}`, '2']]);
    assert.deepEqual((await outbox()).map((r) => r.status), ['SENT', 'SENT']);
  });

  test('when an event was sent but its answer was lost then the resend is not counted twice (same idempotency key and identifier)', async () => {
    const res = await m.event({ customerReferenceId: 'carded', featureKey, usageUnits: 4 });
    assert.equal(res.status, 201, res.text);
    svc.clock.advanceMs(5 * 60_000);
    await svc.scheduler.run('stripe-meter-sync');
    // As if the answer had been lost: the row is PENDING again and the job sends it again.
    await svc.ctx.db.updateTable('processor_meter_events').set({ status: 'PENDING', sent_at: null }).where('event_id', '=', res.body.data.eventId).execute();
    svc.clock.advanceMs(5 * 60_000);
    await svc.scheduler.run('stripe-meter-sync');
    assert.equal(fake.meterEvents(STRIPE_KEY).filter((e) => e.identifier === res.body.data.eventId).length, 1);
    const row = await svc.ctx.db.selectFrom('processor_meter_events').select('status').where('event_id', '=', res.body.data.eventId).executeTakeFirstOrThrow();
    assert.equal(row.status, 'SENT');
  });

  test('when the period ends then the cycle and due jobs leave the account alone', async () => {
    const before = await m.invoices('carded');
    const [sub] = await subscriptionsOf('carded');
    svc.clock.advanceMs(70 * 86_400_000);
    assert.equal((await svc.scheduler.run('subscription-cycle')).status, 'ran');
    assert.equal((await svc.scheduler.run('invoice-due')).status, 'ran');
    const afterJobs = await m.invoices('carded');
    assert.deepEqual(afterJobs.items.map((i: Obj) => [i.id, i.status]), before.items.map((i: Obj) => [i.id, i.status]));
    const [same] = await subscriptionsOf('carded');
    assert.equal(same!.currentPeriodEnd, sub!.currentPeriodEnd);
  });

  test('when Stripe cancels the subscription then ours is cancelled once and the customer may subscribe again', async () => {
    const [ours] = await subscriptionsOf('supplied');
    const stripeSub = stripeSubscriptionsOf(ours!.id)[0]!;
    assert.equal((await stripeApi('DELETE', `/v1/subscriptions/${stripeSub.id}`)).status, 200);
    await deliverAll();
    const [cancelled] = await subscriptionsOf('supplied');
    assert.equal(cancelled!.status, 'CANCELLED');
    assert.equal(cancelled!.isActive, false);
    const again = await m.client('POST', '/subscriptions', { customerReferenceId: 'supplied', planId, paymentMethodId: 'pm_card_visa' });
    assert.equal(again.status, 201, again.text);
    await deliverAll();
  });
});
