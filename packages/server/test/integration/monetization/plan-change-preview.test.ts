import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * POST …/plan-change/preview runs the plan change's own code in a transaction that is rolled back:
 * its answer is what the change answers at the same instant (the ids of the records it would create
 * aside), and it leaves every table as it found it.
 */
describe('plan change preview', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let small: { id: string };
  let large: { id: string };

  before(async () => {
    svc = await startTestService({ now: '2028-04-01T09:00:00Z' });
    m = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature();
    const model = await m.creditModel({ denomination: 'tokens', rolloverPolicy: 'FULL' });
    const plan = async (key: string, price: number, credits: number) => {
      const created = await m.expectOk(m.admin('POST', '/plans', { key, name: key, description: 'x', priceAmount: price, intervalMonths: 1 }), 201);
      await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: created.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
      await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${created.id}?creditAmount=${credits}`), 201);
      await m.expectOk(m.admin('PATCH', `/plans/${created.id}`, { status: 'ACTIVE' }));
      return created;
    };
    // The larger plan includes more credits: an upgrade also grants the difference (a write to roll back).
    small = await plan('small', 30, 100);
    large = await plan('large', 60, 250);
  });
  after(() => svc.close());

  /**
   * Every row of every table of the service's database, as JSON, by table; the calling key's
   * `last_used_at` aside (authenticating the call stamps it, whatever the route does).
   */
  async function snapshot(): Promise<Record<string, string>> {
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(svc.ctx.db);
    const rows: Record<string, string> = {};
    for (const { name } of tables.rows) {
      const all = await sql`select * from ${sql.table(name)}`.execute(svc.ctx.db);
      rows[name] = JSON.stringify(all.rows.map(({ last_used_at: _used, ...r }: any) => JSON.stringify(r)).sort());
    }
    return rows;
  }

  /** The answer without the ids of the records the change creates (the preview's are rolled back). */
  function withoutNewIds(answer: any) {
    const copy = structuredClone(answer);
    const scrub = (subscription: any) => {
      if (subscription?.scheduledChange) delete subscription.scheduledChange.id;
    };
    scrub(copy.subscription);
    if (copy.invoice) {
      delete copy.invoice.id;
      scrub(copy.invoice.subscription);
      for (const item of copy.invoice.items ?? []) {
        delete item.id;
        delete item.invoiceId;
      }
    }
    return copy;
  }

  const path = (subscriptionId: string) => `/subscriptions/${subscriptionId}/plan-change`;

  async function paidSubscription(ref: string) {
    await m.customer(ref);
    const sub = await m.subscribe(ref, small.id);
    await m.markPaid(sub.invoice.id);
    return sub.subscription.id as string;
  }

  test('when an upgrade is previewed then it answers the prorated invoice the upgrade then raises, and writes nothing', async () => {
    svc.clock.set('2028-04-01T09:00:00Z');
    const id = await paidSubscription('pv_up');
    svc.clock.set('2028-04-11T00:00:00Z');
    const body = { changeToPlanId: large.id, changeType: 'UPGRADE' };
    const before = await snapshot();
    const preview = await m.expectOk(m.client('POST', `${path(id)}/preview`, body));
    assert.deepEqual(await snapshot(), before, 'the preview left every table as it was (credits granted by the upgrade included)');
    const swaps = async () => (await m.expectOk(m.api('GET', '/api/v1/webhooks/events?type=subscription.plan_changed'))).items.filter((e: any) => e.data.object.id === id);
    assert.deepEqual(await swaps(), [], 'the preview records no outbound event (issue 33): its transaction rolled back');
    assert.equal(preview.subscription.plan.id, large.id);
    assert.equal(preview.invoice.type, 'ADJUSTMENT');
    assert.equal(preview.invoice.amount, 20, 'round(0.66666667 x 60) − round(0.66666667 x 30)');
    assert.deepEqual(preview.invoice.items.map((i: any) => i.chargeAmount), [-20, 40]);

    const change = await m.expectOk(m.client('POST', path(id), body));
    assert.deepEqual(withoutNewIds(preview), withoutNewIds(change));
    assert.equal((await swaps()).length, 1, 'the change itself records subscription.plan_changed once');
    const pool = (await m.expectOk(m.client('GET', '/credits/pv_up/pools'))).items[0];
    assert.equal(pool.balance, 250, 'the upgrade itself grants the 150 difference once');
  });

  test('when a downgrade is previewed then it answers the change scheduled for the period end, and writes nothing', async () => {
    svc.clock.set('2028-04-01T09:00:00Z');
    await m.customer('pv_down');
    const sub = await m.subscribe('pv_down', large.id);
    await m.markPaid(sub.invoice.id);
    svc.clock.set('2028-04-20T00:00:00Z');
    const body = { changeToPlanId: small.id, changeType: 'DOWNGRADE' };
    const before = await snapshot();
    const preview = await m.expectOk(m.client('POST', `${path(sub.subscription.id)}/preview`, body));
    assert.deepEqual(await snapshot(), before);
    assert.equal(preview.invoice, null);
    assert.equal(preview.subscription.plan.id, large.id, 'a downgrade waits for the period end');
    assert.equal(preview.subscription.scheduledChange.toPlan, small.id);
    assert.equal(preview.subscription.scheduledChange.effectiveAt, '2028-05-01T00:00:00.000Z');

    const change = await m.expectOk(m.client('POST', path(sub.subscription.id), body));
    assert.deepEqual(withoutNewIds(preview), withoutNewIds(change));
  });

  test('when a change would be refused then its preview is refused with the same answer', async () => {
    svc.clock.set('2028-04-01T09:00:00Z');
    const id = await paidSubscription('pv_same');
    const body = { changeToPlanId: small.id, changeType: 'UPGRADE' };
    const preview = await m.client('POST', `${path(id)}/preview`, body);
    const change = await m.client('POST', path(id), body);
    assert.equal(preview.status, 400);
    assert.equal(change.status, 400);
    assert.equal(preview.body.error.message, 'Cannot upgrade to the same plan');
    assert.equal(preview.body.error.message, change.body.error.message);
    const missing = await m.client('POST', `${path(id)}/preview`, { changeType: 'UPGRADE' });
    assert.equal(missing.status, 400, 'the body is validated as plan-change validates it');
  });
});
