import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyProcessorMetered0005';

type Obj = Record<string, any>;

/**
 * Usage billed by the processor (contract §5.4): a plan's usage-priced features sync to metered
 * prices on the features' meters, and the processor subscription carries them as items, so the
 * meter events the outbox sends are invoiced by Stripe at the plan's rates.
 */
describe('metered prices on processor subscriptions (PROCESSOR_INTEGRATION)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let m: ReturnType<typeof monetization>;
  let calls: Obj;
  let tokens: Obj;
  let seats: Obj;
  let plan: Obj;
  let richer: Obj;
  let close: () => Promise<void>;

  const deliverAll = async () => {
    const deliveries = await fake.deliverWebhooks();
    assert.deepEqual(deliveries.filter((d) => d.status !== 201), [], 'every delivery is accepted');
  };
  const stripeSubscriptionOf = (subscriptionId: string) => fake.list(STRIPE_KEY, 'subscription').find((s) => (s.metadata as Obj).tally_subscription_id === subscriptionId)!;
  const meterOf = (featureKey: string) => fake.list(STRIPE_KEY, 'billing.meter').filter((mt) => mt.event_name === `tally_${featureKey.replace(/-/g, '_')}`);
  const itemsByFeature = (stripeSub: Obj) =>
    Object.fromEntries((stripeSub.items.data as Obj[]).map((i) => [i.price.metadata.tally_feature_id ?? 'base', i]));

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    const acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    calls = await m.feature({ key: `calls-${Date.now()}` });
    tokens = await m.feature({ key: `tokens-${Date.now()}` });
    seats = await m.feature({ key: `seats-${Date.now()}` });
    const graduated = { pricing: { model: 'graduated', usage_unit_type: 'tokens', tiers: [{ up_to: 1000, price_per_unit: 0.001, flat_fee: 2 }, { up_to: 'inf', price_per_unit: 0.0005 }] } };
    plan = await m.activePlan({
      price: 30,
      features: [
        { id: calls.id, value: { pricing: { model: 'usage', usage_unit_type: 'api_calls', price_per_unit: 0.002 } } },
        { id: tokens.id, value: graduated },
        { id: seats.id, value: {} },
      ],
    });
    richer = await m.activePlan({
      price: 50,
      features: [{ id: calls.id, value: { pricing: { model: 'usage', usage_unit_type: 'api_calls', price_per_unit: 0.001 } } }, { id: tokens.id, value: graduated }],
    });
    await connectStripe(m, STRIPE_KEY, 'PROCESSOR_INTEGRATION');
  });
  after(() => close());

  test('when a customer subscribes then the Stripe subscription carries the base price and one metered price per usage-priced feature, on that feature\'s meter, at the plan\'s rates', async () => {
    await m.customer('metered');
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'metered', planId: plan.id, paymentMethodId: 'pm_card_visa' });
    assert.equal(res.status, 201, res.text);
    const items = itemsByFeature(stripeSubscriptionOf(res.body.data.subscription.id));
    assert.deepEqual(Object.keys(items).sort(), ['base', calls.id, tokens.id].sort());
    assert.equal(items.base.price.unit_amount, 3000);

    const usage = items[calls.id].price;
    assert.deepEqual([usage.recurring.usage_type, usage.recurring.interval, usage.recurring.interval_count, usage.unit_amount_decimal, usage.currency], ['metered', 'month', 1, '0.2', 'usd']);
    assert.equal(usage.recurring.meter, meterOf(calls.key)[0]!.id);
    const tiered = items[tokens.id].price;
    assert.deepEqual([tiered.billing_scheme, tiered.tiers_mode, tiered.recurring.meter], ['tiered', 'graduated', meterOf(tokens.key)[0]!.id]);
    assert.deepEqual(tiered.tiers, [{ up_to: 1000, unit_amount_decimal: '0.1', flat_amount_decimal: '200' }, { up_to: null, unit_amount_decimal: '0.05', flat_amount_decimal: null }]);
    const create = fake.calls('/v1/subscriptions', 'POST').at(-1)!;
    assert.deepEqual((create.body.items as Obj[]).map((i) => i.quantity ?? null), ['1', null, null]);
    // Only the base price is invoiced up front; usage is invoiced from the meters.
    await deliverAll();
    assert.deepEqual((await m.invoices('metered')).items.map((i: Obj) => [i.type, i.amount]), [['IN_ADVANCE_INITIAL', 30]]);
  });

  test('when a second customer subscribes through checkout then the prices and meters are reused and the checkout carries the metered items without a quantity', async () => {
    const prices = fake.list(STRIPE_KEY, 'price').length;
    await m.customer('hosted');
    const key = await m.customerKey('hosted');
    const res = await svc.http.request('POST', '/api/v1/client/subscriptions', { auth: key, body: { planId: plan.id } });
    assert.equal(res.status, 402, res.text);
    assert.equal(fake.list(STRIPE_KEY, 'price').length, prices);
    assert.equal(meterOf(calls.key).length, 1);
    assert.equal(meterOf(tokens.key).length, 1);
    const session = fake.calls('/v1/checkout/sessions', 'POST').at(-1)!;
    assert.deepEqual((session.body.line_items as Obj[]).map((i) => i.quantity ?? null), ['1', null, null]);
  });

  test('when usage is ingested then the meter event goes to the meter the subscription\'s metered price bills', async () => {
    const res = await m.event({ customerReferenceId: 'metered', featureKey: calls.key, usageUnits: 7 });
    assert.equal(res.status, 201, res.text);
    svc.clock.advanceMs(5 * 60_000);
    assert.equal((await svc.scheduler.run('stripe-meter-sync')).status, 'ran');
    const [event] = fake.meterEvents(STRIPE_KEY).filter((e) => e.identifier === res.body.data.eventId);
    const [sub] = fake.list(STRIPE_KEY, 'subscription');
    const meter = fake.get(STRIPE_KEY, itemsByFeature(sub!)[calls.id].price.recurring.meter)!;
    assert.equal(event!.event_name, meter.event_name);
    assert.equal((event!.payload as Obj).stripe_customer_id, sub!.customer);
    assert.equal((event!.payload as Obj).value, '7');
  });

  test('when the plan changes then each metered item moves to the new plan\'s price for its feature, keeping its item (and the period\'s usage)', async () => {
    const ours = ((await m.expectOk(m.client('GET', '/customers/metered'))).subscriptions as Obj[])[0]!;
    const before = itemsByFeature(stripeSubscriptionOf(ours.id));
    const res = await m.client('POST', `/subscriptions/${ours.id}/plan-change`, { changeToPlanId: richer.id, changeType: 'UPGRADE' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.subscription.plan.id, richer.id);
    const after = itemsByFeature(stripeSubscriptionOf(ours.id));
    assert.equal(after[calls.id].id, before[calls.id].id);
    assert.equal(after[calls.id].price.unit_amount_decimal, '0.1');
    assert.equal(after[calls.id].price.metadata.tally_plan_id, richer.id);
    assert.equal(after.base.price.unit_amount, 5000);
    await deliverAll();
  });
});
