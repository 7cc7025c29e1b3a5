import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openDatabase } from '../../../src/platform/db/database.js';
import { hashKey } from '../../../src/platform/security/api-keys.js';
import { backend } from '../../harness.js';

const SERVER_DIR = new URL('../../../', import.meta.url).pathname;
const REPO_ROOT = new URL('../../../../../', import.meta.url).pathname;

function runScript(script: string, args: string[], env: Record<string, string>, input = '') {
  return spawnSync(process.execPath, ['--import', 'tsx', `src/scripts/${script}.ts`, ...args], {
    cwd: SERVER_DIR,
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', NODE_ENV: 'development', TALLY_BOOTSTRAP_PASSWORD: '', APP_API_KEY_ENVIRONMENT: '', ...env },
    input,
    encoding: 'utf8',
    timeout: 240_000, // a child process on the embedded database; a loaded CI box took over 60 s
  });
}

async function keyExists(dataDir: string, key: string) {
  const database = await openDatabase({ kind: 'pglite', dataDir });
  try {
    const row = await database.db.selectFrom('api_keys').select('kind').where('key_hash', '=', hashKey(key)).executeTakeFirst();
    return row?.kind;
  } finally {
    await database.close();
  }
}

// The scripts run on an embedded database whatever the run's backend: the PGlite run covers them.
describe('operator scripts (embedded database)', { skip: backend === 'postgres' && 'embedded database only (the PGlite run covers it)' }, () => {
  test('when bootstrap runs then it creates the account and prints its tenant key once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-bootstrap-'));
    const run = runScript('bootstrap', ['--username', 'ops', '--password', 'long enough pw', '--account-name', 'Acme'], { DATA_DIR: dir });
    assert.equal(run.status, 0, run.stderr);
    const key = /Tenant API key \(shown once, store it now\): (sk_test_[0-9a-f]{32})/.exec(run.stdout)?.[1];
    assert.ok(key, run.stdout);
    assert.equal(await keyExists(dir, key), 'TENANT');
    const again = runScript('bootstrap', ['--username', 'OPS', '--password', 'long enough pw'], { DATA_DIR: dir });
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already exists/);
  });

  test('when the README command `npm run bootstrap -- --username U --password P` runs from the repository root then it creates the account', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-bootstrap-root-'));
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const run = spawnSync(npm, ['run', 'bootstrap', '--', '--username', 'root-ops', '--password', 'long enough pw'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'silent', NODE_ENV: 'development' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /Owner login: root-ops \(role OWNER/);
    const key = /Tenant API key \(shown once, store it now\): (sk_test_[0-9a-f]{32})/.exec(run.stdout)?.[1];
    assert.ok(key, run.stdout);
    assert.equal(await keyExists(dir, key), 'TENANT');
  });

  test('when bootstrap runs without --password then it reads the password from TALLY_BOOTSTRAP_PASSWORD or a piped stdin, never the command line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-bootstrap-stdin-'));
    const piped = runScript('bootstrap', ['--username', 'piped'], { DATA_DIR: dir }, 'a piped passphrase\nignored second line\n');
    assert.equal(piped.status, 0, piped.stderr);
    const fromEnv = runScript('bootstrap', ['--username', 'env-ops'], { DATA_DIR: dir, TALLY_BOOTSTRAP_PASSWORD: 'from the environment' });
    assert.equal(fromEnv.status, 0, fromEnv.stderr);
    const database = await openDatabase({ kind: 'pglite', dataDir: dir });
    try {
      const users = await database.db.selectFrom('users').select(['username', 'password_hash', 'role']).orderBy('username').execute();
      assert.deepEqual(users.map((u) => u.username), ['env-ops', 'piped']);
      assert.deepEqual(users.map((u) => u.role), ['OWNER', 'OWNER'], 'bootstrap creates the owner');
    } finally {
      await database.close();
    }
    const empty = runScript('bootstrap', ['--username', 'nobody'], { DATA_DIR: dir }, '');
    assert.equal(empty.status, 2);
    assert.match(empty.stderr, /a password is required/);
    const short = runScript('bootstrap', ['--username', 'shorty'], { DATA_DIR: dir }, 'short\n');
    assert.equal(short.status, 2);
    assert.match(short.stderr, /at least 8 characters/);
  });

  test('when bootstrap runs with NODE_ENV=production then the tenant key is live, unless APP_API_KEY_ENVIRONMENT=test', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-bootstrap-live-'));
    const live = runScript('bootstrap', ['--username', 'prod-ops', '--password', 'long enough pw'], { DATA_DIR: dir, NODE_ENV: 'production' });
    assert.equal(live.status, 0, live.stderr);
    assert.match(live.stdout, /Tenant API key \(shown once, store it now\): sk_live_[0-9a-f]{32}\n/);
    const test = runScript('bootstrap', ['--username', 'staging-ops', '--password', 'long enough pw'], { DATA_DIR: dir, NODE_ENV: 'production', APP_API_KEY_ENVIRONMENT: 'test' });
    assert.equal(test.status, 0, test.stderr);
    assert.match(test.stdout, /: sk_test_[0-9a-f]{32}\n/);
  });

  test('when bootstrap lacks arguments then it says which and exits 2', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-bootstrap-'));
    const run = runScript('bootstrap', ['--password', 'short'], { DATA_DIR: dir });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /--username is required/);
    assert.match(run.stderr, /--password must be at least 8 characters/);
  });

  test('when seed runs on an empty database then the dev account exists with the configured key, and a rerun changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-seed-'));
    const key = 'sk_test_0123456789abcdef0123456789abcdef';
    const run = runScript('seed', [], { DATA_DIR: dir, DEV_SEED_API_KEY: key });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /username 'admin'/);
    assert.equal(await keyExists(dir, key), 'TENANT');
    const again = runScript('seed', [], { DATA_DIR: dir });
    assert.equal(again.status, 0);
    assert.match(again.stdout, /already has an account/);
  });
});
