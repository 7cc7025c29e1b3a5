import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { toJsonb } from '../../../src/platform/db/jsonb.js';

const USAGE = { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 0.5 } };

describe('a scheduled job isolates tenants: one bad row is skipped and logged, the others go on', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2027-01-10T09:00:00Z' });
  });
  after(() => svc.close());

  /** An account with a paid monthly subscription that has usage in its first period. */
  async function tenant(ref: string) {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 10, features: [{ id: feature.id, value: USAGE }] });
    await m.customer(ref);
    const sub = await m.subscribe(ref, plan.id);
    await m.markPaid(sub.invoice.id);
    const event = await m.event({ customerReferenceId: ref, featureKey: feature.key, usageUnits: 4, eventIdempotencyKey: `${ref}-1` });
    assert.equal(event.status, 201, event.text);
    return { acct, m, planId: plan.id as string, featureId: feature.id as string, subscriptionId: sub.subscription.id as string, ref };
  }

  const subscription = async (t: Awaited<ReturnType<typeof tenant>>) =>
    t.m.expectOk(t.m.api('GET', `/api/v1/monetization/subscriptions/${t.subscriptionId}`));

  test("when account A's rollover throws then account B still rolls over and is invoiced, A is untouched, logged, and the run is FAILED", async () => {
    // A is created first, so its subscription comes first in the job's id order.
    const a = await tenant('iso-a');
    const b = await tenant('iso-b');
    // Corrupt A's stored rule value: invoicing A's usage line now throws.
    await svc.ctx.db
      .updateTable('plan_feature_rules')
      .set({ value: toJsonb({ pricing: { model: 'bogus' } }) })
      .where('account_id', '=', a.acct.accountId)
      .where('plan_id', '=', a.planId)
      .execute();
    const aBefore = await subscription(a);
    const aInvoices = await a.m.invoices(a.ref);

    svc.clock.set('2027-02-10T00:30:00Z');
    const outcome = await svc.scheduler.run('subscription-cycle');
    assert.equal(outcome.status, 'failed', 'the run records that an item failed');

    const bAfter = await subscription(b);
    assert.equal(bAfter.currentPeriodStart, '2027-02-10T00:00:00.000Z', `B rolled over: ${JSON.stringify(bAfter)}`);
    const bInvoices = (await b.m.invoices(b.ref)).items.filter((i: any) => i.periodStart === '2027-02-10T00:00:00.000Z');
    assert.equal(bInvoices.length, 1, 'B is invoiced for the new period');
    assert.deepEqual(
      bInvoices[0].items.map((i: any) => i.chargeAmount),
      [10, 2],
      'base price plus 4 units at 0.5',
    );

    assert.deepEqual(await subscription(a), aBefore, "A's subscription is untouched");
    assert.deepEqual(await a.m.invoices(a.ref), aInvoices, "A's invoices are untouched");

    const run = await svc.ctx.db.selectFrom('job_runs').selectAll().where('job_name', '=', 'subscription-cycle').where('slot', '=', outcome.slot).executeTakeFirstOrThrow();
    assert.equal(run.outcome, 'FAILED');
    assert.match(run.error ?? '', new RegExp(`^1 item failed and were skipped: subscription rollover ${a.subscriptionId} \\(account ${a.acct.accountId}\\)`));
    const itemLog = svc
      .logs()
      .split('\n')
      .filter((l) => l.includes('job item failed and was skipped'))
      .map((l) => JSON.parse(l));
    const logged = itemLog.find((l) => l.itemId === a.subscriptionId);
    assert.ok(logged, 'the skipped subscription is logged with its id');
    assert.equal(logged.accountId, a.acct.accountId);
    assert.equal(logged.job, 'subscription-cycle');
    assert.match(logged.err.message, /Stored rule value is invalid/);
    assert.ok(!itemLog.some((l) => l.accountId === b.acct.accountId), 'B is not logged as failed');

    // Repaired, A rolls over on the next run; nothing of B is billed twice.
    await svc.ctx.db
      .updateTable('plan_feature_rules')
      .set({ value: toJsonb(USAGE) })
      .where('account_id', '=', a.acct.accountId)
      .where('plan_id', '=', a.planId)
      .execute();
    svc.clock.set('2027-02-10T01:30:00Z');
    assert.equal((await svc.scheduler.run('subscription-cycle')).status, 'ran');
    assert.equal((await subscription(a)).currentPeriodStart, '2027-02-10T00:00:00.000Z');
    const bAgain = (await b.m.invoices(b.ref)).items.filter((i: any) => i.periodStart === '2027-02-10T00:00:00.000Z');
    assert.equal(bAgain.length, 1);
  });
});
