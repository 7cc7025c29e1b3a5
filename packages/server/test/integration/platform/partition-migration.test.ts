import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../../src/platform/db/database.js';
import { migrate, readMigrations } from '../../../src/platform/db/migrator.js';
import { newId } from '../../../src/platform/ids.js';
import { backend, ON_CITUS, openTestDatabase } from '../../harness.js';
import { ledgerRowWithKeys } from '../../ledger-row.js';

/**
 * Migrations 0028–0030 on an install that already holds data: every row keeps its id and values,
 * lands in its month's partition (a row from 1990 stays in the DEFAULT partition), and the key
 * tables are filled so an existing key is a duplicate afterwards.
 */
// It runs the migrations from an unpartitioned install; a Citus run hands out schemas already migrated and distributed.
describe(`partitioning an existing install (${backend})`, { skip: ON_CITUS && 'migrates from scratch; on Citus every test schema is already migrated and distributed' }, () => {
  let database: Database;
  let drop: () => Promise<void>;
  const accountId = newId();
  const poolId = newId();
  const connectionId = newId();
  const eventIds = [newId(), newId(), newId(), newId()];
  const txIds = [newId(), newId(), newId()];
  const db = () => database.db;
  const placement = async (table: string) => {
    const { rows } = await sql<{ part: string; n: number }>`select tableoid::regclass::text as part, count(*)::int as n from ${sql.table(table)} group by 1 order by 1`.execute(db());
    return Object.fromEntries(rows.map((r) => [r.part.replace(/^.*\./, ''), r.n]));
  };

  before(async () => {
    ({ database, drop } = await openTestDatabase());
    await migrate(database, readMigrations().filter((m) => m.version < '0028'));
    const at = (iso: string) => new Date(iso);
    await sql`insert into accounts (id, name) values (${accountId}, 'old install')`.execute(db());
    const event = (id: string, key: string, occurred: string) => sql`
      insert into usage_events (id, account_id, customer_id, feature_id, event_type, event_name, event_idempotency_key, usage_units, occurred_at, ingested_at)
      values (${id}, ${accountId}, ${newId()}, ${newId()}, 'CLIENT_TRACKED', 'e', ${key}, 1.5, ${at(occurred)}, ${at(occurred)})`.execute(db());
    await event(eventIds[0]!, 'k-jan', '2026-01-31T23:59:59Z');
    await event(eventIds[1]!, 'k-feb', '2026-02-01T00:00:00Z');
    await event(eventIds[2]!, 'k-jun', '2026-06-15T12:00:00Z');
    await event(eventIds[3]!, 'k-1990', '1990-05-01T00:00:00Z');
    const now = at('2026-01-10T00:00:00Z');
    await sql`insert into credit_pools (id, account_id, name, denomination, balance, total_granted, total_reversed, ledger_seq, created_at, modified_at)
              values (${poolId}, ${accountId}, 'p', 'cr', 10, 10, 0, 3, ${now}, ${now})`.execute(db());
    const ledger = (id: string, seq: number, type: string, amount: number, before: number, created: string, extra: { key?: string; reverses?: string } = {}) => sql`
      insert into credit_transactions (id, account_id, credit_pool_id, seq, transaction_type, amount, balance_before, balance_after, idempotency_key, reversed_transaction_id, created_at)
      values (${id}, ${accountId}, ${poolId}, ${seq}, ${type}, ${amount}, ${before}, ${before + amount}, ${extra.key ?? null}, ${extra.reverses ?? null}, ${at(created)})`.execute(db());
    await ledger(txIds[0]!, 1, 'GRANT', 10, 0, '2026-01-10T00:00:00Z', { key: 'grant-1' });
    await ledger(txIds[1]!, 2, 'ADJUSTMENT', -2, 10, '2026-02-10T00:00:00Z');
    await ledger(txIds[2]!, 3, 'REVERSAL', 2, 8, '2026-03-10T00:00:00Z', { reverses: txIds[1]! });
    await sql`insert into spend_connections (id, account_id, provider, label, key_hint, status, created_at, modified_at)
              values (${connectionId}, ${accountId}, 'OPENAI', 'c', 'abcd', 'ACTIVE', ${now}, ${now})`.execute(db());
    for (const day of ['2026-01-31', '2026-02-01']) {
      await sql`insert into spend_usage_buckets (account_id, connection_id, provider, day, model, output_tokens) values (${accountId}, ${connectionId}, 'OPENAI', ${day}::date, 'gpt', 7)`.execute(db());
    }
    await migrate(database);
  });
  after(async () => {
    await database.close();
    await drop();
  });

  test('when the partitioning migrations run then every row keeps its id and values and sits in its month', async () => {
    assert.deepEqual(await placement('usage_events'), { usage_events_2026_01: 1, usage_events_2026_02: 1, usage_events_2026_06: 1, usage_events_default: 1 });
    const events = await sql<{ id: string; key: string; units: string }>`select id, event_idempotency_key as key, usage_units::text as units from usage_events order by occurred_at`.execute(db());
    assert.deepEqual(events.rows.map((r) => r.id), [eventIds[3], eventIds[0], eventIds[1], eventIds[2]]);
    assert.ok(events.rows.every((r) => r.units === '1.5'));
    assert.deepEqual(await placement('credit_transactions'), { credit_transactions_2026_01: 1, credit_transactions_2026_02: 1, credit_transactions_2026_03: 1 });
    const ledger = await sql<{ id: string; seq: string }>`select id, seq::text as seq from credit_transactions order by seq`.execute(db());
    assert.deepEqual(ledger.rows, txIds.map((id, i) => ({ id, seq: String(i + 1) })));
    assert.deepEqual(await placement('spend_usage_buckets'), { spend_usage_buckets_2026_01: 1, spend_usage_buckets_2026_02: 1 });
  });

  test('when a key stored before the migration repeats afterwards, in any month, then the database refuses it', async () => {
    const violation = (constraint: string) => (err: any) => err.code === '23505' && err.constraint === constraint;
    await assert.rejects(
      sql`insert into usage_event_keys (account_id, event_idempotency_key, event_id, occurred_at) values (${accountId}, 'k-jan', ${newId()}, now())`.execute(db()),
      violation('usage_event_keys_pkey'),
    );
    // A row written as the ledger writes one: with its key claims in the same statement.
    const ledger = (seq: number, extra: { key?: string; reverses?: string } = {}) =>
      ledgerRowWithKeys(
        sql`id, account_id, credit_pool_id, seq, transaction_type, amount, balance_before, balance_after, idempotency_key, reversed_transaction_id, created_at`,
        sql`${newId()}, ${accountId}, ${poolId}, ${seq}, 'ADJUSTMENT', 0, 10, 10, ${extra.key ?? null}, ${extra.reverses ?? null}, ${new Date('2026-05-05T00:00:00Z')}`,
      ).execute(db());
    await assert.rejects(ledger(2), violation('credit_transaction_seqs_pkey'));
    await assert.rejects(ledger(40, { key: 'grant-1' }), violation('credit_transaction_idempotency_keys_pkey'));
    await assert.rejects(ledger(41, { reverses: txIds[1]! }), violation('credit_transaction_reversals_pkey'));
    await ledger(4);
    const seqs = await sql<{ n: number }>`select count(*)::int as n from credit_transaction_seqs where credit_pool_id = ${poolId}`.execute(db());
    assert.equal(seqs.rows[0]!.n, 4, 'a new row claims its (pool, seq) in its own statement');
  });
});
