import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { setCatalogSettings } from '../agents/agent-helpers.js';

/**
 * Billing's outbound events (issue 33, api-contract-events.md §E5.3–§E5.4): recorded with the change,
 * in the contract's order within one transaction (ids sort in recording order), once per key, and
 * nothing for a refused or rolled-back change (the plan-change preview).
 */
type Event = { id: string; type: string; createdAt: string; data: { object: any; [k: string]: any } };

describe('billing outbound events (issue 33)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2027-03-10T09:00:00Z' });
  });
  after(() => svc.close());

  async function setup() {
    const account = await createTestAccount(svc);
    const m = monetization(svc, account);
    const feature = await m.feature();
    /** Every event of the account, in the order recorded (createdAt, then id). */
    const events = async (type?: string): Promise<Event[]> => {
      const res = await m.api('GET', `/api/v1/webhooks/events?limit=200${type ? `&type=${type}` : ''}`);
      assert.equal(res.status, 200, res.text);
      return (res.body.data.items as Event[]).slice().sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    };
    const billingTypes = async () => (await events()).filter((e) => !e.type.startsWith('customer.') && !e.type.startsWith('credits.')).map((e) => e.type);
    return { account, m, feature, events, billingTypes };
  }

  test('when a free plan is subscribed then subscription.created, invoice.created, invoice.paid, subscription.activated are recorded in that order', async () => {
    const { m, feature, events, billingTypes } = await setup();
    const plan = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
    await m.customer('free_1');
    const sub = await m.subscribe('free_1', plan.id);
    assert.deepEqual(await billingTypes(), ['subscription.created', 'invoice.created', 'invoice.finalized', 'invoice.paid', 'subscription.activated']);
    const all = await events();
    const created = all.find((e) => e.type === 'subscription.created')!;
    assert.equal(created.data.object.id, sub.subscription.id);
    assert.equal(created.data.object.plan.id, plan.id);
    const invoice = all.find((e) => e.type === 'invoice.paid')!;
    assert.equal(invoice.data.object.id, sub.invoice.id);
    assert.equal(invoice.data.object.status, 'PAID');
    assert.ok(Array.isArray(invoice.data.object.items), 'the Invoice carries its items');
    assert.equal(new Set(all.filter((e) => !e.type.startsWith('customer.')).map((e) => e.createdAt)).size, 1, 'one transaction: one createdAt');
  });

  test('when a paid plan is subscribed then it records created and invoice.created only; 20 concurrent mark-paid record one invoice.paid and one activation; paying again records nothing', async () => {
    const { m, feature, events, billingTypes } = await setup();
    const plan = await m.activePlan({ price: 30, features: [{ id: feature.id }] });
    await m.customer('paid_1');
    const sub = await m.subscribe('paid_1', plan.id);
    assert.deepEqual(await billingTypes(), ['subscription.created', 'invoice.created', 'invoice.finalized']);
    assert.equal((await events('subscription.created'))[0]!.data.object.status, 'PENDING_PAYMENT');
    const answers = await Promise.all(Array.from({ length: 20 }, () => m.client('POST', `/billing/invoices/${sub.invoice.id}/mark-paid`)));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
    assert.deepEqual(await billingTypes(), ['subscription.created', 'invoice.created', 'invoice.finalized', 'invoice.paid', 'subscription.activated']);
    assert.equal((await events('invoice.finalized')).length, 1, 'an invoice is finalised once: mark-paid of a numbered invoice records no second invoice.finalized');
    await m.markPaid(sub.invoice.id);
    assert.equal((await events('invoice.paid')).length, 1, 'marking a PAID invoice paid again records nothing');
    const activated = (await events('subscription.activated'))[0]!;
    assert.equal(activated.data.object.isActive, true);
    assert.equal(activated.data.object.status, 'ACTIVE');
  });

  test('when an agent signs up to the free plan then its subscription records created, invoice.created, invoice.paid, activated, as a subscribe does', async () => {
    const { account, m, feature, billingTypes, events } = await setup();
    const free = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
    const slug = `billing-events-${account.accountId.slice(-8)}`;
    await setCatalogSettings(svc, account, { slug, agentSignupEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupHourlyCap: 10 });
    const res = await svc.http.post(`/public/v1/catalog/${slug}/signup`, { body: { email: 'agent@example.com' } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(await billingTypes(), ['subscription.created', 'invoice.created', 'invoice.finalized', 'invoice.paid', 'subscription.activated']);
    assert.equal((await events()).find((e) => e.type === 'subscription.created')!.data.object.customerReferenceId, res.body.data.customerReferenceId);
  });

  test('when a subscribe is refused then nothing is recorded', async () => {
    const { m, billingTypes } = await setup();
    const draft = await m.expectOk(m.admin('POST', '/plans', { key: 'draft-plan', name: 'Draft', priceAmount: 10, intervalMonths: 1 }), 201);
    await m.customer('refused_1');
    const res = await m.client('POST', '/subscriptions', { customerReferenceId: 'refused_1', planId: draft.id });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(await billingTypes(), []);
  });

  test('when an upgrade is previewed then nothing is recorded; the upgrade records plan_changed with previousPlan and its ADJUSTMENT invoice; an immediate cancel records voided, the CREDIT invoice created (not paid), then canceled', async () => {
    const { m, feature, events, billingTypes } = await setup();
    const basic = await m.activePlan({ price: 30, features: [{ id: feature.id }] });
    const pro = await m.activePlan({ price: 90, features: [{ id: feature.id }] });
    await m.customer('up_1');
    const sub = await m.subscribe('up_1', basic.id);
    await m.markPaid(sub.invoice.id);
    const before = await billingTypes();
    const preview = await m.client('POST', `/subscriptions/${sub.subscription.id}/plan-change/preview`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(await billingTypes(), before, 'the preview rolls back: it records nothing');

    const changed = await m.client('POST', `/subscriptions/${sub.subscription.id}/plan-change`, { changeToPlanId: pro.id, changeType: 'UPGRADE' });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual((await billingTypes()).slice(before.length), ['subscription.plan_changed', 'invoice.created', 'invoice.finalized']);
    const swap = (await events('subscription.plan_changed'))[0]!;
    assert.equal(swap.data.changeType, 'UPGRADE');
    assert.equal(swap.data.previousPlan.id, basic.id);
    assert.equal(swap.data.object.plan.id, pro.id);
    const adjustment = changed.body.data.invoice;
    assert.equal(adjustment.type, 'ADJUSTMENT');

    const mark = (await billingTypes()).length;
    const cancel = await m.client('POST', `/subscriptions/cancellation/${sub.subscription.id}?cancelMode=IMMEDIATE`);
    assert.ok(cancel.status < 300, cancel.text);
    assert.deepEqual((await billingTypes()).slice(mark), ['invoice.voided', 'invoice.created', 'invoice.finalized', 'subscription.canceled']);
    const all = await events();
    assert.equal(all.find((e) => e.type === 'invoice.voided')!.data.object.id, adjustment.id);
    const credit = all.filter((e) => e.type === 'invoice.created').at(-1)!;
    assert.equal(credit.data.object.type, 'CREDIT');
    assert.equal((await events('invoice.paid')).filter((e) => e.data.object.type === 'CREDIT').length, 0, 'a CREDIT invoice records invoice.created only');
    const canceled = (await events('subscription.canceled'))[0]!;
    assert.equal(canceled.data.object.status, 'CANCELLED');
    // A second cancel is refused and records nothing.
    const again = await m.client('POST', `/subscriptions/cancellation/${sub.subscription.id}?cancelMode=IMMEDIATE`);
    assert.equal(again.status, 400);
    assert.equal((await events('subscription.canceled')).length, 1);
  });

  test('when a downgrade or an end-of-period cancel is scheduled then nothing is recorded until the job applies it; an unpaid invoice past grace records invoice.past_due then subscription.past_due', async () => {
    svc.clock.set('2027-04-10T09:00:00Z');
    const { m, feature, events, billingTypes } = await setup();
    const basic = await m.activePlan({ price: 30, features: [{ id: feature.id }] });
    const pro = await m.activePlan({ price: 90, features: [{ id: feature.id }] });
    await m.customer('down_1');
    await m.customer('eop_1');
    const down = await m.subscribe('down_1', pro.id);
    await m.markPaid(down.invoice.id);
    const eop = await m.subscribe('eop_1', basic.id);
    await m.markPaid(eop.invoice.id);
    const mark = (await billingTypes()).length;
    const scheduled = await m.client('POST', `/subscriptions/${down.subscription.id}/plan-change`, { changeToPlanId: basic.id, changeType: 'DOWNGRADE' });
    assert.equal(scheduled.status, 200, scheduled.text);
    const cancel = await m.client('POST', `/subscriptions/cancellation/${eop.subscription.id}?cancelMode=END_OF_PERIOD`);
    assert.ok(cancel.status < 300, cancel.text);
    assert.deepEqual((await billingTypes()).slice(mark), [], 'scheduling records nothing');

    svc.clock.set('2027-05-10T01:00:00Z');
    await svc.scheduler.run('subscription-cycle');
    await svc.scheduler.run('subscription-cycle');
    const swaps = await events('subscription.plan_changed');
    assert.equal(swaps.length, 1);
    assert.equal(swaps[0]!.data.changeType, 'DOWNGRADE');
    assert.equal(swaps[0]!.data.previousPlan.id, pro.id);
    assert.equal(swaps[0]!.data.object.plan.id, basic.id);
    const canceled = await events('subscription.canceled');
    assert.deepEqual(canceled.map((e) => e.data.object.id), [eop.subscription.id]);
    // The rollover raised the next period's invoice (DUE).
    const rollover = (await events('invoice.created')).filter((e) => e.data.object.subscriptionId === down.subscription.id && e.data.object.type === 'REGULAR');
    assert.equal(rollover.length, 1);

    svc.clock.set('2027-05-20T04:00:00Z');
    await svc.scheduler.run('invoice-due');
    await svc.scheduler.run('invoice-due');
    const pastDue = await events('invoice.past_due');
    assert.deepEqual(pastDue.map((e) => e.data.object.id), [rollover[0]!.data.object.id]);
    const subPastDue = await events('subscription.past_due');
    assert.equal(subPastDue.length, 1);
    assert.equal(subPastDue[0]!.data.object.id, down.subscription.id);
    assert.equal(subPastDue[0]!.data.invoice.id, rollover[0]!.data.object.id);
    assert.equal(subPastDue[0]!.data.invoice.status, 'PAST_DUE');
    const types = await billingTypes();
    assert.deepEqual(types.slice(-2), ['invoice.past_due', 'subscription.past_due']);
  });
});
