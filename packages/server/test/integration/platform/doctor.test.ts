import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openDatabase, type DatabaseOptions } from '../../../src/platform/db/database.js';
import { migrate, readMigrations } from '../../../src/platform/db/migrator.js';
import { TEST_DATABASE_URL, withDatabaseName } from '../../harness.js';
import { createScratchDatabase, productionSecrets, SERVER_DIR } from '../../server-process.js';

/** The doctor script from source (`npm run doctor` runs the compiled one with NODE_ENV=production), with only `env` configured. */
function doctor(env: Record<string, string>) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['NODE_TEST_CONTEXT', 'DATABASE_URL', 'DATA_DIR', 'JWT_SECRET', 'APP_SECRETS_KEY']) delete childEnv[name];
  Object.assign(childEnv, { NODE_ENV: 'test' }, env);
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/scripts/doctor.ts'], { cwd: SERVER_DIR, env: childEnv, encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

const problemsOf = (out: string) => out.split('\n').filter((l) => l.startsWith('  FAIL  ')).map((l) => l.slice(8));

describe(`tally doctor (${TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let good: Record<string, string>;
  let options: DatabaseOptions;
  let cleanup = async () => {};

  before(async () => {
    if (TEST_DATABASE_URL) {
      const scratch = await createScratchDatabase(TEST_DATABASE_URL, 'tally_doctor');
      cleanup = scratch.drop;
      good = { ...productionSecrets(), DATABASE_URL: scratch.url };
      // Behind the CI's transaction pooler the LISTEN session goes to PostgreSQL itself, as an operator's would.
      const direct = process.env.TEST_DATABASE_LISTEN_URL;
      if (direct) good.DATABASE_LISTEN_URL = withDatabaseName(direct, new URL(scratch.url).pathname.slice(1));
      options = { kind: 'postgres', url: scratch.url };
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), 'tally-doctor-'));
      cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
      good = { ...productionSecrets(), DATA_DIR: dataDir };
      options = { kind: 'pglite', dataDir };
    }
  });
  after(() => cleanup());

  const withDatabase = async (fn: (exec: (sql: string) => Promise<unknown>) => Promise<unknown>) => {
    const database = await openDatabase(options);
    try {
      await database.withSession(fn);
    } finally {
      await database.close();
    }
  };

  test('when the database is new and empty then doctor passes: the first start creates (PGlite) and migrates it', async () => {
    const run = doctor({ ...good, NODE_ENV: 'production' });
    assert.equal(run.status, 0, run.out);
    assert.match(
      run.out,
      TEST_DATABASE_URL
        ? new RegExp(`note {2}migrations: a new, empty database; the server applies all ${readMigrations().length} when it first starts`)
        : /note {2}embedded database: none yet in .*; the server creates and migrates it at first start/,
    );
  });

  test('when the configuration is good and the database migrated then doctor passes every check and exits 0', async () => {
    const database = await openDatabase(options);
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    const run = doctor({ ...good, NODE_ENV: 'production' });
    assert.equal(run.status, 0, run.out);
    assert.deepEqual(problemsOf(run.out), []);
    assert.match(run.out, /ok {4}configuration: every variable parses/);
    assert.match(run.out, /ok {4}JWT_SECRET: set, 48 characters/);
    assert.match(run.out, /ok {4}APP_SECRETS_KEY: set, 48 characters/);
    assert.match(run.out, /ok {4}outbound URLs: \d+ well-formed \(APP_STRIPE_API_BASE, .*APP_SPEND_ANTHROPIC_BASE_URL/);
    assert.match(run.out, TEST_DATABASE_URL ? /ok {4}database: PostgreSQL \d+/ : /ok {4}database: embedded PGlite in .* opens/);
    assert.match(run.out, new RegExp(`ok {4}migrations: current \\(${readMigrations().length} applied\\)`));
    assert.match(run.out, /ok {4}API key environment: live \(new keys are sk_live_…, ck_live_…; the default for NODE_ENV=production\)/);
    assert.match(run.out, /No problems found\./);
    for (const secret of [good.JWT_SECRET!, good.APP_SECRETS_KEY!]) assert.ok(!run.out.includes(secret), 'no secret is printed');
  });

  test('when secrets, URLs and migrations are wrong then doctor lists every problem at once and exits 1', async () => {
    await withDatabase(async (exec) => {
      await exec(`delete from schema_migrations where version = '${readMigrations().at(-1)!.version}'`);
      await exec(`insert into schema_migrations (version, name) values ('9999', 'from_the_future')`);
    });
    const run = doctor({
      ...good,
      NODE_ENV: 'production',
      JWT_SECRET: 'short',
      APP_SECRETS_KEY: 'ab'.repeat(20),
      APP_STRIPE_API_BASE: 'ftp://stripe.example',
      APP_SPEND_OPENAI_BASE_URL: 'http://openai.internal',
      APP_CACHE_TTL_MS: 'soon',
    });
    assert.equal(run.status, 1, run.out);
    const problems = problemsOf(run.out);
    const expected = [
      /^JWT_SECRET: must be at least 32 characters$/,
      /^APP_STRIPE_API_BASE: must be an http\(s\) origin/,
      /^APP_CACHE_TTL_MS: /,
      /^APP_SECRETS_KEY: fewer than 10 different characters/,
      /^APP_SPEND_OPENAI_BASE_URL=http:\/\/openai.internal: plain http in production/,
      /^migrations: 1 pending \(\d{4}_\w+\)/,
      /^migrations: the database has 1 this build does not know \(9999_from_the_future\)/,
    ];
    for (const pattern of expected) assert.ok(problems.some((p) => pattern.test(p)), `${pattern} in\n${run.out}`);
    assert.equal(problems.length, expected.length, run.out);
    assert.match(run.out, new RegExp(`\\n${expected.length} problems:\\n`));
  });

  test('when the two secrets are the same value then doctor refuses the second', () => {
    const same = good.JWT_SECRET!;
    const run = doctor({ ...good, APP_SECRETS_KEY: same });
    assert.ok(problemsOf(run.out).includes('APP_SECRETS_KEY: the same value as JWT_SECRET; each secret must be its own random value'), run.out);
  });

  test('when production is set to issue test keys then doctor says which key environment is in force and why', () => {
    const run = doctor({ ...productionSecrets(), NODE_ENV: 'production', APP_API_KEY_ENVIRONMENT: 'test', DATABASE_URL: 'postgres://tally@127.0.0.1:1/tally' });
    assert.match(run.out, /note {2}API key environment: test \(new keys are sk_test_…, ck_test_…; APP_API_KEY_ENVIRONMENT\): production is issuing test keys/);
    const dev = doctor({ ...productionSecrets(), DATABASE_URL: 'postgres://tally@127.0.0.1:1/tally' });
    assert.match(dev.out, /ok {4}API key environment: test \(new keys are sk_test_…, ck_test_…; the default for NODE_ENV=test\)/);
  });

  test('when the database is unreachable then doctor says so, without printing its password', () => {
    const run = doctor({ ...productionSecrets(), DATABASE_URL: 'postgres://tally:hunter2-secret@127.0.0.1:1/tally' });
    assert.equal(run.status, 1, run.out);
    assert.ok(problemsOf(run.out).some((p) => p.startsWith('database: PostgreSQL at 127.0.0.1:1/tally unreachable: ')), run.out);
    assert.ok(!run.out.includes('hunter2'), run.out);
  });

  test('when the cache LISTEN database is unreachable then doctor names DATABASE_LISTEN_URL', { skip: !TEST_DATABASE_URL && 'PostgreSQL only' }, () => {
    const run = doctor({ ...good, DATABASE_LISTEN_URL: 'postgres://tally@127.0.0.1:1/tally' });
    assert.ok(problemsOf(run.out).some((p) => p.startsWith('DATABASE_LISTEN_URL: PostgreSQL at 127.0.0.1:1/tally unreachable: ')), run.out);
  });

  test('when the cache LISTEN session is on another database than DATABASE_URL then doctor says its notifications are not heard', { skip: !TEST_DATABASE_URL && 'PostgreSQL only' }, () => {
    const elsewhere = new URL(good.DATABASE_URL!);
    elsewhere.pathname = '/postgres';
    const run = doctor({ ...good, DATABASE_LISTEN_URL: elsewhere.toString() });
    assert.equal(run.status, 1, run.out);
    assert.ok(problemsOf(run.out).some((p) => p.startsWith('cache notifications: a NOTIFY sent through DATABASE_URL is not heard on DATABASE_LISTEN_URL')), run.out);
  });

  test('when DATABASE_URL is set without secrets then doctor lists both as required', () => {
    const run = doctor({ DATABASE_URL: 'postgres://tally@127.0.0.1:1/tally' });
    const problems = problemsOf(run.out);
    assert.ok(problems.includes('JWT_SECRET: required when DATABASE_URL is set'), run.out);
    assert.ok(problems.includes('APP_SECRETS_KEY: required when DATABASE_URL is set'), run.out);
  });

  test('when a running Tally process holds DATA_DIR then doctor does not open the embedded database and leaves the lock alone', { skip: !!TEST_DATABASE_URL && 'embedded database only' }, () => {
    const dataDir = good.DATA_DIR!;
    const lock = join(dataDir, 'tally.lock');
    writeFileSync(lock, String(process.pid)); // this test process stands in for the server
    try {
      const run = doctor({ ...good });
      assert.equal(run.status, 0, run.out);
      assert.match(run.out, /embedded database in .* is open in a running Tally process: not opened/);
      assert.ok(existsSync(lock) && readFileSync(lock, 'utf8') === String(process.pid), 'the lock is untouched');
    } finally {
      rmSync(lock, { force: true });
    }
  });
});
