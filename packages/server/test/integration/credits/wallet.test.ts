import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe('credit wallets: plan credits, weighted draw-down, FIFO, priorities, limits', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let model: any;
  let feature: any;
  let plan: any;

  before(async () => {
    svc = await startTestService({ now: '2027-03-01T10:00:00Z' });
    m = monetization(svc, await createTestAccount(svc));
    model = await m.creditModel({ denomination: 'tokens', hardLimit: true, rolloverPolicy: 'NONE' });
    feature = await m.feature({ key: 'ai.gen' });
    plan = await m.expectOk(m.admin('POST', '/plans', { key: 'credits-pro', name: 'Credits Pro', description: 'With credits', priceAmount: 20, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'tokens', price_per_unit: 0 } } }), 201);
    const allocation = await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=1000&grantExpiresMonths=2`), 201);
    assert.equal(allocation.creditAmount, 1000);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    // Tariff: gpt-4 weighs 2.5, the feature default 1.5; published for the future, then the clock moves past it.
    const at = new Date(svc.clock.now().getTime() + HOUR).toISOString();
    await m.expectOk(m.admin('POST', '/credits/weights/publish', { effectiveFrom: at, entries: [{ featureId: feature.id, model: 'gpt-4', creditsPerUnit: 2.5 }, { featureId: feature.id, creditsPerUnit: 1.5 }] }), 201);
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: at, entries: [{ denomination: 'tokens', pricePerCredit: 0.01 }] }), 201);
    svc.clock.advanceMs(2 * HOUR);
  });
  after(() => svc.close());

  const pools = async (ref: string) => (await m.expectOk(m.client('GET', `/credits/${ref}/pools`))).items;

  test('when the first invoice is paid then the plan-included grant appears in an auto-created pool', async () => {
    await m.customer('w1');
    const sub = await m.subscribe('w1', plan.id);
    assert.deepEqual(await pools('w1'), [], 'no credits before payment');
    await m.markPaid(sub.invoice.id);
    const [pool] = await pools('w1');
    assert.equal(pool.denomination, 'tokens');
    assert.equal(pool.balance, 1000);
    assert.equal(pool.hardLimit, true);
    const grants = (await m.expectOk(m.client('GET', `/credits/w1/pools/${pool.id}/grants`))).items;
    assert.equal(grants.length, 1);
    assert.equal(grants[0].grantType, 'PLAN_INCLUDED');
    assert.equal(grants[0].expiresAt, '2027-05-01T12:00:00.000Z', 'expires grantExpiresMonths after the grant');
    await m.audit();
  });

  test('when events are ingested then the weight resolves by model, feature default, or identity, and the receipt says so', async () => {
    const cases = [
      { model: 'gpt-4', units: 10, credits: 25, match: 'MODEL', weight: 2.5 },
      { model: 'claude', units: 10, credits: 15, match: 'FEATURE_DEFAULT', weight: 1.5 },
      { model: undefined, units: 3.333333, credits: 4.9999995, match: 'FEATURE_DEFAULT', weight: 1.5 },
    ];
    let balance = 1000;
    for (const [i, c] of cases.entries()) {
      const res = await m.event({ customerReferenceId: 'w1', featureKey: 'ai.gen', usageUnits: c.units, eventIdempotencyKey: `w1-${i}`, ...(c.model ? { costInput: { model: c.model } } : {}) });
      assert.equal(res.status, 201, res.text);
      const expected = Math.round(c.credits * 1e6) / 1e6; // 6 dp HALF_UP, as the server rounds it
      assert.equal(res.body.data.creditsDeducted, c.credits === 4.9999995 ? 5 : expected);
      assert.equal(res.body.data.weightApplied, c.weight);
      assert.equal(res.body.data.weightMatch, c.match);
      assert.ok(res.body.data.weightId);
      balance -= res.body.data.creditsDeducted;
      assert.equal(res.body.data.remainingBalance, Math.round(balance * 1e6) / 1e6);
    }
    await m.audit();
  });

  test('when a feature has no tariff row then one unit burns one credit (weight 1, NONE)', async () => {
    const f = await m.feature({ key: 'ai.unweighted' });
    const p = await m.expectOk(m.admin('POST', '/plans', { key: 'unweighted', name: 'Unweighted', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: p.id, featureId: f.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${p.id}?creditAmount=50`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${p.id}`, { status: 'ACTIVE' }));
    await m.customer('w2');
    await m.subscribe('w2', p.id);
    const res = await m.event({ customerReferenceId: 'w2', featureKey: 'ai.unweighted', usageUnits: 7, eventIdempotencyKey: 'w2-1' });
    assert.equal(res.body.data.creditsDeducted, 7);
    assert.equal(res.body.data.weightApplied, 1);
    assert.equal(res.body.data.weightMatch, 'NONE');
    assert.equal(res.body.data.weightId, null);
    assert.equal(res.body.data.remainingBalance, 43);
  });

  test('when a hard-limit pool cannot cover an event then 409 insufficient_credits, and neither the event nor any deduction is stored', async () => {
    const [pool] = await pools('w2');
    const before = await m.expectOk(m.client('GET', `/credits/w2/pools/${pool.id}/transactions`));
    const res = await m.event({ customerReferenceId: 'w2', featureKey: 'ai.unweighted', usageUnits: 44, eventIdempotencyKey: 'w2-too-much' });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'insufficient_credits');
    assert.match(res.body.error.message, /^Credit pool depleted/);
    const after = await m.expectOk(m.client('GET', `/credits/w2/pools/${pool.id}/transactions`));
    assert.equal(after.pagination.total, before.pagination.total);
    const events = await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=w2&eventType=CLIENT_TRACKED'));
    assert.equal(events.items.some((e: any) => e.eventIdempotencyKey === 'w2-too-much'), false);
    const quote = await m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: 'w2', featureKey: 'ai.unweighted', usage: { usageUnits: 44 } }));
    assert.equal(quote.allowed, false);
    assert.equal(quote.meta.reason.code, 'CREDIT_LIMIT_REACHED');
    await m.audit();
  });

  test('when an event that emptied a hard-limit pool is retried with its key then 409 conflict (not insufficient_credits), and nothing changes', async () => {
    const [pool] = await pools('w2');
    assert.equal(pool.balance, 43);
    const first = await m.event({ customerReferenceId: 'w2', featureKey: 'ai.unweighted', usageUnits: 43, eventIdempotencyKey: 'w2-empties' });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.remainingBalance, 0);
    const txBefore = await m.expectOk(m.client('GET', `/credits/w2/pools/${pool.id}/transactions`));
    const eventsBefore = await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=w2&eventType=CLIENT_TRACKED'));

    const retry = await m.event({ customerReferenceId: 'w2', featureKey: 'ai.unweighted', usageUnits: 43, eventIdempotencyKey: 'w2-empties' });
    assert.equal(retry.status, 409, retry.text);
    assert.equal(retry.body.error.code, 'conflict');
    assert.equal(retry.body.error.message, "Event with eventIdempotencyKey 'w2-empties' was already ingested");

    const txAfter = await m.expectOk(m.client('GET', `/credits/w2/pools/${pool.id}/transactions`));
    assert.equal(txAfter.pagination.total, txBefore.pagination.total, 'no ledger row was written');
    const eventsAfter = await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=w2&eventType=CLIENT_TRACKED'));
    assert.deepEqual(eventsAfter.items, eventsBefore.items, 'the stored event is untouched');
    assert.equal((await pools('w2'))[0].balance, 0);
    // A new key into the empty pool is still refused as insufficient_credits.
    const fresh = await m.event({ customerReferenceId: 'w2', featureKey: 'ai.unweighted', usageUnits: 1, eventIdempotencyKey: 'w2-after-empty' });
    assert.equal(fresh.status, 409);
    assert.equal(fresh.body.error.code, 'insufficient_credits');
    await m.audit();
  });

  test('when a pool has two grants with different expiries then draws are FIFO and an expired grant is never drawn', async () => {
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'fifo', denomination: 'tokens' }), 201);
    const now = svc.clock.now().getTime();
    const first = await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 10, grantType: 'PROMOTIONAL', expiresAt: new Date(now + DAY).toISOString() }), 201);
    const second = await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 10, grantType: 'PROMOTIONAL', expiresAt: new Date(now + 10 * DAY).toISOString() }), 201);
    await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: pool.id, amount: 4 }));
    let grants = await m.expectOk(m.admin('GET', `/credits/pools/${pool.id}/grants`));
    assert.deepEqual(grants.map((g: any) => [g.id, g.remaining]), [[first.id, 6], [second.id, 10]]);
    svc.clock.advanceMs(2 * DAY); // the first grant has expired but the job has not run yet
    await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: pool.id, amount: 3 }));
    grants = await m.expectOk(m.admin('GET', `/credits/pools/${pool.id}/grants`));
    assert.deepEqual(grants.map((g: any) => g.remaining), [6, 7], 'the expired grant was skipped');
    await svc.scheduler.run('credit-expiration');
    const after = await m.expectOk(m.admin('GET', `/credits/pools/${pool.id}`));
    assert.equal(after.totalExpired, 6);
    assert.equal(after.balance, 7);
    await m.audit();
  });

  test('when a subscription draws from two pools then the lower draw priority is used first and draw limits hold', async () => {
    const f = await m.feature({ key: 'ai.prio' });
    const p = await m.activePlan({ price: 0, features: [{ id: f.id, value: { pricing: { model: 'usage', usage_unit_type: 'x', price_per_unit: 0.1 } } }] });
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: p.id, featureId: f.id, creditModelId: model.id }));
    const cust = await m.customer('w3');
    const sub = await m.subscribe('w3', p.id);
    const customerId = (await m.expectOk(m.admin('GET', '/customers'))).find((c: any) => c.customerReferenceId === cust.customerReferenceId).id;
    const soft = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'w3-soft', denomination: 'tokens', customerId, hardLimit: false }), 201);
    const promo = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'w3-promo', denomination: 'tokens', customerId, hardLimit: false }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: soft.id, amount: 100, grantType: 'MANUAL' }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: promo.id, amount: 100, grantType: 'PROMOTIONAL' }), 201);
    await m.expectOk(m.admin('POST', `/credits/pools/${soft.id}/subscriptions/${sub.subscription.id}?drawPriority=5`), 201);
    await m.expectOk(m.admin('POST', `/credits/pools/${promo.id}/subscriptions/${sub.subscription.id}?drawPriority=1&drawLimit=30`), 201);
    const res = await m.event({ customerReferenceId: 'w3', featureKey: 'ai.prio', usageUnits: 50, eventIdempotencyKey: 'w3-1' });
    assert.equal(res.body.data.creditsDeducted, 50);
    assert.equal((await m.expectOk(m.admin('GET', `/credits/pools/${promo.id}`))).balance, 70, 'priority 1 first, up to its draw limit of 30');
    assert.equal((await m.expectOk(m.admin('GET', `/credits/pools/${soft.id}`))).balance, 80);
    const links = await m.expectOk(m.admin('GET', `/credits/pools/${promo.id}/subscriptions`));
    assert.deepEqual(links.map((l: any) => [l.subscriptionId, l.drawPriority, String(l.drawLimit), String(l.totalDrawn)]), [[sub.subscription.id, 1, '30', '30']], 'the pool lists its link with what it drew');

    // Soft pools: what they cannot cover stays billable usage, priced per unit.
    const big = await m.event({ customerReferenceId: 'w3', featureKey: 'ai.prio', usageUnits: 100, eventIdempotencyKey: 'w3-2' });
    assert.equal(big.status, 201);
    assert.equal(big.body.data.creditsDeducted, 80);
    assert.equal(big.body.data.remainingBalance, 70);
    const events = await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=w3&eventType=CLIENT_TRACKED'));
    const stored = events.items.find((e: any) => e.eventIdempotencyKey === 'w3-2');
    assert.equal(stored.revenueAmount, 2, '20 uncovered units × 0.1');
    assert.equal(stored.context.credit_deducted, 80, 'a number, as it was computed (jsonb keeps Decimals exact)');
    await m.audit();
  });

  test('when credits are purchased then the grant is stamped at the book price; an explicit unitPrice wins; currency alone is refused', async () => {
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'shop', denomination: 'tokens', currency: 'EUR' }), 201);
    const stamped = await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 100, grantType: 'PURCHASED' }), 201);
    assert.equal(stamped.unitPrice, 0.01);
    assert.equal(stamped.currency, 'USD');
    const explicit = await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 100, grantType: 'PURCHASED', unitPrice: 0.02 }), 201);
    assert.equal(explicit.unitPrice, 0.02);
    assert.equal(explicit.currency, 'EUR', 'the pool currency');
    const refused = await m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 100, grantType: 'PURCHASED', currency: 'USD' });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.message, 'Validation failed: currency: currency requires unitPrice — omit both to use the price book');
    const again = await m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 5, grantType: 'PROMOTIONAL', idempotencyKey: 'g-1' });
    const replay = await m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 5, grantType: 'PROMOTIONAL', idempotencyKey: 'g-1' });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.data.id, again.body.data.id);
    const clash = await m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 6, grantType: 'PROMOTIONAL', idempotencyKey: 'g-1' });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.error.code, 'idempotency_conflict');
    await m.audit();
  });

  test('when a transaction is reversed then it is reversed once, and a reversed deduction restores the grants it drew from', async () => {
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'rev', denomination: 'tokens' }), 201);
    const a = await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 5, grantType: 'MANUAL' }), 201);
    const b = await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 5, grantType: 'MANUAL' }), 201);
    const deduction = await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: pool.id, amount: 7 }));
    assert.equal(deduction.balanceBefore, 10);
    assert.equal(deduction.balanceAfter, 3);
    const reversal = await m.expectOk(m.admin('POST', `/credits/transactions/${deduction.id}/reverse?description=mistake`));
    assert.equal(reversal.transactionType, 'REVERSAL');
    assert.equal(reversal.amount, 7);
    assert.equal(reversal.reversedTransactionId, deduction.id);
    const grants = await m.expectOk(m.admin('GET', `/credits/pools/${pool.id}/grants`));
    assert.deepEqual(grants.map((g: any) => [g.id, g.remaining]), [[a.id, 5], [b.id, 5]]);
    const twice = await m.admin('POST', `/credits/transactions/${deduction.id}/reverse`);
    assert.equal(twice.status, 409);
    const ofReversal = await m.admin('POST', `/credits/transactions/${reversal.id}/reverse`);
    assert.equal(ofReversal.status, 409);
    const after = await m.expectOk(m.admin('GET', `/credits/pools/${pool.id}`));
    assert.equal(after.totalReversed, 7);
    assert.equal(after.balance, 10);
    await m.audit();
  });
});

describe('credit-backed rules', () => {
  test('when a rule links a credit model then its response names the model and denomination', async () => {
    const svc = await startTestService();
    try {
      const m = monetization(svc, await createTestAccount(svc));
      const model = await m.creditModel({ name: 'Tokens', denomination: 'tok' });
      const feature = await m.feature();
      const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'r', name: 'r' }), 201);
      const rule = await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id }), 201);
      assert.equal(rule.creditModelId, model.id);
      assert.equal(rule.creditModelName, 'Tokens');
      assert.equal(rule.creditDenomination, 'tok');
      const read = await m.expectOk(m.admin('GET', `/rules/plan-features/${plan.id}/${feature.id}`));
      assert.equal(read.creditDenomination, 'tok');
    } finally {
      await svc.close();
    }
  });
});
