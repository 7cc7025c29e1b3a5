import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { billingEvents } from '../../../src/modules/billing/index.js';
import { planCreditAllocations } from '../../../src/modules/catalog/index.js';
import * as credits from '../../../src/modules/credits/index.js';
import { customerSubscriptions } from '../../../src/modules/customers/index.js';
import { jobsOf } from '../../../src/runtime.js';
import { afterCommit, withTransaction } from '../../../src/platform/db/transaction.js';
import { defineDomainEvent } from '../../../src/platform/hooks.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

describe('module hooks: domain events, extensions, after-commit callbacks, jobs per module', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  const probeRows = async () => (await sql<{ n: number }>`select count(*)::int as n from hook_probe`.execute(svc.ctx.db)).rows[0]!.n;

  before(async () => {
    svc = await startTestService({ now: '2027-01-10T09:00:00Z' });
    m = monetization(svc, await createTestAccount(svc));
    await sql`create table hook_probe (id text primary key)`.execute(svc.ctx.db);
  });
  after(() => svc.close());

  test('when the runtime starts then credits subscribes to billing events, the extensions are provided and each module brings its jobs', () => {
    assert.deepEqual(billingEvents.periodPaid.subscribers(), ['credits']);
    assert.deepEqual(billingEvents.subscriptionEnded.subscribers(), ['credits']);
    assert.deepEqual(billingEvents.planChanged.subscribers(), ['credits']);
    assert.equal(planCreditAllocations.isProvided(), true);
    assert.equal(customerSubscriptions.isProvided(), true);
    assert.equal(credits.tariffPublishWarnings.isProvided(), true, 'spend provides the negative-margin guard');
    assert.deepEqual(
      jobsOf(svc.ctx).map((j) => j.name),
      ['subscription-cycle', 'invoice-due', 'credit-expiration', 'credit-reservation-expiry', 'stripe-processor-retry', 'stripe-meter-sync', 'spend-reservation-sweep', 'checkout-expiry', 'auto-topup-recovery', 'agent-expiry', 'spend-initial-sync', 'spend-sync', 'spend-delivery-retry', 'spend-delivery-purge', 'spend-outcome-sync', 'spend-budget-check', 'spend-weekly-digest', 'idempotency-purge', 'platform-housekeeping', 'partitions-ahead'],
    );
    const off = { ...svc.ctx, config: { ...svc.ctx.config, modules: { ...svc.ctx.config.modules, monetization: false, build: false } } };
    assert.deepEqual(jobsOf(off).map((j) => j.name), ['idempotency-purge', 'platform-housekeeping', 'partitions-ahead']);
  });

  test('when a domain event handler fails then the emitting transaction rolls back with every handler\'s writes', async () => {
    const probed = defineDomainEvent<{ id: string }>('test.probed');
    const seen: string[] = [];
    probed.on('first', async (tx, e) => {
      seen.push(`first:${e.id}`);
      await sql`insert into hook_probe (id) values (${e.id})`.execute(tx);
    });
    probed.on('second', async (_tx, e) => {
      seen.push(`second:${e.id}`);
      if (e.id === 'bad') throw new Error('second refuses');
    });
    probed.on('first', async (tx, e) => {
      seen.push(`first-again:${e.id}`);
      await sql`insert into hook_probe (id) values (${e.id})`.execute(tx);
    });
    await assert.rejects(
      withTransaction(svc.ctx.db, async (tx) => {
        await sql`insert into hook_probe (id) values ('owner')`.execute(tx);
        await probed.emit(tx, { id: 'bad' });
      }),
      /second refuses/,
    );
    assert.equal(await probeRows(), 0, 'neither the owner nor the handler row committed');
    await withTransaction(svc.ctx.db, (tx) => probed.emit(tx, { id: 'good' }));
    assert.equal(await probeRows(), 1);
    // Re-registering a subscriber replaces its handler and keeps its place in the order.
    assert.deepEqual(seen, ['first-again:bad', 'second:bad', 'first-again:good', 'second:good']);
    assert.throws(() => defineDomainEvent('test.probed'), /defined twice/);
    await sql`delete from hook_probe`.execute(svc.ctx.db);
  });

  test('when a transaction commits then its after-commit callbacks run in order after the commit; on rollback they never run', async () => {
    const ran: string[] = [];
    await withTransaction(svc.ctx.db, async (tx) => {
      await sql`insert into hook_probe (id) values ('committed')`.execute(tx);
      afterCommit(tx, 'one', async () => void ran.push(`one:${await probeRows()}`));
      afterCommit(tx, 'two', () => void ran.push('two'));
      assert.deepEqual(ran, [], 'nothing runs before commit');
    });
    assert.deepEqual(ran, ['one:1', 'two'], 'the first callback already sees the committed row');

    await assert.rejects(
      withTransaction(svc.ctx.db, async (tx) => {
        afterCommit(tx, 'dropped', () => void ran.push('dropped'));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(ran, ['one:1', 'two']);
    await sql`delete from hook_probe`.execute(svc.ctx.db);
  });

  test('when an after-commit callback fails then it is logged, the next one still runs and the caller gets its result', async () => {
    const ran: string[] = [];
    const result = await withTransaction(svc.ctx.db, async (tx) => {
      afterCommit(tx, 'webhook-probe', () => {
        throw new Error('vendor down');
      });
      afterCommit(tx, 'after-failure', () => void ran.push('after-failure'));
      return 42;
    });
    assert.equal(result, 42);
    assert.deepEqual(ran, ['after-failure']);
    assert.match(svc.logs(), /"hook":"webhook-probe".*after-commit hook failed|after-commit hook failed.*"hook":"webhook-probe"/);
    assert.match(svc.logs(), /vendor down/);
  });

  test('when afterCommit is called outside a transaction then it throws (there is no commit to wait for)', () => {
    assert.throws(() => afterCommit(svc.ctx.db as never, 'nowhere', () => undefined), /outside withTransaction/);
  });

  test('when a plan has credit allocations and a customer subscribes then catalog and customer views show them (extensions)', async () => {
    const feature = await m.feature();
    const model = await m.creditModel({ denomination: 'hook-cr' });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'hooked', name: 'Hooked', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=25`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));

    const detail = await m.expectOk(m.admin('GET', `/plans/${plan.id}/features`));
    assert.equal(detail.creditAllocations.length, 1);
    assert.equal(detail.creditAllocations[0].creditModelId, model.id);
    const catalog = await m.expectOk(m.client('GET', '/plans?limit=100'));
    const listed = catalog.items.find((i: any) => i.plan.id === plan.id);
    assert.deepEqual(listed.creditAllocations, detail.creditAllocations);

    await m.customer('hook-cust');
    const { subscription } = await m.subscribe('hook-cust', plan.id);
    const customer = await m.expectOk(m.client('GET', '/customers/hook-cust'));
    assert.deepEqual(customer.subscriptions.map((s: any) => s.id), [subscription.id]);
  });

  test('when the credits handler fails during a rollover then the rollover and its invoice roll back with it (in-transaction exactness)', async () => {
    const feature = await m.feature();
    const model = await m.creditModel({ denomination: 'exact-cr' });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'exact', name: 'Exact', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=10`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    await m.customer('exact-cust');
    const { subscription } = await m.subscribe('exact-cust', plan.id);
    const invoicesBefore = (await m.invoices('exact-cust')).items.length;
    const grantsOf = async () =>
      Number((await sql<{ n: number }>`select count(*)::int as n from credit_grants g join credit_pools p on p.account_id = g.account_id and p.id = g.credit_pool_id where p.denomination = 'exact-cr'`.execute(svc.ctx.db)).rows[0]!.n);
    const grantsBefore = await grantsOf();

    billingEvents.periodPaid.on('credits', async () => {
      throw new Error('credits unavailable');
    });
    try {
      svc.clock.set('2027-02-10T01:00:00Z');
      await svc.scheduler.run('subscription-cycle');
      const after = await m.expectOk(m.admin('GET', `/subscriptions/${subscription.id}`));
      assert.equal(after.currentPeriodStart, subscription.currentPeriodStart, 'the period did not roll over');
      assert.equal((await m.invoices('exact-cust')).items.length, invoicesBefore, 'no invoice was raised');
      assert.equal(await grantsOf(), grantsBefore);
    } finally {
      credits.registerHooks();
    }
    svc.clock.set('2027-02-10T02:00:00Z');
    await svc.scheduler.run('subscription-cycle');
    const rolled = await m.expectOk(m.admin('GET', `/subscriptions/${subscription.id}`));
    assert.notEqual(rolled.currentPeriodStart, subscription.currentPeriodStart, 'with the handler back the period rolls over');
    assert.equal(await grantsOf(), grantsBefore + 1, 'and its credits are granted in the same transaction');
  });
});
