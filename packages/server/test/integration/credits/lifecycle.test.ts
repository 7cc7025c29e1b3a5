import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

describe('credit lifecycle across billing periods', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let feature: any;

  before(async () => {
    svc = await startTestService({ now: '2027-01-10T09:00:00Z' });
    m = monetization(svc, await createTestAccount(svc));
    feature = await m.feature({ key: 'gen' });
  });
  after(() => svc.close());

  async function creditPlan(options: { key: string; price: number; credits: number; rollover: string; cap?: number; denomination: string }) {
    const model = await m.creditModel({ denomination: options.denomination, rolloverPolicy: options.rollover, ...(options.cap ? { rolloverCap: options.cap } : {}) });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: options.key, name: options.key, description: 'x', priceAmount: options.price, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=${options.credits}`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    return { plan, model };
  }
  const poolOf = async (ref: string, denomination: string) =>
    (await m.expectOk(m.client('GET', `/credits/${ref}/pools`))).items.find((p: any) => p.denomination === denomination);
  const runCycle = () => svc.scheduler.run('subscription-cycle');

  test('when periods roll over then each period grants once (even if the job runs twice) and the rollover policy applies first', async () => {
    const none = await creditPlan({ key: 'none', price: 0, credits: 100, rollover: 'NONE', denomination: 'c-none' });
    const capped = await creditPlan({ key: 'capped', price: 0, credits: 100, rollover: 'CAPPED', cap: 30, denomination: 'c-cap' });
    const full = await creditPlan({ key: 'full', price: 0, credits: 100, rollover: 'FULL', denomination: 'c-full' });
    for (const [ref, p] of [['r-none', none], ['r-cap', capped], ['r-full', full]] as const) {
      await m.customer(ref);
      await m.subscribe(ref, p.plan.id);
      await m.event({ customerReferenceId: ref, featureKey: 'gen', usageUnits: 40, eventIdempotencyKey: `${ref}-1` });
    }
    svc.clock.set('2027-02-10T01:00:00Z');
    await runCycle();
    svc.clock.set('2027-02-10T02:00:00Z');
    await runCycle(); // a second slot: the period was already granted
    assert.equal((await poolOf('r-none', 'c-none')).balance, 100, 'NONE: the 60 left expire, 100 granted');
    assert.equal((await poolOf('r-cap', 'c-cap')).balance, 130, 'CAPPED at 30: 30 kept + 100');
    assert.equal((await poolOf('r-full', 'c-full')).balance, 160, 'FULL: 60 kept + 100');
    assert.equal((await poolOf('r-cap', 'c-cap')).totalExpired, 30);
    await m.audit();
  });

  test('when a customer upgrades then the allocation difference is granted; when cancelled then plan credits are clawed back and purchased ones stay', async () => {
    const small = await creditPlan({ key: 'small', price: 10, credits: 100, rollover: 'FULL', denomination: 'c-up' });
    const bigPlan = await m.expectOk(m.admin('POST', '/plans', { key: 'big', name: 'big', description: 'x', priceAmount: 30, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: bigPlan.id, featureId: feature.id, creditModelId: small.model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${small.model.id}/plans/${bigPlan.id}?creditAmount=250`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${bigPlan.id}`, { status: 'ACTIVE' }));
    await m.customer('u1');
    const sub = await m.subscribe('u1', small.plan.id);
    await m.markPaid(sub.invoice.id);
    const up = await m.expectOk(m.client('POST', `/subscriptions/${sub.subscription.id}/plan-change`, { changeToPlanId: bigPlan.id, changeType: 'UPGRADE' }));
    assert.equal(up.subscription.plan.id, bigPlan.id);
    let pool = await poolOf('u1', 'c-up');
    assert.equal(pool.balance, 250, '100 + the 150 difference');
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 40, grantType: 'PURCHASED' }), 201);
    await m.event({ customerReferenceId: 'u1', featureKey: 'gen', usageUnits: 20, eventIdempotencyKey: 'u1-1' });
    const cancel = await m.client('POST', `/subscriptions/cancellation/${sub.subscription.id}?cancelMode=IMMEDIATE`);
    assert.equal(cancel.status, 200);
    pool = await poolOf('u1', 'c-up');
    assert.equal(pool.balance, 40, 'the purchased credits survive the claw-back');
    const tx = (await m.expectOk(m.client('GET', `/credits/u1/pools/${pool.id}/transactions?limit=200`))).items;
    assert.ok(tx.some((t: any) => t.transactionType === 'EXPIRATION' && t.description === 'Claw back on subscription cancellation'));
    const chain = tx.every((t: any, i: number) => i === 0 || t.balanceBefore === tx[i - 1].balanceAfter);
    assert.ok(chain, 'the ledger chain is unbroken');
    await m.audit();
  });

  test('when the burndown is read then pools show balance, daily burn, depletion date and the current price', async () => {
    svc.clock.set('2027-06-01T00:00:00Z');
    const p = await creditPlan({ key: 'burn', price: 0, credits: 100, rollover: 'FULL', denomination: 'c-burn' });
    await m.customer('b1');
    await m.subscribe('b1', p.plan.id);
    svc.clock.set('2027-06-05T00:00:00Z');
    await m.event({ customerReferenceId: 'b1', featureKey: 'gen', usageUnits: 20, eventIdempotencyKey: 'b1-1' });
    const report = await m.expectOk(m.client('GET', '/customers/b1/usage'));
    const pool = report.creditPools.find((x: any) => x.denomination === 'c-burn');
    assert.equal(pool.balance, 80);
    assert.equal(pool.averageDailyBurn, 5, '20 consumed over 4 days');
    assert.equal(pool.projectedDepletionDate, '2027-06-21T00:00:00.000Z', 'now + ceil(80 / 5) days');
    assert.equal(pool.pricePerCredit, undefined, 'unpriced denomination: no price');
  });
});
