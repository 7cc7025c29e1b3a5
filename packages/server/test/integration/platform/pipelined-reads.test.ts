import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../../src/platform/db/database.js';
import { backend, openTestDatabase, openTestPostgres, PREPARED_STATEMENTS } from '../../harness.js';

/**
 * The node's pipelined reads (ADR 0045): single statements outside transactions, over two shared
 * connections in pipeline mode, the statements of one event-loop turn sent in one write.
 */
describe(`pipelined reads (${backend})`, () => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  let database: Database;
  before(async () => {
    handle = await openTestDatabase();
    database = handle.database;
  });
  after(async () => {
    await database.close();
    await handle.drop();
  });

  const pipelined = backend === 'postgres' && PREPARED_STATEMENTS;
  const number = (n: number) => sql<{ n: number }>`select ${n}::int as n`.execute(database.reads).then((r) => r.rows[0]!.n);
  /** The backend pid that answers each of `n` reads started together. */
  const backendPids = (n: number) =>
    Promise.all(Array.from({ length: n }, () => sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database.reads).then((r) => r.rows[0]!.pid)));

  test('when the database is PGlite or behind a transaction pooler then reads are the pool itself', { skip: pipelined }, () => {
    assert.equal(database.reads, database.db);
  });

  test('when 300 reads run at once then each gets its own answer', async () => {
    const wanted = Array.from({ length: 300 }, (_, i) => i * 7);
    assert.deepEqual(await Promise.all(wanted.map(number)), wanted);
  });

  test('when one read of a burst fails then only that read fails and the rest answer', async () => {
    const divide = (by: number) => sql<{ q: number }>`select (84 / ${by}::int)::int as q`.execute(database.reads).then((r) => r.rows[0]!.q);
    const results = await Promise.allSettled([2, 4, 0, 7, 0, 12].map(divide));
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as { code?: string }).code)),
      [42, 21, '22012', 12, '22012', 7],
    );
    assert.equal(await number(5), 5);
  });

  test('when a row is committed on the pool then the next read sees it', async () => {
    await sql`create table if not exists pipeline_probe (id int primary key, v text not null)`.execute(database.db);
    for (let i = 1; i <= 20; i += 1) {
      await sql`insert into pipeline_probe (id, v) values (${i}, ${`v${i}`})`.execute(database.db);
      const { rows } = await sql<{ v: string }>`select v from pipeline_probe where id = ${i}`.execute(database.reads);
      assert.deepEqual(rows, [{ v: `v${i}` }]);
    }
  });

  test('when a transaction is opened on the reads then it is refused before any statement runs', { skip: !pipelined }, async () => {
    await assert.rejects(
      database.reads.transaction().execute(async (tx) => sql`select 1`.execute(tx)),
      /single statements/,
    );
    assert.equal(await number(3), 3);
  });

  test('when 50 reads start in one turn then they share the two connections and go out in a write per connection', { skip: !pipelined }, async () => {
    await Promise.all([number(1), number(2)]); // both connections open
    const writes = { n: 0 };
    const proto = Socket.prototype as unknown as { _writeGeneric: (...args: unknown[]) => unknown };
    const original = proto._writeGeneric;
    proto._writeGeneric = function counted(this: Socket, ...args: unknown[]) {
      writes.n += 1;
      return original.apply(this, args);
    };
    let pids: number[];
    try {
      pids = await backendPids(50);
    } finally {
      proto._writeGeneric = original;
    }
    assert.equal(new Set(pids).size, 2);
    assert.ok(writes.n <= 2, `${writes.n} socket writes for 50 statements`);
  });

  test('when the server ends a pipelined connection then reads connect again and the process stays up', { skip: !pipelined }, async () => {
    const pids = new Set(await backendPids(4));
    const admin = await openTestPostgres(handle.schema!, 1);
    try {
      for (const pid of pids) await sql`select pg_terminate_backend(${pid}::int)`.execute(admin.db);
    } finally {
      await admin.close();
    }
    const started = Date.now();
    let answered = false;
    while (!answered && Date.now() - started < 5_000) {
      const got = await Promise.allSettled([number(1), number(2)]);
      answered = got.every((r) => r.status === 'fulfilled');
      if (!answered) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(answered, 'reads did not recover within 5 s');
    const now = await backendPids(4);
    assert.ok(now.every((pid) => !pids.has(pid)), 'a terminated backend answered');
  });
});
