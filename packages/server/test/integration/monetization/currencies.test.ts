import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** Invoices round to the invoice currency's ISO 4217 minor units (ADR 0006): JPY 0, KWD 3, USD 2. */
describe('money in currencies with 0 and 3 minor units', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;

  before(async () => {
    svc = await startTestService({ now: '2027-01-10T09:00:00Z' });
    m = monetization(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  async function plan(currency: string, priceAmount: number | string, pricePerUnit: number | string) {
    const feature = await m.feature();
    const created = await m.expectOk(
      m.admin('POST', '/plans', { key: `p-${currency}-${feature.key}`, name: `${currency} plan ${feature.key}`, description: 'x', priceAmount, intervalMonths: 1, currency }),
      201,
    );
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: created.id, featureId: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: pricePerUnit } } }), 201);
    const active = await m.expectOk(m.admin('PATCH', `/plans/${created.id}`, { status: 'ACTIVE' }));
    return { plan: active, featureKey: feature.key as string };
  }

  const plansNow = async () => (await m.expectOk(m.admin('GET', '/plans?limit=200'))).items ?? (await m.expectOk(m.admin('GET', '/plans?limit=200')));

  test('when a JPY plan and a KWD plan bill usage then their invoice lines and totals round to 0 and 3 places (HALF_UP)', async () => {
    svc.clock.set('2027-01-10T09:00:00Z');
    const jpy = await plan('JPY', 1000, '0.5');
    const kwd = await plan('KWD', '5.125', '0.0001');
    assert.equal(kwd.plan.priceAmount, 5.125, 'a KWD price keeps its 3 places');
    await m.customer('yen');
    await m.customer('dinar');
    await m.markPaid((await m.subscribe('yen', jpy.plan.id)).invoice.id);
    await m.markPaid((await m.subscribe('dinar', kwd.plan.id)).invoice.id);
    // 3 × 0.5 = 1.5 yen → 2; 12345 × 0.0001 = 1.2345 KWD → 1.235
    assert.equal((await m.event({ customerReferenceId: 'yen', featureKey: jpy.featureKey, usageUnits: 3, eventIdempotencyKey: 'yen-1' })).status, 201);
    assert.equal((await m.event({ customerReferenceId: 'dinar', featureKey: kwd.featureKey, usageUnits: 12345, eventIdempotencyKey: 'dinar-1' })).status, 201);

    svc.clock.set('2027-02-10T01:00:00Z');
    await svc.scheduler.run('subscription-cycle');

    const regular = async (ref: string) => (await m.invoices(ref)).items.find((i: any) => i.type === 'REGULAR');
    const yen = await regular('yen');
    assert.equal(yen.currency, 'JPY');
    assert.deepEqual(yen.items.map((i: any) => i.chargeAmount), [1000, 2]);
    assert.equal(yen.amount, 1002, 'the total is the sum of the rounded lines');
    const dinar = await regular('dinar');
    assert.equal(dinar.currency, 'KWD');
    assert.deepEqual(dinar.items.map((i: any) => i.chargeAmount), [5.125, 1.235]);
    assert.equal(dinar.amount, 6.36);
  });

  test('when a JPY subscription is cancelled mid-period then the refund is whole yen', async () => {
    svc.clock.set('2027-03-01T00:00:00Z');
    const jpy = await plan('JPY', 3001, 1);
    await m.customer('yen-cancel');
    const sub = await m.subscribe('yen-cancel', jpy.plan.id);
    await m.markPaid(sub.invoice.id);
    svc.clock.set('2027-03-11T00:00:00Z'); // 21 of 31 days left: 3001 × 0.67741935 = 2032.93…
    const res = await m.client('POST', `/subscriptions/cancellation/${sub.subscription.id}?cancelMode=IMMEDIATE`);
    assert.equal(res.status, 200, res.text);
    const credit = (await m.invoices('yen-cancel')).items.find((i: any) => i.type === 'CREDIT');
    assert.equal(credit.amount, -2033);
    assert.deepEqual(credit.items.map((i: any) => i.chargeAmount), [-2033]);
  });

  test('when a price has more places than its currency then 400 validation_failed naming priceAmount, and nothing is stored or changed', async () => {
    const before = await plansNow();
    const jpy = await m.admin('POST', '/plans', { key: 'jpy-cents', name: 'x', priceAmount: 10.5, intervalMonths: 1, currency: 'JPY' });
    assert.equal(jpy.status, 400, jpy.text);
    assert.equal(jpy.body.error.code, 'validation_failed');
    assert.equal(jpy.body.error.message, 'Validation failed: priceAmount: must have at most 0 decimal places for JPY');
    const draft = await m.expectOk(m.admin('POST', '/plans', { key: 'usd-then-jpy', name: 'x', priceAmount: 10.5, intervalMonths: 1 }), 201);
    const patch = await m.admin('PATCH', `/plans/${draft.id}`, { currency: 'JPY' });
    assert.equal(patch.status, 400, patch.text);
    assert.equal(patch.body.error.code, 'validation_failed');
    assert.match(patch.body.error.message, /priceAmount: must have at most 0 decimal places for JPY/);
    const after = await m.expectOk(m.admin('GET', `/plans/${draft.id}`));
    assert.equal(after.currency, 'USD');
    assert.equal(after.priceAmount, 10.5);
    const unknown = await m.admin('POST', '/plans', { key: 'zzz', name: 'x', priceAmount: 1, intervalMonths: 1, currency: 'ZZZ' });
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.body.error.code, 'validation_failed');
    assert.match(unknown.body.error.message, /currency: must be an ISO 4217 code such as USD/);
    const plans = await plansNow();
    assert.equal(plans.length, before.length + 1, 'only the valid draft was stored');
    assert.equal(plans.some((p: any) => p.key === 'jpy-cents'), false);
  });

  test('when upgrading to a plan in another currency then 400 validation_failed and the subscription and invoices are unchanged', async () => {
    svc.clock.set('2027-04-01T00:00:00Z');
    const usd = await plan('USD', 10, 1);
    const jpy = await plan('JPY', 1000, 1);
    await m.customer('switcher');
    const sub = await m.subscribe('switcher', usd.plan.id);
    await m.markPaid(sub.invoice.id);
    const invoicesBefore = await m.invoices('switcher');
    const res = await m.client('POST', `/subscriptions/${sub.subscription.id}/plan-change`, { changeToPlanId: jpy.plan.id, changeType: 'UPGRADE' });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'validation_failed');
    assert.equal(res.body.error.message, 'Cannot change to a plan with a different currency');
    const after = await m.expectOk(m.admin('GET', `/subscriptions/${sub.subscription.id}`));
    assert.equal(after.planId ?? after.plan?.id, usd.plan.id);
    assert.deepEqual(await m.invoices('switcher'), invoicesBefore);
  });
});
