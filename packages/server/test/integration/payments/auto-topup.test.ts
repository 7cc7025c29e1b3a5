import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyAutoTopupAccount01';

/**
 * Auto top-up (api-contract-money.md §2) through HTTP, with the official SDK against the Stripe fake:
 * the rule's validation, checks and state; who may call the routes; 50 concurrent draws below the
 * threshold → one PaymentIntent and one grant; declines counted, blocked, unblocked by a new default
 * payment method and disabling at the third; the spend and monthly caps; a charge whose answer was
 * lost, completed by the recovery job with the same idempotency key. The ledger audit stays clean.
 */
describe(`auto top-up (${backend})`, () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let m: ReturnType<typeof monetization>;

  const rulePath = (ref: string, poolId: string) => `/credits/${ref}/pools/${poolId}/auto-topup`;
  const put = (ref: string, poolId: string, body: unknown, headers?: Record<string, string>) => m.client('PUT', rulePath(ref, poolId), body, headers);
  const getRule = (ref: string, poolId: string) => m.expectOk(m.client('GET', rulePath(ref, poolId)));
  const attempts = async (ref: string, poolId: string) => (await m.expectOk(m.client('GET', `${rulePath(ref, poolId)}/attempts?limit=200`))).items as any[];
  const settings = (body: Record<string, unknown>) => m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', body));
  const setDefault = (ref: string, paymentMethodId: string) => m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/default`, { paymentMethodId }));
  const grantsOf = async (poolId: string) => (await m.expectOk(m.admin('GET', `/credits/pools/${poolId}/grants`))) as any[];
  const balanceOf = async (poolId: string) => (await m.expectOk(m.admin('GET', `/credits/pools/${poolId}`))).balance as number;
  const intents = () => fake.list(STRIPE_KEY, 'payment_intent');

  /** Waits until the pool has no PENDING attempt (the charge runs after the draw's commit, not awaited by it). */
  async function settled(ref: string, poolId: string) {
    for (let i = 0; i < 200; i++) {
      const list = await attempts(ref, poolId);
      if (!list.some((a) => a.status === 'PENDING')) return list;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.fail('an attempt stayed PENDING');
  }

  /** A customer whose pool of `credits` (1 credit per usage unit) is priced at 0.01 USD a credit, with a saved card. */
  async function pricedWallet(credits: number, card: string | null = 'pm_card_visa') {
    const w = await m.wallet(credits, false, 0);
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: w.denomination, pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
    if (card) await setDefault(w.ref, card);
    return w;
  }

  const draw = (w: { ref: string; featureKey: string }, units: number, key: string) =>
    m.event({ customerReferenceId: w.ref, featureKey: w.featureKey, usageUnits: units, eventIdempotencyKey: key });

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    svc.clock.set('2027-03-10T12:00:00Z');
    m = monetization(svc, await createTestAccount(svc));
  });
  after(() => close());

  test('when a rule is enabled without a processor then 400, and a disabled rule is stored after field validation only (state DISABLED)', async () => {
    const w = await pricedWallet(100, null);
    const res = await put(w.ref, w.poolId, { enabled: true, threshold: 10, topupCredits: 100 });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.message, 'Auto top-up needs a connected payment processor');
    assert.equal((await m.client('GET', rulePath(w.ref, w.poolId))).status, 404);
    const missing = await m.client('GET', rulePath(w.ref, w.poolId));
    assert.equal(missing.body.error.message, `No auto top-up rule for credit pool ${w.poolId}`);
    const rule = await m.expectOk(put(w.ref, w.poolId, { enabled: false, threshold: 10, topupCredits: 100 }));
    assert.equal(rule.state, 'DISABLED');
    assert.equal(rule.disabledReason, 'MANUAL');
    assert.equal(rule.amountPerTopup, 1);
    assert.equal(rule.currency, 'USD');
    assert.equal(rule.monthToDateAmount, 0);
    assert.equal(rule.lastAttempt, null);
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
  });

  test('when the rule request is malformed then 400 with the contract messages and nothing is stored', async () => {
    const w = await pricedWallet(100, null);
    const cases: [unknown, string][] = [
      [{ threshold: 1, topupCredits: 100 }, 'Validation failed: enabled: Required'],
      [{ enabled: true, threshold: -1, topupCredits: 100 }, 'Validation failed: threshold: must be zero or more'],
      [{ enabled: true, threshold: '0.0000001', topupCredits: 100 }, 'Validation failed: threshold: allows at most 6 decimals'],
      [{ enabled: true, threshold: 1, topupCredits: 0 }, 'Validation failed: topupCredits: must be positive'],
      [{ enabled: true, threshold: 1, topupCredits: '1.1234567' }, 'Validation failed: topupCredits: allows at most 6 decimals'],
      [{ enabled: true, threshold: 1, topupCredits: 100, maxMonthlyAmount: 0 }, 'Validation failed: maxMonthlyAmount: must be positive'],
      [{ enabled: true, threshold: 1, topupCredits: 100, maxMonthlyAmount: '1.001' }, 'Validation failed: maxMonthlyAmount: allows at most 2 decimals for USD'],
      [{ enabled: true, threshold: 1, topupCredits: 100, maxMonthyAmount: 5 }, 'Validation failed: maxMonthyAmount: Unrecognized key'],
    ];
    for (const [body, message] of cases) {
      const res = await put(w.ref, w.poolId, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.message, message, JSON.stringify(body));
    }
    // The checks that need the processor, in order: default payment method, then the amount.
    const noCard = await put(w.ref, w.poolId, { enabled: true, threshold: 1, topupCredits: 100 });
    assert.equal(noCard.body.error.message, 'Save a default payment method before enabling auto top-up');
    await setDefault(w.ref, 'pm_card_visa');
    const small = await put(w.ref, w.poolId, { enabled: true, threshold: 1, topupCredits: 49 });
    assert.equal(small.body.error.message, 'Auto top-up amount 0.49 USD is below the 0.50 payment minimum — raise topupCredits');
    const monthly = await put(w.ref, w.poolId, { enabled: true, threshold: 1, topupCredits: 100, maxMonthlyAmount: '0.99' });
    assert.equal(monthly.body.error.message, 'maxMonthlyAmount 0.99 USD is below one top-up of 1.00 USD');
    await settings({ agentMaxTopupAmount: '0.75' });
    const capped = await put(w.ref, w.poolId, { enabled: true, threshold: 1, topupCredits: 100 });
    assert.equal(capped.status, 403, capped.text);
    assert.equal(capped.body.error.code, 'spend_cap_exceeded');
    assert.equal(capped.body.error.message, "Amount 1.00 exceeds this account's agent spend cap of 0.75");
    await settings({ agentMaxTopupAmount: 0 });
    assert.equal((await m.client('GET', rulePath(w.ref, w.poolId))).status, 404, 'nothing stored');
    const unpriced = await m.wallet(100, false, 0);
    await setDefault(unpriced.ref, 'pm_card_visa');
    const noPrice = await put(unpriced.ref, unpriced.poolId, { enabled: true, threshold: 1, topupCredits: 100 });
    assert.equal(noPrice.body.error.message, `No published price for denomination '${unpriced.denomination}' — the operator must publish a price book entry before credits can be purchased`);
  });

  test('when a customer key calls the routes then read needs read, PUT and DELETE need purchase, another customer is 403 and another pool 404', async () => {
    const w = await pricedWallet(100);
    const other = await pricedWallet(100);
    await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 10, topupCredits: 100 }));
    const as = (key: string) => ({
      get: (path: string) => svc.http.get(path, { auth: key }),
      put: (path: string, options: { body: unknown }) => svc.http.put(path, { auth: key, body: options.body }),
      delete: (path: string, options: { headers?: Record<string, string> } = {}) => svc.http.delete(path, { auth: key, ...options }),
    });
    const reader = as(await m.customerKey(w.ref, ['read']));
    const buyer = as(await m.customerKey(w.ref, ['read', 'purchase']));
    const path = `/api/v1/client${rulePath(w.ref, w.poolId)}`;
    assert.equal((await reader.get(path)).status, 200);
    assert.equal((await reader.get(`${path}/attempts`)).status, 200);
    const denied = await reader.put(path, { body: { enabled: false, threshold: 10, topupCredits: 100 } });
    assert.equal(denied.status, 403, denied.text);
    assert.equal((await reader.delete(path)).status, 403);
    assert.equal((await buyer.put(path, { body: { enabled: true, threshold: 20, topupCredits: 100 } })).status, 200);
    const foreign = await buyer.get(`/api/v1/client${rulePath(other.ref, other.poolId)}`);
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal(foreign.body.error.message, 'This API key is scoped to another customer');
    const otherPool = await buyer.get(`/api/v1/client${rulePath(w.ref, other.poolId)}`);
    assert.equal(otherPool.status, 404, otherPool.text);
    assert.equal(otherPool.body.error.message, `Credit pool not found: ${other.poolId}`);
    const accountPool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'shared', denomination: w.denomination }), 201);
    const tenantOnAccountPool = await m.client('GET', rulePath(w.ref, accountPool.id));
    assert.equal(tenantOnAccountPool.status, 404);
    // DELETE is idempotent and honours Idempotency-Key.
    assert.equal((await buyer.delete(path, { headers: { 'Idempotency-Key': 'del-1' } })).status, 200);
    assert.equal((await buyer.delete(path, { headers: { 'Idempotency-Key': 'del-1' } })).status, 200);
    assert.equal((await buyer.delete(path)).status, 200);
    assert.equal((await buyer.get(path)).status, 404);
  });

  test('when 50 concurrent draws leave the pool below the threshold then exactly one PaymentIntent is created and one grant made', async () => {
    const w = await pricedWallet(60);
    const rule = await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 50, topupCredits: 100 }, { 'Idempotency-Key': 'rule-50' }));
    assert.equal(rule.state, 'ARMED');
    const before = intents().length;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => draw(w, 1, `fifty-${i}`)));
    assert.deepEqual([...new Set(results.map((r) => r.status))], [201], results.find((r) => r.status !== 201)?.text);
    const list = await settled(w.ref, w.poolId);
    assert.equal(list.length, 1, 'one attempt recorded between the 50 draws');
    const [attempt] = list;
    assert.equal(attempt.status, 'SUCCEEDED');
    assert.equal(attempt.credits, 100);
    assert.equal(attempt.amount, 1);
    assert.equal(attempt.currency, 'USD');
    assert.ok(attempt.balanceAtTrigger < 50);
    assert.match(attempt.paymentIntentId, /^pi_/);
    const created = intents().slice(before);
    assert.equal(created.length, 1, 'one PaymentIntent');
    assert.equal(created[0]!.amount, 100);
    assert.equal((created[0]!.metadata as Record<string, string>).tally_auto_topup_attempt_id, attempt.id);
    assert.equal((created[0]!.metadata as Record<string, string>).tally_credit_pool_id, w.poolId);
    const charges = fake.calls('/v1/payment_intents', 'POST').filter((c) => c.idempotencyKey === attempt.id);
    assert.equal(charges.length, 1, 'charged with the attempt id as Idempotency-Key');
    const purchased = (await grantsOf(w.poolId)).filter((g) => g.grantType === 'PURCHASED');
    assert.equal(purchased.length, 1);
    assert.equal(purchased[0].amount, 100);
    assert.equal(purchased[0].description, 'Auto top-up');
    assert.equal(attempt.grantId, purchased[0].id);
    assert.equal(await balanceOf(w.poolId), 110);
    // The processor also reports the payment: no second grant.
    await fake.deliverWebhooks();
    assert.equal((await grantsOf(w.poolId)).filter((g) => g.grantType === 'PURCHASED').length, 1);
    // Outbound events (issue 33): one payment.succeeded naming the grant, recorded before its credits.granted.
    const log = ((await m.expectOk(m.api('GET', '/api/v1/webhooks/events?limit=200'))).items as { id: string; type: string; data: any }[]).reverse();
    const mine = log.filter((e) => (e.type === 'payment.succeeded' && e.data.object.processorPaymentId === attempt.paymentIntentId) || (e.type === 'credits.granted' && e.data.object.id === attempt.grantId));
    assert.deepEqual(mine.map((e) => e.type), ['payment.succeeded', 'credits.granted']);
    assert.equal(mine[0]!.data.object.grantId, attempt.grantId);
    const after = await getRule(w.ref, w.poolId);
    assert.equal(after.state, 'ARMED');
    assert.equal(after.monthToDateAmount, 1);
    assert.equal(after.lastAttempt.id, attempt.id);
    await m.audit();
  });

  test('when a manual deduction leaves the pool below the threshold then it records an attempt too', async () => {
    const w = await pricedWallet(60);
    await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 50, topupCredits: 100 }));
    await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: w.poolId, amount: 20 }));
    const [attempt] = await settled(w.ref, w.poolId);
    assert.equal(attempt.status, 'SUCCEEDED');
    assert.equal(attempt.balanceAtTrigger, 40);
    assert.equal(await balanceOf(w.poolId), 140);
    await m.audit();
  });

  test('when the card is declined then no grant, the failure counts and blocks for 24 h, a new default method lifts the block, and the third failure disables the rule', async () => {
    const w = await pricedWallet(100, 'pm_card_chargeDeclined');
    await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 50, topupCredits: 100 }));
    await draw(w, 60, 'decline-1');
    const [first] = await settled(w.ref, w.poolId);
    assert.equal(first.status, 'FAILED');
    assert.equal(first.failureCode, 'card_declined');
    assert.equal(first.counted, true);
    assert.equal(first.grantId, null);
    let rule = await getRule(w.ref, w.poolId);
    assert.equal(rule.consecutiveFailures, 1);
    assert.equal(rule.state, 'RETRY_BLOCKED');
    assert.equal(new Date(rule.retryAfter).getTime(), new Date(first.completedAt).getTime() + 24 * 3600 * 1000);
    await draw(w, 1, 'decline-blocked');
    assert.equal((await attempts(w.ref, w.poolId)).length, 1, 'blocked: no new attempt');
    // The same method again lifts nothing; a different one lifts the block.
    await setDefault(w.ref, 'pm_card_chargeDeclined');
    rule = await getRule(w.ref, w.poolId);
    assert.equal(rule.retryAfter, null);
    assert.equal(rule.state, 'ARMED');
    await draw(w, 1, 'decline-2');
    await settled(w.ref, w.poolId);
    rule = await getRule(w.ref, w.poolId);
    assert.equal(rule.consecutiveFailures, 2);
    await setDefault(w.ref, 'pm_card_chargeDeclined');
    await draw(w, 1, 'decline-3');
    const list = await settled(w.ref, w.poolId);
    assert.equal(list.length, 3);
    assert.deepEqual(list.map((a) => a.status), ['FAILED', 'FAILED', 'FAILED']);
    rule = await getRule(w.ref, w.poolId);
    assert.equal(rule.enabled, false);
    assert.equal(rule.disabledReason, 'CONSECUTIVE_FAILURES');
    assert.equal(rule.state, 'DISABLED');
    await setDefault(w.ref, 'pm_card_visa');
    await draw(w, 1, 'decline-after-disable');
    assert.equal((await attempts(w.ref, w.poolId)).length, 3, 'disabled: nothing attempted');
    assert.equal((await grantsOf(w.poolId)).filter((g) => g.grantType === 'PURCHASED').length, 0);
    // PUT enabled again resets the count; the next draw buys.
    rule = await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 50, topupCredits: 100 }));
    assert.equal(rule.consecutiveFailures, 0);
    assert.equal(rule.disabledReason, null);
    await draw(w, 1, 'decline-recovered');
    const [last] = await settled(w.ref, w.poolId);
    assert.equal(last.status, 'SUCCEEDED');
    const events = await m.expectOk(m.api('GET', '/api/v1/webhooks/events?limit=200'));
    const types = (events.items as any[]).map((e) => e.type);
    assert.ok(types.includes('credits.auto_topup_failed'));
    assert.ok(types.includes('credits.auto_topup_disabled'));
    assert.ok(types.includes('credits.auto_topup_succeeded'));
    await m.audit();
  });

  test('when a top-up would pass the spend cap or the monthly cap then no attempt is recorded, and a new month allows it again', async () => {
    const w = await pricedWallet(100);
    await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 50, topupCredits: 100, maxMonthlyAmount: '1.50' }));
    await settings({ agentMaxTopupAmount: '0.50' });
    assert.equal((await getRule(w.ref, w.poolId)).state, 'SPEND_CAP_EXCEEDED');
    await draw(w, 60, 'cap-1');
    assert.equal((await attempts(w.ref, w.poolId)).length, 0);
    await settings({ agentMaxTopupAmount: 0 });
    await draw(w, 1, 'cap-2');
    await settled(w.ref, w.poolId);
    const rule = await getRule(w.ref, w.poolId);
    assert.equal(rule.monthToDateAmount, 1);
    assert.equal(rule.state, 'MONTHLY_CAP_REACHED');
    await draw(w, 100, 'cap-3');
    assert.equal((await attempts(w.ref, w.poolId)).length, 1, 'the monthly cap is never exceeded');
    svc.clock.set('2027-04-01T00:00:01Z');
    assert.equal((await getRule(w.ref, w.poolId)).state, 'ARMED');
    await draw(w, 1, 'cap-4');
    const list = await settled(w.ref, w.poolId);
    assert.equal(list.length, 2);
    assert.equal(list[0].status, 'SUCCEEDED');
    await m.audit();
  });

  test('when the charge reached the processor but its answer was lost then the recovery job charges with the same key and grants once', async () => {
    const w = await pricedWallet(100);
    await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 50, topupCredits: 100 }));
    fake.failNext({ method: 'POST', path: '/v1/payment_intents' }, { status: 500, lostAnswer: true });
    const before = intents().length;
    await draw(w, 60, 'lost-1');
    await new Promise((r) => setTimeout(r, 300));
    const [pending] = await attempts(w.ref, w.poolId);
    assert.equal(pending.status, 'PENDING');
    assert.equal(intents().length, before + 1, 'the processor made the PaymentIntent');
    assert.equal((await getRule(w.ref, w.poolId)).state, 'PENDING');
    await svc.scheduler.run('auto-topup-recovery');
    assert.equal((await attempts(w.ref, w.poolId))[0].status, 'PENDING', 'younger than 60 s: left alone');
    svc.clock.advanceMs(61_000);
    await svc.scheduler.run('auto-topup-recovery');
    const [done] = await attempts(w.ref, w.poolId);
    assert.equal(done.status, 'SUCCEEDED');
    assert.equal(intents().length, before + 1, 'the same PaymentIntent: charged once');
    assert.equal(done.paymentIntentId, intents().at(-1)!.id);
    assert.deepEqual(fake.calls('/v1/payment_intents', 'POST').filter((c) => c.idempotencyKey === done.id).length, 2);
    assert.equal((await grantsOf(w.poolId)).filter((g) => g.grantType === 'PURCHASED').length, 1);
    await m.audit();
  });

  test('when the processor stays unreachable for 24 hours then the attempt fails processor_unavailable, not counted', async () => {
    const w = await pricedWallet(100);
    await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 50, topupCredits: 100 }));
    fake.failNext({ method: 'POST', path: '/v1/payment_intents' }, { status: 503 });
    await draw(w, 60, 'down-1');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await attempts(w.ref, w.poolId))[0].status, 'PENDING');
    svc.clock.advanceMs(24 * 3600 * 1000 + 1000);
    await svc.scheduler.run('auto-topup-recovery');
    const [failed] = await attempts(w.ref, w.poolId);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.failureCode, 'processor_unavailable');
    assert.equal(failed.counted, false);
    const rule = await getRule(w.ref, w.poolId);
    assert.equal(rule.consecutiveFailures, 0);
    assert.equal(rule.retryAfter, null);
    await m.audit();
  });
  test('when the spend cap falls below a PENDING attempt before its charge then it fails spend_cap_exceeded without a processor call, not counted', async () => {
    const w = await pricedWallet(100);
    await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 50, topupCredits: 100 }));
    fake.failNext({ method: 'POST', path: '/v1/payment_intents' }, { status: 503 });
    await draw(w, 60, 'cap-before-charge');
    await new Promise((r) => setTimeout(r, 300));
    const [pending] = await attempts(w.ref, w.poolId);
    assert.equal(pending.status, 'PENDING');
    await settings({ agentMaxTopupAmount: '0.50' });
    const calls = fake.calls('/v1/payment_intents', 'POST').length;
    svc.clock.advanceMs(61_000);
    await svc.scheduler.run('auto-topup-recovery');
    const [failed] = await attempts(w.ref, w.poolId);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.failureCode, 'spend_cap_exceeded');
    assert.equal(failed.failureMessage, "Amount 1.00 exceeds this account's agent spend cap of 0.50");
    assert.equal(failed.counted, false);
    assert.equal(fake.calls('/v1/payment_intents', 'POST').length, calls, 'no PaymentIntent above the cap');
    assert.equal((await getRule(w.ref, w.poolId)).consecutiveFailures, 0);
    await settings({ agentMaxTopupAmount: 0 });
    await m.audit();
  });
  test('when the charge answer is lost then the payment_intent.succeeded webhook completes the PENDING attempt and grants once', async () => {
    const w = await pricedWallet(100);
    await m.expectOk(put(w.ref, w.poolId, { enabled: true, threshold: 50, topupCredits: 100 }));
    fake.failNext({ method: 'POST', path: '/v1/payment_intents' }, { status: 500, lostAnswer: true });
    await draw(w, 60, 'webhook-1');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await attempts(w.ref, w.poolId))[0].status, 'PENDING');
    const deliveries = await fake.deliverWebhooks();
    assert.ok(deliveries.some((d) => d.type === 'payment_intent.succeeded' && d.status === 201), JSON.stringify(deliveries.map((d) => [d.type, d.status])));
    const [done] = await attempts(w.ref, w.poolId);
    assert.equal(done.status, 'SUCCEEDED');
    assert.match(done.paymentIntentId, /^pi_/);
    svc.clock.advanceMs(61_000);
    await svc.scheduler.run('auto-topup-recovery');
    assert.equal((await grantsOf(w.poolId)).filter((g) => g.grantType === 'PURCHASED').length, 1);
    assert.equal(await balanceOf(w.poolId), 140);
    await m.audit();
  });
});
