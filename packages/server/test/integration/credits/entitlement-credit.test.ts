import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { callTool, mcpClient } from '../mcp/mcp-helpers.js';

/**
 * The entitlement result's `credit` (contract §4.9): the subscription's linked, drawable pools in the
 * rule's denomination, summed exactly; `balance` is what the check's credit limit decision compares
 * the charge with (held credits out, link draw limits applied). Weights are the identity (no tariff),
 * so credits = units and every figure is hand-computed.
 */
describe(`entitlement credit summary (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let apiKey: string;
  const unique = () => randomBytes(4).toString('hex');

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    apiKey = account.apiKey;
    m = monetization(svc, account);
  });
  after(() => svc.close());

  const customerId = async (ref: string) => (await m.expectOk(m.admin('GET', '/customers'))).find((c: any) => c.customerReferenceId === ref).id as string;
  const evaluate = (ref: string, featureKey: string, usageUnits: number | string, extra: Record<string, unknown> = {}) =>
    m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: ref, featureKey, usage: { usageUnits }, ...extra }));

  /** A subscribed customer on a free plan whose feature's rule has a credit model, with no allocation (so no pool yet). */
  async function creditFeatureWithoutPool(hardLimit = false) {
    const model = await m.creditModel({ denomination: `cr-${unique()}`, hardLimit });
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 0, features: [{ id: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0.5 } } }] });
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id }));
    const ref = `c-${unique()}`;
    await m.customer(ref);
    const sub = await m.subscribe(ref, plan.id);
    return { ref, featureKey: feature.key as string, denomination: model.denomination as string, subscriptionId: sub.subscription.id as string };
  }

  test('when credits were granted and drawn across two pools then GET, POST and the MCP tool show their exact sums', async () => {
    const f = await creditFeatureWithoutPool();
    // The customer's own soft pool (0.1) drawn first, then a shared hard-limit pool (0.2) linked to the subscription.
    const own = await m.expectOk(m.admin('POST', '/credits/pools', { name: `own-${unique()}`, denomination: f.denomination, customerId: await customerId(f.ref), hardLimit: false }), 201);
    const shared = await m.expectOk(m.admin('POST', '/credits/pools', { name: `shared-${unique()}`, denomination: f.denomination, hardLimit: true }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: own.id, amount: '0.1', grantType: 'MANUAL' }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: shared.id, amount: '0.2', grantType: 'PROMOTIONAL' }), 201);
    await m.expectOk(m.admin('POST', `/credits/pools/${own.id}/subscriptions/${f.subscriptionId}?drawPriority=1`), 201);
    await m.expectOk(m.admin('POST', `/credits/pools/${shared.id}/subscriptions/${f.subscriptionId}?drawPriority=2`), 201);

    const fresh = await m.check(f.ref, f.featureKey);
    // 0.1 + 0.2 in floats is 0.30000000000000004.
    assert.deepEqual(fresh.credit, { denomination: f.denomination, balance: 0.3, totalGranted: 0.3, totalConsumed: 0, hardLimit: true });

    const drawn = await m.event({ customerReferenceId: f.ref, featureKey: f.featureKey, usageUnits: '0.15' });
    assert.equal(drawn.status, 201, drawn.text);
    assert.equal(drawn.body.data.creditsDeducted, 0.15);
    assert.deepEqual([(await m.expectOk(m.admin('GET', `/credits/pools/${own.id}`))).totalConsumed, (await m.expectOk(m.admin('GET', `/credits/pools/${shared.id}`))).totalConsumed], [0.1, 0.05]);

    const expected = { denomination: f.denomination, balance: 0.15, totalGranted: 0.3, totalConsumed: 0.15, hardLimit: true };
    const get = await m.client('GET', `/entitlements/${f.ref}/${f.featureKey}`);
    assert.equal(get.status, 200, get.text);
    assert.deepEqual(get.body.data.credit, expected);
    assert.match(get.text, /"credit":\{"denomination":"[^"]+","balance":0\.15,"totalGranted":0\.3,"totalConsumed":0\.15,"hardLimit":true\}/);
    // Every other field is as before; the hard-limit pools cannot cover the GET's one unit.
    assert.deepEqual(Object.keys(get.body.data), ['customerReferenceId', 'referenceCustomerId', 'featureKey', 'allowed', 'meta', 'flowId', 'usage', 'credit']);
    assert.equal(get.body.data.meta.reason.code, 'CREDIT_LIMIT_REACHED');

    const post = await evaluate(f.ref, f.featureKey, '0.15');
    assert.equal(post.allowed, true);
    assert.deepEqual(post.credit, expected);
    assert.equal(post.creditQuote.estimatedCredits, 0.15);

    const mcp = await mcpClient(svc, apiKey);
    try {
      const res = await callTool(mcp, 'checkEntitlement', { customerReferenceId: f.ref, featureKey: f.featureKey, usageUnits: 0.15 });
      assert.equal(res.isError, false, res.text);
      assert.deepEqual(res.json.credit, expected);
    } finally {
      await mcp.close();
    }
    await m.audit();
  });

  test('when the rule has no credit model, or the customer has no drawable pool linked in its denomination, then credit is absent', async () => {
    const plain = await m.feature();
    const plan = await m.activePlan({ price: 0, features: [{ id: plain.id }] });
    const ref = `c-${unique()}`;
    await m.customer(ref);
    await m.subscribe(ref, plan.id);
    assert.ok(!('credit' in (await m.check(ref, plain.key))), 'no credit model: GET');
    const plainEval = await evaluate(ref, plain.key, 1);
    assert.ok(!('credit' in plainEval), 'no credit model: POST');
    assert.equal(plainEval.creditQuote.weightMatch, 'NONE');

    const f = await creditFeatureWithoutPool();
    const noPool = await m.check(f.ref, f.featureKey);
    assert.equal(noPool.allowed, true);
    assert.ok(!('credit' in noPool), 'no pool: GET');
    assert.ok(!('credit' in (await evaluate(f.ref, f.featureKey, 1))), 'no pool: POST');

    // A pool of the customer's that is not linked to the subscription is one nothing on the check's path can draw.
    const own = await m.expectOk(m.admin('POST', '/credits/pools', { name: `own-${unique()}`, denomination: f.denomination, customerId: await customerId(f.ref) }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: own.id, amount: 40, grantType: 'MANUAL' }), 201);
    assert.ok(!('credit' in (await m.check(f.ref, f.featureKey))), 'an unlinked pool does not count');
    await m.expectOk(m.admin('POST', `/credits/pools/${own.id}/subscriptions/${f.subscriptionId}?drawPriority=0`), 201);
    assert.deepEqual((await m.check(f.ref, f.featureKey)).credit, { denomination: f.denomination, balance: 40, totalGranted: 40, totalConsumed: 0, hardLimit: false });

    // No subscription: no rule applies, so no credit, even with a pool in the denomination.
    const stranger = `c-${unique()}`;
    await m.customer(stranger);
    await m.expectOk(m.admin('POST', '/credits/pools', { name: `stranger-${unique()}`, denomination: f.denomination, customerId: await customerId(stranger) }), 201);
    const none = await m.check(stranger, f.featureKey);
    assert.equal(none.meta.reason.code, 'NO_SUBSCRIPTION');
    assert.ok(!('credit' in none));
  });

  test('when credits are held then the balance leaves them out, as the credit limit decision does', async () => {
    const w = await m.wallet(100, true);
    await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: w.ref, denomination: w.denomination, amount: '69.5', idempotencyKey: `k-${unique()}` }), 201);
    const held = { denomination: w.denomination, balance: 30.5, totalGranted: 100, totalConsumed: 0, hardLimit: true };
    assert.deepEqual((await m.check(w.ref, w.featureKey)).credit, held);

    const denied = await evaluate(w.ref, w.featureKey, 31);
    assert.equal(denied.meta.reason.code, 'CREDIT_LIMIT_REACHED');
    assert.deepEqual(denied.credit, held, 'a refused charge is above the balance shown');
    const allowed = await evaluate(w.ref, w.featureKey, '30.5');
    assert.equal(allowed.allowed, true);
    assert.deepEqual(allowed.credit, held);

    // An evaluate that holds shows the pools as its decision saw them; the next check sees the hold.
    const reserved = await evaluate(w.ref, w.featureKey, 10, { reserve: true });
    assert.equal(reserved.reservation.amountHeld, 10);
    assert.deepEqual(reserved.credit, held);
    assert.deepEqual((await m.check(w.ref, w.featureKey)).credit, { ...held, balance: 20.5 });
    await m.audit();
  });

  test('when a link has a draw limit then the balance is capped by it, as the draw is', async () => {
    const f = await creditFeatureWithoutPool();
    const shared = await m.expectOk(m.admin('POST', '/credits/pools', { name: `capped-${unique()}`, denomination: f.denomination, hardLimit: true }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: shared.id, amount: 50, grantType: 'MANUAL' }), 201);
    await m.expectOk(m.admin('POST', `/credits/pools/${shared.id}/subscriptions/${f.subscriptionId}?drawPriority=0&drawLimit=5`), 201);
    const capped = { denomination: f.denomination, balance: 5, totalGranted: 50, totalConsumed: 0, hardLimit: true };
    assert.deepEqual((await m.check(f.ref, f.featureKey)).credit, capped);
    assert.equal((await evaluate(f.ref, f.featureKey, 6)).meta.reason.code, 'CREDIT_LIMIT_REACHED');
    assert.equal((await evaluate(f.ref, f.featureKey, 5)).allowed, true);
    assert.equal((await m.event({ customerReferenceId: f.ref, featureKey: f.featureKey, usageUnits: 2 })).status, 201);
    assert.deepEqual((await m.check(f.ref, f.featureKey)).credit, { ...capped, balance: 3, totalConsumed: 2 });
    await m.audit();
  });
});
