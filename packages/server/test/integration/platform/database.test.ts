import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { DataDirLockedError, lockDataDir } from '../../../src/platform/db/data-dir-lock.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { migrate, readMigrations } from '../../../src/platform/db/migrator.js';
import { withTransaction } from '../../../src/platform/db/transaction.js';
import { backend, openTestDatabase, ON_CITUS } from '../../harness.js';

const SERVER_DIR = new URL('../../../', import.meta.url).pathname;

describe(`database (${backend})`, () => {
  let handle: Awaited<ReturnType<typeof openTestDatabase>>;
  before(async () => {
    handle = await openTestDatabase();
    await migrate(handle.database);
  });
  after(async () => {
    await handle.database.close();
    await handle.drop();
  });

  test('when migrations run twice then the second run applies nothing', async () => {
    assert.deepEqual(await migrate(handle.database), []);
    const rows = await handle.database.db.selectFrom('schema_migrations').select('version').orderBy('version').execute();
    assert.deepEqual(rows.map((r) => r.version), readMigrations().map((m) => m.version));
  });

  test('when values come back then both drivers give the same JS types', async () => {
    const { rows } = await sql<Record<string, unknown>>`select
        12345678901234567890.123456789::numeric as amount,
        9007199254740993::int8 as big,
        count(*) as n,
        7::int4 as small,
        '2026-01-31T10:00:00Z'::timestamptz as at,
        '2026-02-28'::date as day,
        '{"a": [1, 2]}'::jsonb as doc,
        array['read', 'purchase']::text[] as scopes,
        true as flag
      from (select 1) one`.execute(handle.database.db);
    const row = rows[0]!;
    assert.equal(row.amount, '12345678901234567890.123456789');
    assert.equal(row.big, '9007199254740993');
    assert.equal(row.n, '1');
    assert.equal(row.small, 7);
    assert.ok(row.at instanceof Date);
    assert.equal((row.at as Date).toISOString(), '2026-01-31T10:00:00.000Z');
    assert.equal(row.day, '2026-02-28');
    assert.deepEqual(row.doc, { a: [1, 2] });
    assert.deepEqual(row.scopes, ['read', 'purchase']);
    assert.equal(row.flag, true);
  });

  // The test cluster of the shared citus-cluster script runs with synchronous_commit = off.
  test('when anything commits then it waits for the WAL flush (no relaxed pool: ADR 0013)', { skip: ON_CITUS && 'the Citus test cluster is configured with synchronous_commit = off' }, async () => {
    const row = (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(handle.database.db)).rows[0]!;
    assert.equal(row.synchronous_commit, 'on', 'money, credits and audit rows commit durably');
  });

  test('when a transaction throws then nothing it wrote remains', async () => {
    const db = handle.database.db;
    await assert.rejects(
      withTransaction(db, async (tx) => {
        await tx.insertInto('accounts').values({ id: '00000000-0000-7000-8000-000000000001', name: 'gone' }).execute();
        throw new Error('abort');
      }),
    );
    const found = await db.selectFrom('accounts').select('id').where('name', '=', 'gone').execute();
    assert.equal(found.length, 0);
  });
});

describe('embedded data directory lock', { skip: backend === 'postgres' && 'embedded database only (the PGlite run covers it)' }, () => {
  test('when the directory is locked by this process then a second lock is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-lock-'));
    const release = lockDataDir(dir);
    try {
      assert.throws(() => lockDataDir(dir), DataDirLockedError);
    } finally {
      release();
    }
    lockDataDir(dir)();
  });

  test('when the lock file names a dead process then the lock is taken over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-lock-'));
    writeFileSync(join(dir, 'tally.lock'), '999999999');
    const release = lockDataDir(dir);
    assert.equal(readFileSync(join(dir, 'tally.lock'), 'utf8'), String(process.pid));
    release();
  });

  test('when a second service starts on a data directory in use then it refuses with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-data-'));
    const database = await openDatabase({ kind: 'pglite', dataDir: dir });
    try {
      const child = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: SERVER_DIR,
        env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', PORT: '0', LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(child.status, 1, child.stderr);
      assert.match(child.stderr, /in use by another Tally process/);
    } finally {
      await database.close();
    }
  });
});
