import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService, ON_CITUS } from '../../harness.js';
import { newId } from '../../../src/platform/ids.js';

/**
 * A group of plain events (a batch here; grouped single events take the same path) whose key another
 * transaction commits while the group waits for its counter lock: the key is a duplicate of that
 * event, and the counter counts each stored event once. The group reads its stored keys only after
 * it holds its locks (apply-events.ts); had it read them in the statement that waits (tried in ADR
 * 0030, "fewer statements in the lock window"), its insert would skip the key and the round would be
 * decided again, with the same answer. Two connections, so PostgreSQL only.
 */
describe(`batch ingestion: a key committed while the group waits for its counter lock (${backend})`, {
  skip: (backend !== 'postgres' && 'needs two connections') || (ON_CITUS && 'on Citus the lock wait happens on a worker, where the probe of pg_locks on the coordinator cannot see it'),
}, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  const FEATURE = 'rounds.f';

  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature({ key: FEATURE });
    const plan = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
    await m.customer('rounds');
    await m.subscribe('rounds', plan.id);
  });
  after(() => svc.close());

  test('then the late key is a duplicate of the committed event and the counter counts every stored event once', async () => {
    const seed = await m.event({ customerReferenceId: 'rounds', featureKey: FEATURE, usageUnits: 1, eventIdempotencyKey: 'rounds-seed' });
    assert.equal(seed.status, 201, seed.text);
    const db = svc.ctx.db;
    const counterOf = async () =>
      (await sql<{ used: string }>`select c.used::text as used from usage_counters c join usage_events e
             on e.account_id = c.account_id and e.subscription_id = c.subscription_id and e.feature_id = c.feature_id
          where e.event_idempotency_key = 'rounds-seed'`.execute(db)).rows[0]!.used;
    assert.equal(await counterOf(), '1');

    // Another writer: holds the counter row, stores key rounds-late (an event of 1 unit, counted), and
    // commits only once the batch below is waiting for that row.
    const lateId = newId();
    let releaseWriter!: () => void;
    const writerMayCommit = new Promise<void>((resolve) => (releaseWriter = resolve));
    let writerHoldsLock!: (pid: number) => void;
    const writerLocked = new Promise<number>((resolve) => (writerHoldsLock = resolve));
    const writer = db.transaction().execute(async (tx) => {
      await sql`update usage_counters c set used = c.used + 1 from usage_events e
                 where e.event_idempotency_key = 'rounds-seed' and c.account_id = e.account_id
                   and c.subscription_id = e.subscription_id and c.feature_id = e.feature_id`.execute(tx);
      await sql`insert into usage_event_keys (account_id, event_idempotency_key, event_id, occurred_at)
                select account_id, 'rounds-late', ${lateId}::uuid, occurred_at from usage_events where event_idempotency_key = 'rounds-seed'`.execute(tx);
      await sql`insert into usage_events (id, account_id, customer_id, feature_id, subscription_id, event_type, event_name, event_idempotency_key,
                  usage_units, revenue_amount, cost_amount, occurred_at, ingested_at, context, meta)
                select ${lateId}::uuid, account_id, customer_id, feature_id, subscription_id, event_type, event_name, 'rounds-late',
                  usage_units, revenue_amount, cost_amount, occurred_at, ingested_at, context, meta
                  from usage_events where event_idempotency_key = 'rounds-seed'`.execute(tx);
      writerHoldsLock((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx)).rows[0]!.pid);
      await writerMayCommit;
    });
    const writerPid = await writerLocked;

    const batch = m.client('POST', '/events/batch', {
      events: [
        { eventName: 'e', customerReferenceId: 'rounds', featureKey: FEATURE, usageUnits: 1, eventIdempotencyKey: 'rounds-late' },
        { eventName: 'e', customerReferenceId: 'rounds', featureKey: FEATURE, usageUnits: 1, eventIdempotencyKey: 'rounds-new' },
      ],
    });
    // Wait until the batch's counter-lock statement is blocked on the writer's row lock, then commit
    // (also when the wait is never seen, so a failure leaves no transaction open).
    try {
      for (let i = 0; ; i++) {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
           where ${writerPid}::int = any(pg_blocking_pids(pid)) and query like '%insert into usage_counters%'`.execute(db);
        if (rows[0]!.n > 0) break;
        assert.ok(i < 500, 'the batch never waited for the counter lock');
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      releaseWriter();
      await writer;
    }

    const res = await batch;
    assert.equal(res.status, 200, res.text);
    const [late, fresh] = res.body.data.results;
    assert.equal(late.status, 'duplicate', JSON.stringify(late));
    assert.equal(late.eventId, lateId);
    assert.equal(fresh.status, 'stored', JSON.stringify(fresh));
    // seed + the writer's event + rounds-new.
    assert.equal(await counterOf(), '3');
    const stored = await sql<{ k: string }>`select event_idempotency_key as k from usage_events where event_idempotency_key like 'rounds-%' order by 1`.execute(db);
    assert.deepEqual(stored.rows.map((r) => r.k), ['rounds-late', 'rounds-new', 'rounds-seed']);
  });
});
