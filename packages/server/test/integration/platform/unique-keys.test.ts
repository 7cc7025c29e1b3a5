import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { snapshotTables } from '../../snapshot.js';
import { UNIQUE_CONSTRAINTS, UNIQUE_KEY_MESSAGE } from '../../../src/platform/db/errors.js';
import { ok } from '../../../src/platform/http/envelope.js';
import { newId } from '../../../src/platform/ids.js';

const TABLES = ['features', 'plans', 'customers', 'credit_models', 'plan_credit_allocations', 'credit_pools', 'credit_pool_links', 'usage_events', 'usage_event_keys'] as const;

describe('unique-key collisions answer 409 conflict, mapped by constraint name', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  before(async () => {
    svc = await startTestService({
      extraRoutes: (app) =>
        // A unique violation no service maps: the error handler must still answer 409, not 500.
        app.post('/api/v1/client/test/duplicate-throttle-row', async () => {
          const subject = `test:${newId()}`;
          for (let i = 0; i < 2; i++) {
            await svc.ctx.db.insertInto('login_throttle').values({ subject, window_start: new Date(), failures: 1, last_failure_at: new Date() }).execute();
          }
          return ok({});
        }),
    });
    m = monetization(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  /** Every row of the tables, so an update is caught as well as an insert. */
  const counts = () => snapshotTables(svc, TABLES);

  test('every constraint name the services map exists in the migrated schema', async () => {
    const { rows } = await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(svc.ctx.db);
    const names = new Set(rows.map((r) => r.name));
    for (const name of Object.values(UNIQUE_CONSTRAINTS)) assert.ok(names.has(name), `unique index ${name} exists`);
  });

  test('when a key, name, denomination, allocation, link, reference or event key (a month later) repeats then 409 conflict with its message and nothing is written', async () => {
    const feature = await m.feature({ key: 'dup-feature' });
    const other = await m.feature({ key: 'other-feature' });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'dup-plan', name: 'Dup plan' }), 201);
    const plan2 = await m.expectOk(m.admin('POST', '/plans', { key: 'plan-two', name: 'Plan two' }), 201);
    const model = await m.creditModel({ denomination: 'dup-credits' });
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=10`), 201);
    await m.expectOk(m.admin('POST', '/credits/pools', { name: 'dup-pool', denomination: 'dup-credits' }), 201);
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'linked-pool', denomination: 'dup-credits' }), 201);
    await m.customer('dup-customer');
    const activePlan = await m.activePlan({ features: [{ id: feature.id }] });
    const sub = await m.subscribe('dup-customer', activePlan.id);
    await m.expectOk(m.admin('POST', `/credits/pools/${pool.id}/subscriptions/${sub.subscription.id}`), 201);
    // An event key is unique per account across every month (usage_event_keys, ADR 0022).
    await m.expectOk(m.event({ customerReferenceId: 'dup-customer', featureKey: feature.key, usageUnits: 1, eventIdempotencyKey: 'dup-event' }), 201);
    svc.clock.set(new Date(svc.clock.now().getTime() + 40 * 86_400_000));

    const cases: [string, string, unknown, 'admin' | 'client', string][] = [
      ['POST', '/features', { name: 'x', key: 'dup-feature' }, 'admin', 'Feature with key: dup-feature already exists'],
      ['PATCH', `/features/${other.id}`, { key: 'dup-feature' }, 'admin', 'Feature with key: dup-feature already exists'],
      ['POST', '/plans', { key: 'dup-plan' }, 'admin', 'Plan with key: dup-plan already exists'],
      ['PATCH', `/plans/${plan2.id}`, { key: 'dup-plan' }, 'admin', 'Plan with key: dup-plan already exists'],
      ['POST', '/plans', { key: 'fresh-key', name: 'Dup plan' }, 'admin', 'Plan with name: Dup plan already exists'],
      ['PATCH', `/plans/${plan2.id}`, { name: 'Dup plan' }, 'admin', 'Plan with name: Dup plan already exists'],
      ['POST', '/credits/models', { name: 'again', denomination: 'dup-credits' }, 'admin', "Credit model with denomination 'dup-credits' already exists"],
      ['POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=5`, undefined, 'admin', 'Allocation already exists for this plan and credit model'],
      ['POST', '/credits/pools', { name: 'dup-pool', denomination: 'dup-credits' }, 'admin', "Credit pool with name 'dup-pool' already exists"],
      ['POST', `/credits/pools/${pool.id}/subscriptions/${sub.subscription.id}`, undefined, 'admin', 'Pool already linked to subscription'],
      ['POST', '/customers', { customerReferenceId: 'dup-customer', email: 'x@example.com' }, 'client', "Customer with customerReferenceId 'dup-customer' already exists"],
      ['POST', '/events', { eventName: 'e', customerReferenceId: 'dup-customer', featureKey: 'dup-feature', usageUnits: 1, eventIdempotencyKey: 'dup-event' }, 'client', "Event with eventIdempotencyKey 'dup-event' was already ingested"],
    ];
    const before = await counts();
    const planBefore = await m.expectOk(m.admin('GET', `/plans/${plan2.id}`));
    for (const [method, path, body, surface, message] of cases) {
      const res = await m[surface](method, path, body);
      const label = `${method} ${path} ${JSON.stringify(body) ?? ''}`;
      assert.equal(res.status, 409, `${label}: ${res.text}`);
      assert.equal(res.body.success, false, label);
      assert.equal(res.body.error.code, 'conflict', label);
      assert.equal(res.body.error.message, message, label);
      assert.equal(typeof res.body.error.requestId, 'string', label);
    }
    assert.deepEqual(await counts(), before, 'no duplicate wrote anything');
    assert.deepEqual(await m.expectOk(m.admin('GET', `/plans/${plan2.id}`)), planBefore, 'the patched plan is unchanged');
    const otherAfter = await m.expectOk(m.admin('GET', `/features/${other.id}`));
    assert.equal(otherAfter.key, 'other-feature');
  });

  test('when a unique violation reaches the error handler unmapped then 409 conflict with the generic message', async () => {
    const acct = await createTestAccount(svc);
    const res = await svc.http.post('/api/v1/client/test/duplicate-throttle-row', { auth: acct.apiKey });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'conflict');
    assert.equal(res.body.error.message, UNIQUE_KEY_MESSAGE);
    assert.doesNotMatch(res.text, /login_throttle|duplicate key/);
  });
});
