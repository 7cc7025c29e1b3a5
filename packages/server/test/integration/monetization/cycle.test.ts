import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const DAY = 86_400_000;

describe('billing cycle with a frozen clock', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let featureKey: string;
  let planId: string;

  before(async () => {
    svc = await startTestService({ now: '2027-01-31T09:00:00Z' });
    m = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature();
    featureKey = feature.key;
    planId = (await m.activePlan({ price: 30, features: [{ id: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 0.015 } } }] })).id;
  });
  after(() => svc.close());

  const runJobs = async () => {
    await svc.scheduler.run('subscription-cycle');
    await svc.scheduler.run('invoice-due');
  };

  test('when periods close across month ends then each usage rolls into the next invoice and anchors stay on the 31st', async () => {
    await m.customer('cyc_1');
    const sub = await m.subscribe('cyc_1', planId);
    await m.markPaid(sub.invoice.id);
    assert.equal(sub.subscription.currentPeriodEnd, '2027-02-28T00:00:00.000Z');

    await m.event({ customerReferenceId: 'cyc_1', featureKey, usageUnits: 100, eventIdempotencyKey: 'p1-a' }); // 1.50
    await m.event({ customerReferenceId: 'cyc_1', featureKey, usageUnits: 1, eventIdempotencyKey: 'p1-b' }); // 0.015

    svc.clock.set('2027-02-28T00:30:00Z');
    await runJobs();
    await runJobs(); // a second run in the same slot, and a rerun of the work, change nothing
    let invoices = await m.invoices('cyc_1');
    const feb = invoices.items.filter((i: any) => i.type === 'REGULAR');
    assert.equal(feb.length, 1);
    assert.equal(feb[0].periodStart, '2027-02-28T00:00:00.000Z');
    assert.equal(feb[0].periodEnd, '2027-03-31T00:00:00.000Z', 'anchor 31: Feb 28 → Mar 31');
    assert.equal(feb[0].status, 'DUE');
    assert.deepEqual(
      feb[0].items.map((i: any) => [i.description, i.chargeAmount]),
      [
        [`Plan base price: Plan ${(await m.expectOk(m.admin('GET', `/plans/${planId}`))).key}`, 30],
        [`Usage for ${featureKey}: 101 units (Model: usage)`, 1.52],
      ],
    );
    assert.equal(feb[0].amount, 31.52, 'the total is the sum of the rounded lines');
    await m.markPaid(feb[0].id);

    svc.clock.set('2027-03-31T01:00:00Z');
    await m.event({ customerReferenceId: 'cyc_1', featureKey, usageUnits: 2, eventIdempotencyKey: 'p3-after-end' }); // lands in the next period
    await runJobs();
    invoices = await m.invoices('cyc_1');
    const march = invoices.items.find((i: any) => i.periodStart === '2027-03-31T00:00:00.000Z');
    assert.equal(march.periodEnd, '2027-04-30T00:00:00.000Z');
    assert.equal(march.amount, 30, 'the second period had no usage of its own');

    svc.clock.set('2027-04-30T02:00:00Z');
    await runJobs();
    invoices = await m.invoices('cyc_1');
    const april = invoices.items.find((i: any) => i.periodStart === '2027-04-30T00:00:00.000Z');
    assert.equal(april.amount, 30.03, 'usage ingested after the March close is billed with the April invoice');
  });

  test('when an invoice stays unpaid past its grace period then it is PAST_DUE, entitlements are revoked, rollover waits, and paying restores them', async () => {
    svc.clock.set('2027-05-10T12:00:00Z');
    await m.customer('cyc_2');
    const sub = await m.subscribe('cyc_2', planId);
    await m.markPaid(sub.invoice.id);
    svc.clock.set('2027-06-10T01:00:00Z');
    await runJobs();
    const due = (await m.invoices('cyc_2')).items.find((i: any) => i.status === 'DUE');
    assert.ok(due, 'the June invoice is DUE');
    assert.equal((await m.check('cyc_2', featureKey)).allowed, true, 'still within grace');

    svc.clock.set(new Date(new Date(due.dueDate).getTime() + 3 * DAY + 5 * 3600_000).toISOString());
    await runJobs();
    const pastDue = (await m.invoices('cyc_2')).items.find((i: any) => i.id === due.id);
    assert.equal(pastDue.status, 'PAST_DUE');
    const revoked = await m.check('cyc_2', featureKey);
    assert.equal(revoked.allowed, false);
    assert.equal(revoked.meta.reason.code, 'ENTITLEMENT_REVOKED');

    svc.clock.set('2027-07-10T06:00:00Z');
    await runJobs();
    assert.equal((await m.invoices('cyc_2')).items.length, 2, 'a PAST_DUE invoice blocks rollover');

    await m.markPaid(due.id);
    assert.equal((await m.check('cyc_2', featureKey)).allowed, true, 'paying restores entitlements');
    svc.clock.set('2027-07-10T07:00:00Z');
    await runJobs();
    assert.equal((await m.invoices('cyc_2')).items.length, 3, 'rollover resumes once paid');
  });

  test('when a subscription is cancelled at period end then it stays active until then and its last usage is billed', async () => {
    svc.clock.set('2027-08-01T10:00:00Z');
    await m.customer('cyc_3');
    const sub = await m.subscribe('cyc_3', planId);
    await m.markPaid(sub.invoice.id);
    await m.event({ customerReferenceId: 'cyc_3', featureKey, usageUnits: 10, eventIdempotencyKey: 'c3-a' });
    const cancel = await m.client('POST', `/subscriptions/cancellation/${sub.subscription.id}`);
    assert.equal(cancel.status, 200);
    assert.equal((await m.check('cyc_3', featureKey)).allowed, true);
    const view = await m.expectOk(m.client('GET', '/customers/cyc_3'));
    assert.equal(view.subscriptions[0].status, 'CANCEL_SCHEDULED');
    assert.equal(view.subscriptions[0].cancelEffectiveAt, '2027-09-01T00:00:00.000Z');

    svc.clock.set('2027-09-01T03:00:00Z');
    await runJobs();
    const after = await m.check('cyc_3', featureKey);
    assert.equal(after.allowed, false);
    assert.equal(after.meta.reason.code, 'NO_SUBSCRIPTION');
    const finalInvoice = (await m.invoices('cyc_3')).items.find((i: any) => i.type === 'REGULAR');
    assert.equal(finalInvoice.amount, 0.15, 'only the last period usage, no new base price');
  });

  test('when a subscription is cancelled immediately then open invoices are voided and the unused share is credited', async () => {
    svc.clock.set('2027-11-01T00:00:00Z');
    await m.customer('cyc_4');
    const sub = await m.subscribe('cyc_4', planId);
    await m.markPaid(sub.invoice.id);
    svc.clock.set('2027-11-16T00:00:00Z'); // 15 of 30 days used
    const res = await m.client('POST', `/subscriptions/cancellation/${sub.subscription.id}?cancelMode=IMMEDIATE`);
    assert.equal(res.status, 200);
    const credit = (await m.invoices('cyc_4')).items.find((i: any) => i.type === 'CREDIT');
    assert.equal(credit.amount, -15);
    assert.equal(credit.status, 'PAID');
    assert.equal((await m.check('cyc_4', featureKey)).meta.reason.code, 'NO_SUBSCRIPTION');
    const again = await m.client('POST', `/subscriptions/cancellation/${sub.subscription.id}?cancelMode=IMMEDIATE`);
    assert.equal(again.status, 400);
    assert.equal(again.body.error.message, 'Subscription is already cancelled');
  });

  test('when a customer upgrades then an ADJUSTMENT invoice prorates the difference, and a downgrade waits for period end', async () => {
    const f = await m.feature();
    const small = await m.activePlan({ price: 30, features: [{ id: f.id }] });
    const large = await m.activePlan({ price: 60, features: [{ id: f.id }] });
    svc.clock.set('2028-04-01T00:00:00Z');
    await m.customer('cyc_5');
    const sub = await m.subscribe('cyc_5', small.id);
    await m.markPaid(sub.invoice.id);
    svc.clock.set('2028-04-11T00:00:00Z'); // 20 of 30 days remain
    const up = await m.expectOk(m.client('POST', `/subscriptions/${sub.subscription.id}/plan-change`, { changeToPlanId: large.id, changeType: 'UPGRADE' }));
    assert.equal(up.subscription.plan.id, large.id);
    assert.equal(up.invoice.type, 'ADJUSTMENT');
    assert.equal(up.invoice.status, 'DUE');
    assert.equal(up.invoice.amount, 20, 'round(0.66666667 x 60) − round(0.66666667 x 30) = 40.00 − 20.00');
    assert.deepEqual(up.invoice.items.map((i: any) => i.chargeAmount), [-20, 40]);

    const down = await m.expectOk(m.client('POST', `/subscriptions/${sub.subscription.id}/plan-change`, { changeToPlanId: small.id, changeType: 'DOWNGRADE' }));
    assert.equal(down.subscription.plan.id, large.id, 'a downgrade does not take effect at once');
    assert.equal(down.subscription.scheduledChange.status, 'PENDING');
    assert.equal(down.subscription.scheduledChange.effectiveAt, '2028-05-01T00:00:00.000Z');
    const same = await m.client('POST', `/subscriptions/${sub.subscription.id}/plan-change`, { changeToPlanId: large.id, changeType: 'DOWNGRADE' });
    assert.equal(same.status, 400);
    assert.equal(same.body.error.message, 'Cannot downgrade to the same plan');

    await m.markPaid(up.invoice.id);
    svc.clock.set('2028-05-01T01:00:00Z');
    await runJobs();
    const view = await m.expectOk(m.client('GET', '/customers/cyc_5'));
    assert.equal(view.subscriptions[0].plan.id, small.id, 'the downgrade applied at the period end');
    const may = (await m.invoices('cyc_5')).items.find((i: any) => i.periodStart === '2028-05-01T00:00:00.000Z');
    assert.equal(may.amount, 30, 'the new period is billed at the downgraded price');
  });

  test('when a plan is free or in arrears then the subscription is active at once', async () => {
    const f = await m.feature();
    const free = await m.activePlan({ price: 0, features: [{ id: f.id }] });
    const arrears = await m.activePlan({ price: 12, billingTiming: 'IN_ARREARS', features: [{ id: f.id }] });
    svc.clock.set('2028-06-03T00:00:00Z');
    await m.customer('cyc_6');
    const a = await m.subscribe('cyc_6', free.id);
    assert.equal(a.subscription.isActive, true);
    assert.equal(a.invoice.status, 'PAID');
    await m.customer('cyc_7');
    const b = await m.subscribe('cyc_7', arrears.id);
    assert.equal(b.subscription.isActive, true);
    assert.equal(b.invoice.status, 'PENDING');
    await m.event({ customerReferenceId: 'cyc_7', featureKey: f.key, usageUnits: 1000, eventIdempotencyKey: 'arr-1' });
    svc.clock.set('2028-07-03T02:00:00Z');
    await runJobs();
    const closed = (await m.invoices('cyc_7')).items.find((i: any) => i.id === b.invoice.id);
    assert.equal(closed.status, 'DUE');
    assert.equal(closed.amount, 14, 'in arrears: base 12 + usage 1000 x 0.002 on the period own invoice');
  });

  test('when a rule accumulates then usage counts since subscribing, across periods, against the cap', async () => {
    const f = await m.feature();
    const plan = await m.activePlan({ price: 0, features: [{ id: f.id, value: { pricing: { model: 'usage', usage_unit_type: 'seats', price_per_unit: 1, max_usage: 10, reset_mode: 'accumulate' } } }] });
    svc.clock.set('2028-09-01T00:00:00Z');
    await m.customer('acc_1');
    await m.subscribe('acc_1', plan.id);
    assert.equal((await m.event({ customerReferenceId: 'acc_1', featureKey: f.key, usageUnits: 6, eventIdempotencyKey: 'acc-1' })).status, 201);
    svc.clock.set('2028-10-01T03:00:00Z');
    await runJobs();
    const over = await m.event({ customerReferenceId: 'acc_1', featureKey: f.key, usageUnits: 5, eventIdempotencyKey: 'acc-2' });
    assert.equal(over.status, 200, 'six from the last period count: 6 + 5 > 10');
    assert.equal(over.body.data.usageLimitExceeded, true);
    assert.equal((await m.event({ customerReferenceId: 'acc_1', featureKey: f.key, usageUnits: 4, eventIdempotencyKey: 'acc-3' })).status, 201);
    const check = await m.check('acc_1', f.key);
    assert.equal(check.allowed, false);
    assert.deepEqual(check.usage, { used: 10, limit: 10, remaining: 0, unlimited: false });
  });
});
