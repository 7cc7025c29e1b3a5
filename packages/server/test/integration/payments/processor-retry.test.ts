import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyProcessorRetry0006';

type Obj = Record<string, any>;

/**
 * Out-of-band failures (issue 12 §9, PROCESSOR_INTEGRATION): what a request could not finish at
 * Stripe (a processor customer, a plan's product and prices) is finished by the
 * `stripe-processor-retry` job once Stripe answers again, under the request's idempotency keys, so
 * an answer lost after Stripe acted never makes a second object.
 */
describe('the stripe-processor-retry job (PROCESSOR_INTEGRATION)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let m: ReturnType<typeof monetization>;
  let accountId: string;
  let feature: Obj;
  let close: () => Promise<void>;

  const runJob = async (name: string) => {
    svc.clock.advanceMs(5 * 60_000);
    return (await svc.scheduler.run(name)).status;
  };
  const stripeCustomersOf = (customerId: string) => fake.list(STRIPE_KEY, 'customer').filter((c) => (c.metadata as Obj).tally_customer_id === customerId);
  const productsOf = (planId: string) => fake.list(STRIPE_KEY, 'product').filter((p) => (p.metadata as Obj).tally_plan_id === planId);
  const pricesOf = (planId: string) => fake.list(STRIPE_KEY, 'price').filter((p) => (p.metadata as Obj).tally_plan_id === planId);
  /** Our customer's id (the Client API shows only its reference). */
  const createCustomer = async (ref: string) => {
    await m.customer(ref);
    const row = await svc.ctx.db.selectFrom('customers').select('id').where('account_id', '=', accountId).where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
    return row;
  };
  const linkOf = (customerId: string) =>
    svc.ctx.db.selectFrom('processor_customers').select('processor_customer_id').where('account_id', '=', accountId).where('customer_id', '=', customerId).executeTakeFirst();
  const syncedPrices = (planId: string) =>
    svc.ctx.db.selectFrom('processor_products').select('processor_price_id').where('account_id', '=', accountId).where('plan_id', '=', planId).execute();

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    const acct = await createTestAccount(svc);
    accountId = acct.accountId;
    m = monetization(svc, acct);
    feature = await m.feature();
    await connectStripe(m, STRIPE_KEY, 'PROCESSOR_INTEGRATION');
  });
  after(() => close());

  test('when Stripe creates a customer but its answer is lost and Stripe then fails again then the job links that customer once Stripe recovers, and syncs the plan, with nothing made twice', async () => {
    const plan = await m.activePlan({ price: 20, features: [{ id: feature.id }] });
    const customer = await createCustomer('lost-customer');
    fake.failNext({ method: 'POST', path: '/v1/customers' }, { status: 500, lostAnswer: true });
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'lost-customer', planId: plan.id, paymentMethodId: 'pm_card_visa' });
    assert.equal(res.status, 502, res.text);
    assert.equal(stripeCustomersOf(customer.id).length, 1, 'Stripe made the customer');
    assert.equal(await linkOf(customer.id), undefined, 'we never heard of it');

    fake.failNext({ path: '/v1/' , times: 1 }, { status: 500 });
    assert.equal(await runJob('stripe-processor-retry'), 'failed');
    assert.equal(await linkOf(customer.id), undefined);
    assert.equal(productsOf(plan.id).length, 0, 'an outage stops the account\'s run');

    assert.equal(await runJob('stripe-processor-retry'), 'ran');
    const stripeCustomers = stripeCustomersOf(customer.id);
    assert.equal(stripeCustomers.length, 1);
    assert.equal((await linkOf(customer.id))?.processor_customer_id, stripeCustomers[0]!.id);
    assert.equal(productsOf(plan.id).length, 1);
    assert.equal(pricesOf(plan.id).length, 2, 'the base price and the metered price');
    assert.equal((await syncedPrices(plan.id)).length, 2);

    // The customer retries: the same Stripe customer, product and prices are used.
    const retry = await m.client('POST', '/subscriptions', { customerReferenceId: 'lost-customer', planId: plan.id, paymentMethodId: 'pm_card_visa' });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(stripeCustomersOf(customer.id).length, 1);
    assert.equal(productsOf(plan.id).length, 1);
    assert.equal(pricesOf(plan.id).length, 2);
    await fake.deliverWebhooks();
  });

  test('when the answers to a plan\'s product and price creates are lost then the job records the objects Stripe made, once each', async () => {
    const plan = await m.activePlan({ price: 40, features: [{ id: feature.id }] });
    fake.failNext({ method: 'POST', path: '/v1/products' }, { status: 500, lostAnswer: true });
    assert.equal(await runJob('stripe-processor-retry'), 'failed');
    assert.equal(productsOf(plan.id).length, 1);
    assert.deepEqual(await syncedPrices(plan.id), []);

    fake.failNext({ method: 'POST', path: '/v1/prices' }, { status: 503, lostAnswer: true });
    assert.equal(await runJob('stripe-processor-retry'), 'failed');
    assert.equal(pricesOf(plan.id).length, 1);

    assert.equal(await runJob('stripe-processor-retry'), 'ran');
    assert.equal(productsOf(plan.id).length, 1);
    assert.equal(pricesOf(plan.id).length, 2);
    assert.deepEqual((await syncedPrices(plan.id)).map((r) => r.processor_price_id).sort(), pricesOf(plan.id).map((p) => p.id).sort());
    // Nothing left to do: a further run calls Stripe for nothing.
    const calls = fake.requests.length;
    assert.equal(await runJob('stripe-processor-retry'), 'ran');
    assert.equal(fake.requests.length, calls);
  });

  test('when usage waits for a customer with no Stripe customer then the job creates it and the meter sync sends the usage', async () => {
    const plan = await m.activePlan({ price: 10, billingTiming: 'IN_ARREARS', features: [{ id: feature.id }] });
    const customer = await createCustomer('arrears');
    await m.subscribe('arrears', plan.id);
    const event = await m.event({ customerReferenceId: 'arrears', featureKey: feature.key, usageUnits: 5 });
    assert.equal(event.status, 201, event.text);
    assert.equal(await runJob('stripe-meter-sync'), 'ran');
    assert.equal(fake.meterEvents(STRIPE_KEY).filter((e) => e.identifier === event.body.data.eventId).length, 0);

    assert.equal(await runJob('stripe-processor-retry'), 'ran');
    assert.equal(stripeCustomersOf(customer.id).length, 1);
    assert.equal(await runJob('stripe-meter-sync'), 'ran');
    const sent = fake.meterEvents(STRIPE_KEY).filter((e) => e.identifier === event.body.data.eventId);
    assert.deepEqual(sent.map((e) => (e.payload as Obj).stripe_customer_id), [stripeCustomersOf(customer.id)[0]!.id]);
  });
});
