import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyProcessorEvents00004';

type Obj = Record<string, any>;
type Event = { id: string; type: string; createdAt: string; data: { object: Obj } };

/**
 * Billing's outbound events where the processor drives billing (issue 33, §E5.3–§E5.5,
 * PROCESSOR_INTEGRATION): the subscription the processor creates, its mirrored invoices, the
 * subscription checkout and the processor's cancellation record their events once each, however
 * often (and in whatever order) the processor's webhooks arrive.
 */
describe('processor-driven billing events (issue 33)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let m: ReturnType<typeof monetization>;
  let planId: string;

  const deliverAll = async () => {
    const deliveries = await fake.deliverWebhooks();
    assert.deepEqual(deliveries.filter((d) => d.status !== 201), [], 'every delivery is accepted');
  };
  const redeliver = async (events: ReturnType<StripeFake['pendingEvents']>) => {
    const endpoint = fake.list(STRIPE_KEY, 'webhook_endpoint')[0]!;
    for (const event of events) assert.equal((await fake.deliver(event, endpoint.url as string, endpoint.secret as string)).status, 201);
  };
  const events = async (): Promise<Event[]> => {
    const res = await m.api('GET', '/api/v1/webhooks/events?limit=200');
    assert.equal(res.status, 200, res.text);
    return (res.body.data.items as Event[]).slice().sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  };
  /** Types of the subscription's own events and its invoices' events, in recording order. */
  const typesOf = async (subscriptionId: string) =>
    (await events()).filter((e) => e.data.object.id === subscriptionId || e.data.object.subscriptionId === subscriptionId).map((e) => e.type);

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    m = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature();
    planId = (await m.activePlan({ price: 30, features: [{ id: feature.id }] })).id;
    await connectStripe(m, STRIPE_KEY, 'STRIPE_INTEGRATION');
  });
  after(() => close());

  test('when the tenant subscribes with a card and the webhooks arrive twice then created and activated are recorded once, and the mirrored invoice once created and paid', async () => {
    await m.customer('pi_carded');
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'pi_carded', planId, paymentMethodId: 'pm_card_visa' });
    assert.equal(res.status, 201, res.text);
    const id = res.body.data.subscription.id as string;
    const pending = fake.pendingEvents(STRIPE_KEY);
    await deliverAll();
    await redeliver(pending);
    const types = await typesOf(id);
    assert.deepEqual(types.filter((t) => t.startsWith('subscription.')), ['subscription.created', 'subscription.activated']);
    assert.deepEqual(types.filter((t) => t.startsWith('invoice.') || t.startsWith('payment.')), ['invoice.created', 'invoice.finalized', 'payment.succeeded', 'invoice.paid']);
    assert.ok(types.indexOf('subscription.created') < types.indexOf('subscription.activated'));
    const payment = (await events()).find((e) => e.type === 'payment.succeeded' && e.data.object.subscriptionId === id)!.data.object;
    assert.deepEqual([payment.purpose, payment.amount, payment.currency, payment.customerReferenceId], ['SUBSCRIPTION', 30, 'USD', 'pi_carded']);
    assert.match(payment.processorPaymentId, /^(pi|in)_/);
  });

  test('when a customer key subscribes without a card then 402 records nothing; the completed checkout records created, activated and checkout.completed once', async () => {
    await m.customer('pi_agent');
    const key = await m.customerKey('pi_agent');
    const before = (await events()).length;
    const res = await svc.http.request('POST', '/api/v1/client/subscriptions', { auth: key, body: { planId } });
    assert.equal(res.status, 402, res.text);
    assert.equal((await events()).length, before, 'a 402 subscribe that creates nothing records nothing');
    const session = fake.list(STRIPE_KEY, 'checkout.session').find((s) => (s.metadata as Obj).tally_checkout_session_id === res.body.data.checkoutSessionId)!;
    fake.completeCheckout(STRIPE_KEY, session.id);
    const pending = fake.pendingEvents(STRIPE_KEY);
    await deliverAll();
    await redeliver(pending);
    const completed = (await events()).filter((e) => e.type === 'checkout.completed' && e.data.object.id === res.body.data.checkoutSessionId);
    assert.equal(completed.length, 1);
    assert.equal(completed[0]!.data.object.customerReferenceId, 'pi_agent');
    const subscriptionId = completed[0]!.data.object.subscriptionId as string;
    const types = await typesOf(subscriptionId);
    assert.deepEqual(types.filter((t) => t.startsWith('subscription.')), ['subscription.created', 'subscription.activated']);
    assert.deepEqual(types.filter((t) => t.startsWith('payment.')), ['payment.succeeded'], "the checkout's payment, once");
  });

  test('when Stripe deletes the subscription then subscription.canceled is recorded once', async () => {
    const [ours] = (await m.expectOk(m.client('GET', '/customers/pi_carded'))).subscriptions as Obj[];
    const stripeSub = fake.list(STRIPE_KEY, 'subscription').find((s) => (s.metadata as Obj).tally_subscription_id === ours!.id)!;
    const deleted = await fetch(`${fake.baseUrl}/v1/subscriptions/${stripeSub.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${STRIPE_KEY}` } });
    assert.equal(deleted.status, 200);
    const pending = fake.pendingEvents(STRIPE_KEY);
    await deliverAll();
    await redeliver(pending);
    const canceled = (await events()).filter((e) => e.type === 'subscription.canceled' && e.data.object.id === ours!.id);
    assert.equal(canceled.length, 1);
    assert.equal(canceled[0]!.data.object.status, 'CANCELLED');
  });
});
