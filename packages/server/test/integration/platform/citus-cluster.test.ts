import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { sql } from 'kysely';
import { distributeOnCitus } from '../../../src/platform/db/citus.js';
import type { Database } from '../../../src/platform/db/database.js';
import { migrate, readMigrations } from '../../../src/platform/db/migrator.js';
import { newId } from '../../../src/platform/ids.js';
import { ON_CITUS, openTestPostgres, TEST_DATABASE_URL } from '../../harness.js';

/**
 * Issue 31 item 1, on a real Citus cluster (`npm run test:citus`; skipped elsewhere): a database
 * migrated to an earlier version is distributed by the operator's command, the later migrations then
 * apply on the coordinator (the new tables distributed by the migrator, or by `tally_distribute` in
 * the migration when they have foreign keys to tenant tables), and the command run again changes
 * nothing. One account's statements are router (single-shard) queries.
 */
const skip = ON_CITUS ? false : 'a Citus coordinator: npm run test:citus';

describe('Citus: distribute, then migrate further', { skip }, () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let database: Database;
  const all = readMigrations();
  const upTo = (version: string) => all.filter((m) => m.version <= version);

  before(async () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    database = await openTestPostgres(schema, 2);
  });
  after(async () => {
    await database?.close();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  });

  const kinds = async () =>
    (
      await sql<{ name: string; kind: string; column: string | null }>`
        select c.relname as name, case when p.partmethod = 'h' then 'distributed' when p.repmodel = 't' then 'reference' else 'local' end as kind,
               column_to_column_name(p.logicalrelid, p.partkey) as column
          from pg_dist_partition p join pg_class c on c.oid = p.logicalrelid join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = current_schema() and not c.relispartition`.execute(database.db)
    ).rows;

  test('when a database migrated to 0033 is distributed then more than 40 tables are distributed by account_id, co-located, and running it again does nothing', async () => {
    await migrate(database, upTo('0033'));
    const done = await database.withSession((exec) => distributeOnCitus(exec));
    assert.ok(done.distributed.length > 40, `${done.distributed.length} distributed`);
    const found = await kinds();
    const distributed = found.filter((t) => t.kind === 'distributed');
    assert.equal(distributed.length, done.distributed.length);
    assert.ok(distributed.every((t) => t.column === 'account_id'));
    assert.deepEqual(found.filter((t) => t.kind === 'reference').map((t) => t.name).sort(), [...done.reference].sort());
    const groups = await sql<{ n: number }>`
      select count(distinct p.colocationid)::int as n from pg_dist_partition p join pg_class c on c.oid = p.logicalrelid
        join pg_namespace s on s.oid = c.relnamespace where s.nspname = current_schema() and p.partmethod = 'h'`.execute(database.db);
    assert.equal(groups.rows[0]!.n, 1, 'one co-location group: every account on one shard group');
    assert.deepEqual(await database.withSession((exec) => distributeOnCitus(exec)), { reference: [], distributed: [] });
  });

  test('when the later migrations apply on the coordinator then their new tables are distributed too', async () => {
    const applied = await migrate(database);
    assert.deepEqual(applied, all.filter((m) => m.version > '0033').map((m) => `${m.version}_${m.name}`));
    const found = await kinds();
    assert.equal(found.find((t) => t.name === 'node_boots')?.kind, 'reference');
    // A column a later migration added to a distributed table is on its shards.
    const accountId = newId();
    await sql`insert into accounts (id, name, created_at) values (${accountId}, 'later', now())`.execute(database.db);
    await sql`insert into idempotency_records (account_id, scope, idempotency_key, request_hash, state, created_at, owner_node, owner_epoch)
              values (${accountId}, 'POST /x', 'k', 'h', 'IN_PROGRESS', now(), 'node-a', 1)`.execute(database.db);
    const row = await sql<{ owner_node: string }>`select owner_node from idempotency_records where account_id = ${accountId}`.execute(database.db);
    assert.equal(row.rows[0]!.owner_node, 'node-a');
  });

  test('when a later migration adds a tenant table with a foreign key to a tenant table through tally_distribute then it applies, distributed and enforced', async () => {
    const later = {
      version: '9001',
      name: 'later_notes',
      sql: `create table later_notes (account_id uuid not null references accounts (id) on delete cascade, id uuid not null, customer_id uuid not null, body text not null, primary key (account_id, id));
            select tally_distribute('later_notes');
            alter table later_notes add foreign key (account_id, customer_id) references customers (account_id, id) on delete cascade;`,
    };
    assert.deepEqual(await migrate(database, [...all, later]), ['9001_later_notes']);
    const found = await kinds();
    assert.deepEqual(found.find((t) => t.name === 'later_notes'), { name: 'later_notes', kind: 'distributed', column: 'account_id' });
    const accountId = String((await sql<{ id: string }>`select id from accounts limit 1`.execute(database.db)).rows[0]!.id);
    await assert.rejects(
      sql`insert into later_notes (account_id, id, customer_id, body) values (${accountId}, ${newId()}, ${newId()}, 'no such customer')`.execute(database.db),
      /foreign key/,
    );
  });

  test("when one account's hot statements are explained then each is a router query on one shard", async () => {
    const accountId = String((await sql<{ id: string }>`select id from accounts limit 1`.execute(database.db)).rows[0]!.id);
    const plans = await Promise.all(
      [
        sql`explain select * from usage_counters where account_id = ${accountId} and subscription_id = ${newId()}`,
        sql`explain update credit_pools set balance = balance where account_id = ${accountId} and id = ${newId()}`,
        sql`explain select c.id from customers c join subscriptions s on s.account_id = c.account_id and s.customer_id = c.id where c.account_id = ${accountId}`,
      ].map((q) => q.execute(database.db)),
    );
    for (const plan of plans) {
      const text = plan.rows.map((r) => Object.values(r as Record<string, string>)[0]).join('\n');
      assert.match(text, /Custom Scan \(Citus Adaptive\)[\s\S]*Task Count: 1/, text);
    }
  });
});
