import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';
import { until } from '../../until.js';
import { WebhookReceiver as Receiver } from '../../fakes/webhook-receiver.js';

const STRIPE_KEY = 'sk_test_tallyBudgetExceeded01';

type Event = { id: string; type: string; createdAt: string; accountId: string; data: { object: any; customerReferenceId: string | null; axis: string; requested: number } };
/**
 * `budget.exceeded` (api-contract-events.md §E5.11): a spend refused by a per-key budget
 * (api-contract-agent-v2.md §2.6) records one event per window of that budget, with the key's
 * Budget object (§2.3). A refused event is recorded in its group's committed transaction; a refused
 * off-session purchase, whose own transaction rolls back, in a transaction of its own right after.
 * Through HTTP, with the Stripe fake and a loopback receiver verifying the signature.
 */
describe('budget.exceeded (api-contract-events.md §E5.11)', () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let receiver: Receiver;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  let secret: string;

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe({ APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true' }));
    receiver = new Receiver();
    const base = await receiver.start();
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const created = await m.api('POST', '/api/v1/webhooks/endpoints', { url: `${base}/budgets`, eventTypes: ['budget.exceeded'] });
    assert.equal(created.status, 201, created.text);
    secret = created.body.data.secret;
  });
  after(async () => {
    await svc.relay.stop();
    await receiver.close();
    await close();
  });

  const issue = async (ref: string, scopes: string[] = ['read', 'purchase']) => {
    const k = await m.expectOk(m.client('POST', `/customers/${ref}/keys`, { scopes }), 201);
    return { id: k.id as string, key: k.apiKey as string };
  };
  const budgetPath = (ref: string, keyId: string) => `/api/v1/client/customers/${ref}/keys/${keyId}/budget`;
  const setBudget = async (ref: string, keyId: string, body: unknown) => assert.equal((await svc.http.put(budgetPath(ref, keyId), { auth: acct.apiKey, body })).status, 200);
  const readBudget = async (ref: string, keyId: string) => (await svc.http.get(budgetPath(ref, keyId), { auth: acct.apiKey })).body.data;
  const chat = (key: string, featureKey: string, usageUnits = 1) => svc.http.post('/api/v1/client/events', { auth: key, body: { eventName: 'chat', featureKey, usageUnits } });
  /** The account's budget.exceeded events of one key, oldest first. */
  async function eventsOf(keyId: string): Promise<Event[]> {
    const res = await m.api('GET', '/api/v1/webhooks/events?limit=200&type=budget.exceeded');
    assert.equal(res.status, 200, res.text);
    return (res.body.data.items as Event[]).filter((e) => e.data.object.keyId === keyId).reverse();
  }

  test('when events are refused by the key budget then one event per window, with the Budget object, the customer and the refused credits; a new window or a PUT re-arms it', async () => {
    const w = await m.wallet(1000, false, 0.5);
    const k = await issue(w.ref, ['read']);
    await setBudget(w.ref, k.id, { period: 'DAY', creditLimit: 2 });
    for (let i = 0; i < 2; i++) assert.equal((await chat(k.key, w.featureKey)).status, 201);
    assert.deepEqual(await eventsOf(k.id), [], 'reaching the limit is no refusal');

    assert.equal((await chat(k.key, w.featureKey, 3)).status, 403);
    const [first, ...rest] = await eventsOf(k.id);
    assert.deepEqual(rest, []);
    assert.equal(first!.type, 'budget.exceeded');
    assert.deepEqual(first!.data.object, await readBudget(w.ref, k.id), 'the Budget object (§2.3) as the refusal left it');
    assert.deepEqual([first!.data.object.creditsSpent, first!.data.object.percentUsed], [2, 100]);
    assert.deepEqual([first!.data.customerReferenceId, first!.data.axis, first!.data.requested], [w.ref, 'CREDITS', 3]);
    assert.equal(first!.createdAt, svc.clock.now().toISOString());

    // More refusals in the same window, single and batch: nothing more.
    assert.equal((await chat(k.key, w.featureKey)).status, 403);
    const batch = await svc.http.post('/api/v1/client/events/batch', { auth: k.key, body: { events: [1, 1].map((u) => ({ eventName: 'chat', featureKey: w.featureKey, usageUnits: u })) } });
    assert.deepEqual(batch.body.data.results.map((r: any) => r.status), ['refused', 'refused']);
    assert.equal((await eventsOf(k.id)).length, 1, 'once per window');

    svc.clock.advanceMs(24 * 3_600_000);
    assert.equal((await chat(k.key, w.featureKey, 5)).status, 403);
    const afterReset = await eventsOf(k.id);
    assert.equal(afterReset.length, 2, 'the next window records again');
    assert.equal(afterReset[1]!.data.object.windowStart, new Date(Date.parse(first!.data.object.windowStart) + 24 * 3_600_000).toISOString());
    assert.equal(afterReset[1]!.data.object.creditsSpent, 0);

    await setBudget(w.ref, k.id, { period: 'DAY', creditLimit: 1 });
    assert.equal((await chat(k.key, w.featureKey, 2)).status, 403);
    assert.equal((await eventsOf(k.id)).length, 3, 'a PUT re-arms it (new limits), ours');
    await m.audit();
  });

  test('when 20 events race past a credit budget then exactly one budget.exceeded is recorded', async () => {
    const w = await m.wallet(1000, false, 0.5);
    const k = await issue(w.ref, ['read']);
    await setBudget(w.ref, k.id, { period: 'WEEK', creditLimit: 5 });
    const results = await Promise.all(Array.from({ length: 20 }, () => chat(k.key, w.featureKey)));
    assert.deepEqual([results.filter((r) => r.status === 201).length, results.filter((r) => r.status === 403).length], [5, 15]);
    assert.equal((await eventsOf(k.id)).length, 1);
  });

  test('when a gated event under an Idempotency-Key is retried then it runs again (§1.4): 403 while the window holds, stored once it reset; budget.exceeded once', async () => {
    const w = await m.wallet(1000, false, 0.5);
    const k = await issue(w.ref, ['read']);
    await setBudget(w.ref, k.id, { period: 'DAY', creditLimit: 1 });
    assert.equal((await chat(k.key, w.featureKey)).status, 201);
    const send = () => svc.http.post('/api/v1/client/events', { auth: k.key, body: { eventName: 'chat', featureKey: w.featureKey, usageUnits: 1 }, headers: { 'Idempotency-Key': `gated-${k.id}` } });
    const gated = await send();
    assert.equal(gated.status, 403, gated.text);
    assert.equal(gated.body.error.code, 'budget_exceeded');
    const again = await send();
    assert.deepEqual([again.status, again.body.error?.code, again.headers.get('idempotent-replayed')], [403, 'budget_exceeded', null], 'decided again, not replayed');
    assert.equal((await eventsOf(k.id)).length, 1, 'the refusal rolled back, its event committed on its own, once');
    svc.clock.advanceMs(gated.body.error.retry_after * 1000);
    const stored = await send();
    assert.equal(stored.status, 201, stored.text);
    const replay = await send();
    assert.deepEqual([replay.status, replay.headers.get('idempotent-replayed')], [201, 'true']);
    assert.equal((await readBudget(w.ref, k.id)).creditsSpent, 1, 'counted once');
    await m.audit();
  });

  test('when a key without a budget is refused by a hard-limit pool then no budget.exceeded', async () => {
    const w = await m.wallet(1, true, 0.5);
    const k = await issue(w.ref, ['read']);
    assert.equal((await chat(k.key, w.featureKey, 5)).status, 409, 'refused by the hard-limit pool, not a budget');
    assert.deepEqual(await eventsOf(k.id), []);
  });

  describe('money axis (off-session purchases)', () => {
    let ref: string;
    let poolId: string;

    before(async () => {
      await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
      await m.creditModel({ denomination: 'exceeded-credits' });
      const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: `buyer-${randomUUID()}`, email: 'buyer@example.com' }), 201);
      ref = customer.customerReferenceId;
      poolId = (await m.expectOk(m.admin('POST', '/credits/pools', { name: 'wallet', denomination: 'exceeded-credits', customerId: customer.id }), 201)).id;
      await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'exceeded-credits', pricePerCredit: '0.01' }] }), 201);
      svc.clock.advanceMs(2000);
    });

    const buy = (key: string, credits: number, headers?: Record<string, string>) =>
      svc.http.post('/api/v1/client/credits/purchases', { auth: key, body: { creditPoolId: poolId, credits, paymentMethodId: 'pm_card_visa' }, ...(headers ? { headers } : {}) });

    test('when an off-session purchase is refused by the key budget then its request rolls back and the event is committed on its own, once per window; delivered signed', async () => {
      const k = await issue(ref);
      await setBudget(ref, k.id, { period: 'MONTH', amountLimit: 3 });
      const balanceBefore = (await m.expectOk(m.client('GET', `/credits/${ref}/pools/${poolId}`))).balance as number;
      assert.equal((await buy(k.key, 200)).status, 201);
      const charges = fake.list(STRIPE_KEY, 'payment_intent').length;
      const refused = await buy(k.key, 200, { 'Idempotency-Key': `refused-${randomUUID()}` });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.error.code, 'budget_exceeded');
      assert.equal(fake.list(STRIPE_KEY, 'payment_intent').length, charges, 'no processor call');
      const [event, ...more] = await eventsOf(k.id);
      assert.deepEqual(more, []);
      assert.deepEqual([event!.data.axis, event!.data.requested, event!.data.customerReferenceId], ['AMOUNT', 2, ref]);
      assert.deepEqual([event!.data.object.amountLimit, event!.data.object.amountSpent, event!.data.object.amountRemaining], [3, 2, 1], 'nothing of the refused charge counted');
      assert.deepEqual(event!.data.object, await readBudget(ref, k.id));
      const pool = await m.expectOk(m.client('GET', `/credits/${ref}/pools/${poolId}`));
      assert.equal(pool.balance, balanceBefore + 200, 'only the first purchase granted credits');

      // Again in the same window, and a charge above the whole budget: refused, nothing more recorded.
      assert.equal((await buy(k.key, 200)).status, 403);
      const whole = await buy(k.key, 400);
      assert.equal(whole.body.error.code, 'spend_cap_exceeded');
      assert.equal((await eventsOf(k.id)).length, 1);

      svc.relay.start();
      const got = await until('the budget.exceeded delivery', () => receiver.received.map((r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Event).find((e) => e.id === event!.id));
      assert.deepEqual(got.data, event!.data, 'delivered as recorded, signature verified');
      await svc.relay.stop();
    });

    test('when one charge is above the whole money budget of a fresh key then budget.exceeded records it (axis AMOUNT); a tenant-key purchase never records one', async () => {
      const k = await issue(ref);
      await setBudget(ref, k.id, { period: 'TOTAL', amountLimit: 1 });
      const res = await buy(k.key, 150);
      assert.equal(res.body.error.code, 'spend_cap_exceeded');
      const [event] = await eventsOf(k.id);
      assert.deepEqual([event?.data.axis, event?.data.requested, event?.data.object.resetsAt], ['AMOUNT', 1.5, null]);
      const tenant = await svc.http.post('/api/v1/client/credits/purchases', { auth: acct.apiKey, body: { customerReferenceId: ref, creditPoolId: poolId, credits: 150, paymentMethodId: 'pm_card_visa' } });
      assert.equal(tenant.status, 201, tenant.text);
      assert.equal((await eventsOf(k.id)).length, 1);
    });
  });
});

