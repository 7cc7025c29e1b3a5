import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startSecondNode, startTestService, type TestService } from '../../harness.js';

/**
 * A node keeps entitlement contexts in memory and uses one only while its account's context version
 * is unchanged (ADR 0030, migration 0033). Every change to a row a context is made of must show on
 * the very next check, whoever made it: this node's routes, another node, or SQL from outside.
 */
describe('entitlement contexts kept in memory are never used after a change', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let accountId: string;
  let apiKey: string;
  before(async () => {
    svc = await startTestService();
    const acct = await createTestAccount(svc);
    accountId = acct.accountId;
    apiKey = acct.apiKey;
    m = monetization(svc, acct);
  });
  after(() => svc.close());

  const limited = (max: number) => ({ pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.002, max_usage: max } });

  test('when the rule, the plan link, the subscription or the feature change then the next check reflects it at once', async () => {
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 0, features: [{ id: feature.id, value: limited(5) }] });
    await m.customer('ctx-a');
    const sub = await m.subscribe('ctx-a', plan.id);
    const first = await m.check('ctx-a', feature.key);
    assert.equal(first.allowed, true);
    assert.equal(first.usage.limit, 5);

    // The rule's limit (this node's route).
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: plan.id, featureId: feature.id, value: limited(7) }));
    assert.equal((await m.check('ctx-a', feature.key)).usage.limit, 7);

    // Usage is never kept: an event counts on the next check.
    await m.expectOk(m.event({ customerReferenceId: 'ctx-a', featureKey: feature.key, usageUnits: 7 }), 201);
    const full = await m.check('ctx-a', feature.key);
    assert.deepEqual([full.allowed, full.meta?.reason?.code, full.usage.used], [false, 'USAGE_LIMIT_EXCEEDED', 7]);

    // The rule disabled.
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: plan.id, featureId: feature.id, isEnabled: false, value: limited(100) }));
    const disabled = await m.check('ctx-a', feature.key);
    assert.deepEqual([disabled.allowed, disabled.meta?.reason?.code], [false, 'ENTITLEMENT_REVOKED']);
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: plan.id, featureId: feature.id, isEnabled: true, value: limited(100) }));
    assert.equal((await m.check('ctx-a', feature.key)).allowed, true);

    // The subscription cancelled at once.
    await m.expectOk(m.client('POST', `/subscriptions/cancellation/${sub.subscription.id}?cancelMode=IMMEDIATE`));
    const cancelled = await m.check('ctx-a', feature.key);
    assert.deepEqual([cancelled.allowed, cancelled.meta?.reason?.code], [false, 'NO_SUBSCRIPTION']);
    // A new subscription.
    await m.subscribe('ctx-a', plan.id);
    assert.equal((await m.check('ctx-a', feature.key)).allowed, true);
  });

  test('when another writer changes the rows behind the node’s back (SQL, as another node would) then the next check reflects it', async () => {
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 0, features: [{ id: feature.id, value: limited(5) }] });
    await m.customer('ctx-b');
    await m.subscribe('ctx-b', plan.id);
    assert.equal((await m.check('ctx-b', feature.key)).allowed, true);
    assert.equal((await m.check('ctx-b', feature.key)).allowed, true, 'the second check answers from the kept context');

    await sql`update subscriptions set entitlements_revoked = true where account_id = ${accountId} and plan_id = ${plan.id}`.execute(svc.ctx.db);
    const revoked = await m.check('ctx-b', feature.key);
    assert.deepEqual([revoked.allowed, revoked.meta?.reason?.code], [false, 'ENTITLEMENT_REVOKED']);

    await sql`update subscriptions set entitlements_revoked = false where account_id = ${accountId} and plan_id = ${plan.id}`.execute(svc.ctx.db);
    assert.equal((await m.check('ctx-b', feature.key)).allowed, true);
    await sql`update plan_feature_rules set value = jsonb_set(value, '{pricing,max_usage}', '2') where account_id = ${accountId} and plan_id = ${plan.id}`.execute(svc.ctx.db);
    assert.equal((await m.check('ctx-b', feature.key)).usage.limit, 2);

    // A counter written from outside is read, never remembered.
    await m.expectOk(m.event({ customerReferenceId: 'ctx-b', featureKey: feature.key, usageUnits: 1 }), 201);
    assert.equal((await m.check('ctx-b', feature.key)).usage.used, 1);
    await sql`update usage_counters set used = used + 1 where account_id = ${accountId}`.execute(svc.ctx.db);
    const capped = await m.check('ctx-b', feature.key);
    assert.deepEqual([capped.allowed, capped.usage.used], [false, 2]);

    // A renamed customer reference: the old reference is gone at once.
    await sql`update customers set customer_reference_id = 'ctx-b-renamed' where account_id = ${accountId} and customer_reference_id = 'ctx-b'`.execute(svc.ctx.db);
    const gone = await m.client('GET', `/entitlements/ctx-b/${feature.key}`);
    assert.equal(gone.status, 404, gone.text);
    assert.equal((await m.check('ctx-b-renamed', feature.key)).usage.used, 2);
  });

  test('when a second node changes the subscription then the first node’s next check reflects it', { skip: backend !== 'postgres' && 'PostgreSQL only (PGlite is one process)' }, async () => {
    const other = await startSecondNode(svc);
    try {
      const feature = await m.feature();
      const plan = await m.activePlan({ price: 0, features: [{ id: feature.id, value: limited(5) }] });
      await m.customer('ctx-c');
      const sub = await m.subscribe('ctx-c', plan.id);
      assert.equal((await m.check('ctx-c', feature.key)).allowed, true);
      const res = await other.http.request('POST', `/api/v1/client/subscriptions/cancellation/${sub.subscription.id}?cancelMode=IMMEDIATE`, { auth: apiKey });
      assert.equal(res.status, 200, res.text);
      const after = await m.check('ctx-c', feature.key);
      assert.deepEqual([after.allowed, after.meta?.reason?.code], [false, 'NO_SUBSCRIPTION']);
    } finally {
      await other.close();
    }
  });
});
