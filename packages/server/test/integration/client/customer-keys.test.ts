import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Tally, TallyAuthError, TallyError, TallyGatedError, TallyNotFoundError, Transport, type TallyCustomer } from '@tally/client';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyClientCustomerKeys017';

/**
 * `Tally.forCustomer` (issue 17 item 6) against a real server: a customer key reaches its own
 * customer's entitlements, usage (single, batched, metered), pools and reservations, and nothing
 * else; a payment that needs the person answers a typed checkout result, not an error.
 */
describe(`client for customer keys (${backend})`, () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let m: ReturnType<typeof monetization>;
  let featureKey: string;
  let freePlanId: string;
  let paidPlanId: string;
  let denomination: string;
  const unique = () => randomBytes(4).toString('hex');

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    m = monetization(svc, await createTestAccount(svc));
    const model = await m.creditModel({ hardLimit: true });
    denomination = model.denomination;
    const feature = await m.feature();
    featureKey = feature.key;
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: `free-${unique()}`, name: 'free', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=100`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    freePlanId = plan.id;
    paidPlanId = (await m.activePlan({ price: 30, features: [{ id: (await m.feature()).id }] })).id;
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination, pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
  });
  after(() => close());

  /** A customer on the free credit plan with a key of the given scopes. */
  async function customer(scopes: ('read' | 'purchase')[] = ['read', 'purchase']) {
    const ref = `c-${unique()}`;
    await m.customer(ref);
    await m.subscribe(ref, freePlanId);
    const key = await m.customerKey(ref, scopes);
    const poolId = (await m.expectOk(m.client('GET', `/credits/${ref}/pools`))).items[0].id as string;
    return { ref, key, poolId };
  }

  const forCustomer = (key: string, ref?: string, extra: Partial<Parameters<typeof Tally.forCustomer>[1]> = {}): TallyCustomer =>
    Tally.forCustomer(key, { baseUrl: svc.baseUrl, ...(ref ? { customerReferenceId: ref } : {}), ...extra });

  test("when a customer key uses its client then it reaches its own customer's entitlements, usage, pools and reservations", async () => {
    const a = await customer(['read']);
    const c = forCustomer(a.key, a.ref);
    const check = await c.check(featureKey, { units: '5' });
    assert.deepEqual([check.allowed, check.referenceCustomerId, check.creditQuote?.estimatedCredits], [true, a.ref, '5']);
    assert.equal((await c.entitlements.get(featureKey, { record: false })).allowed, true);
    assert.equal((await c.entitlements.list()).items.length, 1);
    assert.equal((await c.customer()).customerReferenceId, a.ref);

    const tracked = await c.track({ eventName: 'chat', featureKey, usageUnits: '4' });
    assert.equal(tracked.status, 'stored');
    const pools = await c.credits.pools();
    assert.deepEqual(pools.items.map((p) => [p.id, p.balance]), [[a.poolId, '96']]);
    assert.equal((await c.credits.pool(a.poolId)).id, a.poolId);
    assert.deepEqual((await c.credits.ledger(a.poolId)).items.map((t) => t.transactionType), ['GRANT', 'DEDUCTION']);

    const hold = await c.credits.reservations.hold({ denomination, amount: '10' });
    assert.deepEqual([hold.status, hold.amountHeld], ['HELD', '10']);
    assert.equal((await c.credits.reservations.capture(hold.id, '3')).status, 'CAPTURED');
    const metered = await c.meter(featureKey, { estimate: '20' }, async () => '8');
    assert.ok(metered.allowed && metered.event.status === 'stored');
    assert.equal(metered.event.remainingBalance, '85');
    await m.audit();
  });

  test('when a customer key batches events then they are stored for its own customer, whatever reference an event names', async () => {
    const a = await customer(['read']);
    const b = await customer(['read']);
    const c = forCustomer(a.key, a.ref, { batch: { maxEvents: 10, flushIntervalMs: 60_000 } });
    const promises = [1, 2, 3].map((i) => c.track({ eventName: 'chat', featureKey, usageUnits: '1', eventIdempotencyKey: `${a.ref}-${i}`, ...({ customerReferenceId: b.ref } as object) }));
    await c.flush();
    assert.deepEqual((await Promise.all(promises)).map((r) => r.status), ['stored', 'stored', 'stored']);
    await c.close();
    const owners = await svc.ctx.db
      .selectFrom('usage_events')
      .innerJoin('customers', (j) => j.onRef('customers.account_id', '=', 'usage_events.account_id').onRef('customers.id', '=', 'usage_events.customer_id'))
      .select('customers.customer_reference_id as ref')
      .where('usage_events.event_idempotency_key', 'like', `${a.ref}-%`)
      .execute();
    assert.deepEqual(owners.map((o) => o.ref), [a.ref, a.ref, a.ref]);
  });

  test("when a customer key reaches for another customer's data or an admin route then the service refuses it", async () => {
    const a = await customer(['read']);
    const b = await customer(['read']);
    const bHold = await forCustomer(b.key).credits.reservations.hold({ denomination, amount: '1' });
    // The client names the wrong customer: 403 on every route that names one.
    const wrong = forCustomer(a.key, b.ref);
    for (const call of [() => wrong.entitlements.list(), () => wrong.usage(), () => wrong.credits.pools(), () => wrong.customer()]) {
      await assert.rejects(call(), (err: unknown) => err instanceof TallyAuthError && err.status === 403);
    }
    // Another customer's pool or reservation does not exist for this key.
    const own = forCustomer(a.key, a.ref);
    await assert.rejects(own.credits.pool(b.poolId), TallyNotFoundError);
    await assert.rejects(own.credits.reservations.get(bHold.id), TallyNotFoundError);
    await assert.rejects(own.credits.reservations.release(bHold.id), TallyNotFoundError);
    // Routes naming the customer need its reference; without one the client refuses before calling.
    await assert.rejects(forCustomer(a.key).credits.pools(), (err: unknown) => err instanceof TallyError && err.code === 'customer_reference_required');
    // The customer client has no tenant or admin surface, and the key opens none by hand either.
    for (const name of ['customers', 'plans', 'features', 'invoices']) assert.equal(name in own, false, name);
    const raw = new Transport({ baseUrl: svc.baseUrl, apiKey: a.key });
    await assert.rejects(raw.request({ method: 'GET', path: '/api/v1/client/customers' }), (err: unknown) => err instanceof TallyAuthError && err.status === 403);
    await assert.rejects(raw.request({ method: 'GET', path: '/api/v1/monetization/plans' }), (err: unknown) => err instanceof TallyAuthError);
    // A read-only key cannot buy: 403 scope_denied with its gate (api-contract-agent-v2.md §0.3, §1.2).
    await assert.rejects(
      own.subscribe({ planId: paidPlanId }),
      (err: unknown) => err instanceof TallyGatedError && err.status === 403 && err.code === 'scope_denied' && err.gate.action === 'request_scope' && /purchase/.test(err.message),
    );
    assert.equal((await m.expectOk(m.client('GET', `/credits/reservations/${bHold.id}`))).status, 'HELD');
  });

  test('when a payment needs the person then subscribe and purchase answer a checkout result carrying checkoutUrl, not an error', async () => {
    const a = await customer(['read', 'purchase']);
    const c = forCustomer(a.key, a.ref);
    const subscribed = await c.subscribe({ planId: paidPlanId });
    assert.equal(subscribed.status, 'checkout');
    if (subscribed.status !== 'checkout') return;
    assert.match(subscribed.checkoutUrl, /\/i\/in_/);
    assert.equal((subscribed.data.subscription as any).status, 'PENDING_PAYMENT');
    const session = await c.checkoutSession(subscribed.checkoutSessionId);
    assert.equal(session.status, 'PENDING');

    const bought = await c.credits.purchase({ creditPoolId: a.poolId, credits: '100' });
    assert.equal(bought.status, 'checkout');
    if (bought.status !== 'checkout') return;
    assert.match(bought.checkoutUrl, /\/c\/pay\/cs_test_/);
    assert.deepEqual([bought.data.completed, bought.data.amountCharged], [false, '1']);
    const topup = await c.checkoutSession(bought.checkoutSessionId);
    assert.deepEqual([topup.status, topup.purpose], ['PENDING', 'CREDIT_TOPUP']);
    assert.equal(fake.list(STRIPE_KEY, 'checkout.session').length, 1);
  });
});
