import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { detachMonth, ensureMonthlyPartitions, listPartitions, MONTHLY_PARTITIONED_TABLES } from '../../../src/platform/db/partitions.js';
import { newId } from '../../../src/platform/ids.js';
import { monetization } from '../../factories.js';
import { uniqueViolationOf } from '../../../src/platform/db/errors.js';
import { backend, createTestAccount, ON_CITUS, startTestService, type TestService } from '../../harness.js';
import { ledgerRowWithKeys } from '../../ledger-row.js';

/**
 * Monthly partitions (migrations 0028–0030, ADR 0022): rows land in their month's partition, reads
 * and the ledger audit see every month as before, keys stay unique across months, and the
 * partitions-ahead job creates the coming months once and moves rows the DEFAULT partition caught.
 */
describe(`monthly partitions (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let accountId: string;
  let poolId: string;
  const FEATURE = 'part.chat';
  const REF = 'part-cust';

  /** Rows per partition of a table (partition name → count), for this account. */
  const placement = async (table: string) => {
    const { rows } = await sql<{ part: string; n: number }>`
      select tableoid::regclass::text as part, count(*)::int as n from ${sql.table(table)}
       where account_id = ${accountId} group by 1 order by 1`.execute(svc.ctx.db);
    // On Citus the row's relation is the partition's shard: its shard id is taken off (ADR 0023).
    return Object.fromEntries(rows.map((r) => [r.part.replace(/^.*\./, '').replace(ON_CITUS ? /_\d+$/ : /$^/, ''), r.n]));
  };
  const setNow = (iso: string) => svc.clock.set(new Date(iso));

  before(async () => {
    svc = await startTestService({ now: '2026-01-20T12:00:00Z' });
    const acct = await createTestAccount(svc);
    accountId = acct.accountId;
    m = monetization(svc, acct);
    const model = await m.creditModel({ denomination: 'part-credits' });
    const feature = await m.feature({ key: FEATURE });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'part-plan', name: 'part-plan', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=1000`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    await m.customer(REF);
    await m.subscribe(REF, plan.id);
    poolId = (await m.expectOk(m.client('GET', `/credits/${REF}/pools`))).items[0].id;
  });
  after(() => svc.close());

  test('when the partitions-ahead job runs then each table has this month and the next three, once per slot, and running again creates nothing', async () => {
    const outcome = await svc.scheduler.run('partitions-ahead');
    assert.equal(outcome.status, 'ran');
    for (const { table } of MONTHLY_PARTITIONED_TABLES) {
      const names = (await listPartitions(svc.ctx.db, table)).map((p) => p.name);
      for (const month of ['2026_01', '2026_02', '2026_03', '2026_04']) assert.ok(names.includes(`${table}_${month}`), `${table}_${month} in ${names.join(', ')}`);
      assert.equal(names.at(-1), `${table}_default`, 'the DEFAULT partition is there, listed last');
      const march = (await listPartitions(svc.ctx.db, table)).find((p) => p.name === `${table}_2026_03`)!;
      assert.match(march.bounds, /FROM \('2026-03-01.*'\) TO \('2026-04-01.*'\)/, 'a UTC month');
    }
    assert.equal((await svc.scheduler.run('partitions-ahead')).status, 'skipped', 'the slot ran once');
    assert.deepEqual(await ensureMonthlyPartitions(svc.ctx.db, svc.clock.now()), [], 'idempotent');
  });

  test('when events and ledger rows are written across four months then each lands in its month, and reads, the ledger and the audit see them all', async () => {
    const months = ['2026-01-21', '2026-02-10', '2026-03-15', '2026-04-05'];
    for (const [i, day] of months.entries()) {
      setNow(`${day}T10:00:00Z`);
      const single = await m.event({ customerReferenceId: REF, featureKey: FEATURE, usageUnits: 2, eventIdempotencyKey: `one-${i}` });
      assert.equal(single.status, 201, single.text);
      const batch = await m.client('POST', '/events/batch', {
        events: [1, 2].map((n) => ({ eventName: 'chat.message', customerReferenceId: REF, featureKey: FEATURE, usageUnits: 1, eventIdempotencyKey: `batch-${i}-${n}` })),
      });
      assert.equal(batch.status, 200, batch.text);
      assert.deepEqual(batch.body.data.results.map((r: any) => r.status), ['stored', 'stored']);
      await m.check(REF, FEATURE);
    }
    await svc.ctx.batches.flush();
    const events = await placement('usage_events');
    assert.deepEqual(events, { usage_events_2026_01: 4, usage_events_2026_02: 4, usage_events_2026_03: 4, usage_events_2026_04: 4 }, 'three events and one check row per month');
    const ledger = await placement('credit_transactions');
    assert.deepEqual(Object.keys(ledger), ['credit_transactions_2026_01', 'credit_transactions_2026_02', 'credit_transactions_2026_03', 'credit_transactions_2026_04']);
    assert.equal(ledger.credit_transactions_2026_01, 1 + 3, 'the plan grant and three deductions');

    const listed = await m.expectOk(m.api('GET', `/api/v1/tanso/events?customerReferenceId=${REF}&eventType=CLIENT_TRACKED&limit=100`));
    assert.equal(listed.items.length, 12, 'every month is read');
    const window = await m.expectOk(m.api('GET', `/api/v1/tanso/events?customerReferenceId=${REF}&eventType=CLIENT_TRACKED&from=2026-02-01T00:00:00Z&to=2026-04-01T00:00:00Z&limit=100`));
    assert.equal(window.items.length, 6, 'a window across two months');
    const txs = await m.expectOk(m.admin('GET', `/credits/pools/${poolId}/transactions?limit=100`));
    const rows = (txs.items ?? txs) as { transactionType: string; createdAt: string }[];
    assert.equal(rows.length, 13, 'the grant and twelve deductions');
    assert.deepEqual(rows.map((r) => r.createdAt), [...rows.map((r) => r.createdAt)].sort(), 'oldest first across months');
    const pool = await m.expectOk(m.admin('GET', `/credits/pools/${poolId}`));
    assert.equal(Number(pool.balance), 1000 - 16);
    await m.audit();
  });

  test('when an event key, a ledger idempotency key, a (pool, seq) or a reversal repeats in another month then it is a duplicate', async () => {
    setNow('2026-04-06T10:00:00Z');
    const again = await m.event({ customerReferenceId: REF, featureKey: FEATURE, usageUnits: 2, eventIdempotencyKey: 'one-0' });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.body.error.code, 'conflict');
    const batch = await m.client('POST', '/events/batch', { events: [{ eventName: 'chat.message', customerReferenceId: REF, featureKey: FEATURE, usageUnits: 1, eventIdempotencyKey: 'batch-0-1' }] });
    assert.deepEqual(batch.body.data.results.map((r: any) => r.status), ['duplicate'], 'a January key in April');

    setNow('2026-01-25T10:00:00Z');
    const deduction = await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: poolId, amount: 1, idempotencyKey: 'ded-jan' }));
    setNow('2026-03-02T10:00:00Z');
    const replay = await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: poolId, amount: 1, idempotencyKey: 'ded-jan' }));
    assert.equal(replay.id, deduction.id, "the same key in March replays January's row");
    const reversal = await m.admin('POST', `/credits/transactions/${deduction.id}/reverse`);
    assert.ok(reversal.status < 300, reversal.text);
    const twice = await m.admin('POST', `/credits/transactions/${deduction.id}/reverse`);
    assert.equal(twice.status, 409, twice.text);
    await m.audit();

    // Each key, claimed in the writing statement as the ledger claims it, is refused in another month.
    const row = (await sql<Record<string, unknown>>`select * from credit_transactions where account_id = ${accountId} and idempotency_key = 'ded-jan'`.execute(svc.ctx.db)).rows[0]!;
    const copy = async (changes: Record<string, unknown>) => {
      const r: Record<string, unknown> = { ...row, id: newId(), created_at: new Date('2026-04-03T00:00:00Z'), idempotency_key: null, ...changes };
      const cols = Object.keys(r);
      return ledgerRowWithKeys(sql.join(cols.map((c) => sql.ref(c))), sql.join(cols.map((c) => (c === 'metadata' ? sql`${JSON.stringify(r[c])}::jsonb` : sql`${r[c]}`)))).execute(svc.ctx.db);
    };
    const maxSeq = async () => Number((await sql<{ s: string }>`select max(seq)::text as s from credit_transactions where credit_pool_id = ${poolId}`.execute(svc.ctx.db)).rows[0]!.s);
    // (On Citus the violation names the key table's shard: `credit_transaction_seqs_pkey_102345`.)
    const violation = (constraint: string) => (err: unknown) =>
      uniqueViolationOf(err)?.constraint === constraint || (ON_CITUS && new RegExp(`"${constraint}_\\d+"`).test((err as Error).message));
    await assert.rejects(copy({ seq: Number(row.seq) }), violation('credit_transaction_seqs_pkey'), 'the same (pool, seq) in April');
    await assert.rejects(copy({ seq: (await maxSeq()) + 100, idempotency_key: 'ded-jan' }), violation('credit_transaction_idempotency_keys_pkey'), 'the same key in April');
    await assert.rejects(copy({ seq: (await maxSeq()) + 100, transaction_type: 'REVERSAL', amount: '1.000000', balance_after: String(Number(row.balance_before) + 1 + 1), balance_before: String(Number(row.balance_before) + 1), reversed_transaction_id: row.id }), violation('credit_transaction_reversals_pkey'), 'a second reversal in April');
    await assert.rejects(
      sql`insert into usage_event_keys (account_id, event_idempotency_key, event_id, occurred_at) values (${accountId}, 'one-0', ${newId()}, '2026-04-03T00:00:00Z')`.execute(svc.ctx.db),
      violation('usage_event_keys_pkey'),
    );
    await m.audit();
  });

  test('when rows arrive for a month with no partition then the DEFAULT partition takes them and the job moves them into their month, keys and ids intact', async () => {
    setNow('2026-08-14T09:00:00Z');
    const res = await m.event({ customerReferenceId: REF, featureKey: FEATURE, usageUnits: 3, eventIdempotencyKey: 'aug-1' });
    assert.equal(res.status, 201, res.text);
    assert.equal((await placement('usage_events')).usage_events_default, 1);
    assert.equal((await placement('credit_transactions')).credit_transactions_default, 1);
    const [before] = (await sql<{ id: string }>`select id from usage_events where account_id = ${accountId} and event_idempotency_key = 'aug-1'`.execute(svc.ctx.db)).rows;

    const created = await ensureMonthlyPartitions(svc.ctx.db, svc.clock.now());
    for (const { table } of MONTHLY_PARTITIONED_TABLES) {
      assert.ok(created.includes(`${table}_2026_08`), created.join(', '));
      const names = (await listPartitions(svc.ctx.db, table)).map((p) => p.name);
      for (const month of ['2026_09', '2026_10', '2026_11']) assert.ok(names.includes(`${table}_${month}`), `${table}_${month} ahead`);
    }
    const events = await placement('usage_events');
    assert.equal(events.usage_events_default, undefined, 'the default partition is empty again');
    assert.equal(events.usage_events_2026_08, 1);
    assert.equal((await placement('credit_transactions')).credit_transactions_2026_08, 1);
    const [after] = (await sql<{ id: string }>`select id from usage_events where account_id = ${accountId} and event_idempotency_key = 'aug-1'`.execute(svc.ctx.db)).rows;
    assert.equal(after!.id, before!.id, 'same id');
    const dup = await m.event({ customerReferenceId: REF, featureKey: FEATURE, usageUnits: 3, eventIdempotencyKey: 'aug-1' });
    assert.equal(dup.status, 409, 'still a duplicate after the move');
    await m.audit();
  });

  test('when vendor usage buckets of several months are stored then each month holds its days and the key still upserts', async () => {
    const connectionId = newId();
    const now = svc.clock.now();
    await sql`insert into spend_connections (id, account_id, provider, label, key_hint, status, created_at, modified_at)
              values (${connectionId}, ${accountId}, 'ANTHROPIC', 'part', 'abcd', 'ACTIVE', ${now}, ${now})`.execute(svc.ctx.db);
    const upsert = (day: string, tokens: number) => sql`
      insert into spend_usage_buckets (account_id, connection_id, provider, day, model, output_tokens)
      values (${accountId}, ${connectionId}, 'ANTHROPIC', ${day}::date, 'claude', ${tokens})
      on conflict (account_id, connection_id, day, model, workspace_id, api_key_id, actor, service_tier)
      do update set output_tokens = spend_usage_buckets.output_tokens + excluded.output_tokens`.execute(svc.ctx.db);
    for (const day of ['2026-01-31', '2026-02-01', '2026-03-31', '2026-03-31']) await upsert(day, 10);
    assert.deepEqual(await placement('spend_usage_buckets'), { spend_usage_buckets_2026_01: 1, spend_usage_buckets_2026_02: 1, spend_usage_buckets_2026_03: 1 });
    const { rows } = await sql<{ t: string }>`select output_tokens::text as t from spend_usage_buckets where account_id = ${accountId} and day = '2026-03-31'`.execute(svc.ctx.db);
    assert.deepEqual(rows, [{ t: '20' }], 'the same key in its month is one row');
  });

  test('when an operator detaches a past month of events then its rows leave every read, stay in the detached table, and their keys stay duplicates', async () => {
    const clientEvents = async () => (await m.expectOk(m.api('GET', `/api/v1/tanso/events?customerReferenceId=${REF}&eventType=CLIENT_TRACKED&limit=100`))).items.length as number;
    const before = await clientEvents();
    const now = svc.clock.now();
    for (const [table, month, refusal] of [
      ['credit_transactions', '2026-01', /ledger months stay attached/],
      ['usage_events', '2026-08', /not in the past/],
      ['usage_events', '2026-1', /YYYY-MM/],
      ['usage_events', '2019-01', /not a partition/],
      ['customers', '2026-01', /not partitioned by month/],
    ] as const) {
      await assert.rejects(detachMonth(svc.ctx.db, table, month, now), refusal, `${table} ${month}`);
    }
    assert.equal(await detachMonth(svc.ctx.db, 'usage_events', '2026-01', now), 'usage_events_2026_01');
    assert.equal(await clientEvents(), before - 3, "January's three events are gone from the list");
    const archived = await sql<{ n: number }>`select count(*)::int as n from usage_events_2026_01 where account_id = ${accountId}`.execute(svc.ctx.db);
    assert.equal(archived.rows[0]!.n, 4, 'the detached table keeps them (three events and a check row)');
    assert.ok(!(await listPartitions(svc.ctx.db, 'usage_events')).some((p) => p.name === 'usage_events_2026_01'));
    const again = await m.event({ customerReferenceId: REF, featureKey: FEATURE, usageUnits: 2, eventIdempotencyKey: 'one-0' });
    assert.equal(again.status, 409, "a detached month's key is still a duplicate");
    assert.deepEqual(await ensureMonthlyPartitions(svc.ctx.db, now), [], 'the job does not recreate a detached month');
    await m.audit();
  });
});
