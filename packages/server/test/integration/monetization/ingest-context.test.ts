import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * A node remembers the context each (customer, feature) was ingested with and writes the next
 * plain event with one statement that checks it is unchanged (ADR 0018). Every change that alters
 * what an event writes must be seen by the very next event, as if the context had been read again.
 */
describe(`ingestion with a remembered context (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let accountId: string;
  let plan: { id: string };
  let feature: { id: string; key: string };

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    accountId = account.accountId;
    m = monetization(svc, account);
    feature = await m.feature({ key: 'ctx.calls' });
    plan = await m.activePlan({ price: 0, features: [{ id: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: '0.002' } } }] });
  });
  after(() => svc.close());

  const stored = async (key: string) =>
    svc.ctx.db.selectFrom('usage_events').select([sql<string>`usage_units::text`.as('units'), sql<string>`revenue_amount::text`.as('revenue'), 'context']).where('event_idempotency_key', '=', key).executeTakeFirstOrThrow();
  const event = async (ref: string, key: string, units: number) => {
    const res = await m.event({ customerReferenceId: ref, featureKey: feature.key, usageUnits: units, eventIdempotencyKey: key });
    assert.ok(res.status === 200 || res.status === 201, res.text);
    return res;
  };

  test('when the rule changes between two events then the second is priced and capped by the new rule', async () => {
    await m.customer('ctx-a');
    await m.subscribe('ctx-a', plan.id);
    await event('ctx-a', 'ctx-a-1', 10);
    await event('ctx-a', 'ctx-a-2', 10);
    assert.equal(Number((await stored('ctx-a-2')).revenue), 0.02);
    await m.expectOk(m.admin('PATCH', '/rules/plan-features', { planId: plan.id, featureId: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: '0.01', max_usage: 25 } } }));
    const over = await event('ctx-a', 'ctx-a-3', 10);
    assert.equal(over.status, 200, 'over the new max_usage: stored zeroed');
    assert.equal(over.body.data.usageLimitExceeded, true);
    assert.equal(Number((await stored('ctx-a-3')).units), 0);
    const fits = await event('ctx-a', 'ctx-a-4', 5);
    assert.equal(fits.status, 201);
    assert.equal(Number((await stored('ctx-a-4')).revenue), 0.05, 'priced at the new rate');
    assert.equal((await m.event({ customerReferenceId: 'ctx-a', featureKey: feature.key, usageUnits: 1, eventIdempotencyKey: 'ctx-a-4' })).status, 409, 'a repeated key is still a conflict');
    const counter = await svc.ctx.db.selectFrom('usage_counters').select(sql<string>`used::text`.as('used')).where('account_id', '=', accountId).where('feature_id', '=', feature.id).execute();
    assert.deepEqual(counter.map((c) => Number(c.used)), [25]);
  });

  test('when the subscription ends between two events then the second is stored without counting', async () => {
    await m.customer('ctx-b');
    const sub = await m.subscribe('ctx-b', plan.id);
    await event('ctx-b', 'ctx-b-1', 3);
    await event('ctx-b', 'ctx-b-2', 3);
    await m.expectOk(m.client('POST', `/subscriptions/cancellation/${sub.subscription?.id ?? sub.id}?cancelMode=IMMEDIATE`));
    await event('ctx-b', 'ctx-b-3', 3);
    const row = await svc.ctx.db.selectFrom('usage_events').select(['subscription_id']).where('event_idempotency_key', '=', 'ctx-b-3').executeTakeFirstOrThrow();
    assert.equal(row.subscription_id, null, 'no active subscription: not counted against the ended one');
  });

  test('when the account starts wanting usage_recorded between two events then the second is queued for the meters', async () => {
    await m.customer('ctx-c');
    await m.subscribe('ctx-c', plan.id);
    await event('ctx-c', 'ctx-c-1', 1);
    await event('ctx-c', 'ctx-c-2', 1);
    await sql`insert into account_settings (account_id, stripe_mode, created_at, modified_at) values (${accountId}, 'PROCESSOR_INTEGRATION', now(), now())
              on conflict (account_id) do update set stripe_mode = 'PROCESSOR_INTEGRATION'`.execute(svc.ctx.db);
    const res = await event('ctx-c', 'ctx-c-3', 1);
    const queued = await svc.ctx.db.selectFrom('processor_meter_events').select('event_id').where('account_id', '=', accountId).execute();
    assert.deepEqual(queued.map((q) => q.event_id), [res.body.data.eventId]);
    await sql`update account_settings set stripe_mode = 'NONE' where account_id = ${accountId}`.execute(svc.ctx.db);
    await event('ctx-c', 'ctx-c-4', 1);
    await event('ctx-c', 'ctx-c-5', 1);
    assert.equal((await svc.ctx.db.selectFrom('processor_meter_events').select('event_id').where('account_id', '=', accountId).execute()).length, 1);
  });
});
