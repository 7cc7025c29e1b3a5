import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { withAdvisoryLock } from '../../../src/platform/db/advisory-lock.js';
import type { Database } from '../../../src/platform/db/database.js';
import { migrate } from '../../../src/platform/db/migrator.js';
import { backend, BEHIND_POOLER, openTestDatabase, openTestPostgres } from '../../harness.js';

/**
 * What a transaction pooler (PgBouncer in transaction mode before 1.21) needs of the database layer
 * (ADR 0021): no named prepared statements when DATABASE_PREPARED_STATEMENTS=false, advisory locks
 * that live in a transaction, none left behind. `.ci/run` runs this file through PgBouncer too.
 */
const skip = backend !== 'postgres' ? 'PostgreSQL only (PGlite has no pooler; its dialect keeps named statements)' : false;

describe('connection poolers', { skip }, () => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  const extra: Database[] = [];
  /** Holders of the advisory lock named `key` (withAdvisoryLock's hashing), cluster-wide. */
  const holdersOf = async (db: Database, key: string) =>
    Number((await sql<{ n: number }>`select count(*)::int as n from pg_locks where locktype = 'advisory' and granted
      and ((classid::bigint << 32) | objid::bigint) = hashtextextended(${key}, 0)`.execute(db.db)).rows[0]!.n);

  before(async () => {
    handle = await openTestDatabase();
    await migrate(handle.database);
  });
  after(async () => {
    for (const db of extra) await db.close();
    await handle.database.close();
    await handle.drop();
  });

  test('when prepared statements are off then a repeated parameterised query prepares nothing on the server', async () => {
    const db = await openTestPostgres(handle.schema!, 1, false);
    extra.push(db);
    const prepared = await db.db.connection().execute(async (conn) => {
      for (let i = 0; i < 3; i++) await sql`select ${i}::int + 1 as n`.execute(conn);
      return (await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(conn)).rows[0]!.n;
    });
    assert.equal(prepared, 0);
  });

  test('when prepared statements are on (directly on PostgreSQL) then the repeated query is prepared once per connection', { skip: BEHIND_POOLER ? 'named statements are what a transaction pooler breaks' : false }, async () => {
    const db = await openTestPostgres(handle.schema!, 1, true);
    extra.push(db);
    const prepared = await db.db.connection().execute(async (conn) => {
      for (let i = 0; i < 3; i++) await sql`select ${i}::int + 1 as n`.execute(conn);
      return (await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where name like 'tally_%'`.execute(conn)).rows[0]!.n;
    });
    assert.ok(prepared >= 1);
  });

  test('when migrations have run then no advisory lock is left held', async () => {
    assert.deepEqual(await migrate(handle.database), []);
    // A session lock would stay with an idle connection; a transaction's lock exists only while its
    // transaction runs (other test files may be migrating right now).
    const leaked = await sql<{ n: number }>`select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.classid = 0 and l.objid = 727001 and a.state = 'idle'`.execute(handle.database.db);
    assert.equal(leaked.rows[0]!.n, 0);
  });

  test('when one holder has an advisory lock then a try on another connection is refused, a wait queues, and nothing stays held after', async () => {
    const other = await openTestPostgres(handle.schema!, 4);
    extra.push(other);
    const key = `poolers:${handle.schema}`;
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const holding = withAdvisoryLock(handle.database, key, 'wait', async () => {
      order.push('first in');
      await gate;
      order.push('first out');
      return 'first';
    });
    while (order.length === 0) await new Promise((r) => setTimeout(r, 10));
    assert.equal(await holdersOf(other, key), 1);
    assert.deepEqual(await withAdvisoryLock(other, key, 'try', async () => 'never'), { acquired: false });
    const waiting = withAdvisoryLock(other, key, 'wait', async () => void order.push('second'));
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(order, ['first in'], 'the waiter queues behind the holder');
    release();
    assert.deepEqual(await holding, { acquired: true, value: 'first' });
    await waiting;
    assert.deepEqual(order, ['first in', 'first out', 'second']);
    assert.equal(await holdersOf(handle.database, key), 0);
  });

  test('when the work under a lock fails then the lock is released with its transaction', async () => {
    const key = `poolers-fail:${handle.schema}`;
    await assert.rejects(withAdvisoryLock(handle.database, key, 'wait', async () => Promise.reject(new Error('boom'))), /boom/);
    assert.deepEqual(await withAdvisoryLock(handle.database, key, 'try', async () => 'again'), { acquired: true, value: 'again' });
  });
});
