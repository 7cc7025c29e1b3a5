import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { apiKeyEnvironmentOf, ConfigError, dataDirOf, loadConfig } from './config.js';

test('when DATABASE_URL is set without secrets and PORT is wrong then loading fails listing every problem', () => {
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://x@localhost/db', PORT: 'eighty' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.problems.length, 3);
      assert.match(err.problems[0]!, /^PORT: /);
      assert.deepEqual(err.problems.slice(1), [
        'JWT_SECRET: required when DATABASE_URL is set',
        'APP_SECRETS_KEY: required when DATABASE_URL is set',
      ]);
      return true;
    },
  );
});

test('when the embedded database is used without secrets then they are generated once and kept in DATA_DIR', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tally-config-'));
  const first = loadConfig({ DATA_DIR: dir });
  assert.equal(first.warnings.length, 2);
  assert.equal(readFileSync(join(dir, 'jwt-secret'), 'utf8'), first.jwtSecret);
  const second = loadConfig({ DATA_DIR: dir });
  assert.equal(second.jwtSecret, first.jwtSecret);
  assert.equal(second.secretsKey, first.secretsKey);
  assert.equal(second.warnings.length, 0);
});

test('when nothing is set then the documented defaults apply', () => {
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'tally-config-')) });
  assert.equal(config.port, 8080);
  assert.equal(config.host, '0.0.0.0');
  assert.deepEqual(config.modules, { monetization: true, build: true });
  assert.equal(config.mcpAdminToolsEnabled, false);
  assert.deepEqual(config.devSeed, { username: 'admin', password: 'admin', apiKey: 'sk_test_00000000000000000000000000000000' });
  assert.equal(config.database.kind, 'pglite');
});

test('when a flag is not a boolean then it is reported by name', () => {
  assert.throws(() => loadConfig({ APP_MODULES_BUILD_ENABLED: 'maybe', DATA_DIR: tmpdir() }), /APP_MODULES_BUILD_ENABLED/);
});

test('when APP_SECRETS_KEY_PREVIOUS lists keys then they are kept in order, and a short one is refused by name', () => {
  const old1 = 'previous-key-one-0123456789abcdef0123';
  const old2 = 'previous-key-two-0123456789abcdef0123';
  const dir = mkdtempSync(join(tmpdir(), 'tally-config-'));
  assert.deepEqual(loadConfig({ DATA_DIR: dir, APP_SECRETS_KEY_PREVIOUS: ` ${old1}, ${old2},` }).secretsKeyPrevious, [old1, old2]);
  assert.deepEqual(loadConfig({ DATA_DIR: dir }).secretsKeyPrevious, []);
  assert.throws(() => loadConfig({ DATA_DIR: dir, APP_SECRETS_KEY_PREVIOUS: `${old1},short` }), /APP_SECRETS_KEY_PREVIOUS: each comma-separated key/);
});

test('when APP_STRIPE_API_BASE points at a local fake then the SDK origin is split into host, port and protocol', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-config-'));
  const base = { DATA_DIR: dataDir };
  assert.deepEqual(loadConfig(base).stripe.api, { host: 'api.stripe.com', port: 443, protocol: 'https' });
  assert.deepEqual(loadConfig({ ...base, APP_STRIPE_API_BASE: 'http://127.0.0.1:12111/' }).stripe.api, { host: '127.0.0.1', port: 12111, protocol: 'http' });
  assert.throws(() => loadConfig({ ...base, APP_STRIPE_API_BASE: 'ftp://stripe.example/v1' }), (err: unknown) => err instanceof ConfigError && /^APP_STRIPE_API_BASE: /.test(err.problems[0]!));
});

test('when NODE_ENV=production then keys are live unless APP_API_KEY_ENVIRONMENT=test says otherwise', () => {
  assert.equal(apiKeyEnvironmentOf({}), 'test');
  assert.equal(apiKeyEnvironmentOf({ NODE_ENV: 'development' }), 'test');
  assert.equal(apiKeyEnvironmentOf({ NODE_ENV: 'production' }), 'live');
  assert.equal(apiKeyEnvironmentOf({ NODE_ENV: 'production', APP_API_KEY_ENVIRONMENT: 'test' }), 'test');
  assert.equal(apiKeyEnvironmentOf({ NODE_ENV: 'development', APP_API_KEY_ENVIRONMENT: 'live' }), 'live');
  const dir = mkdtempSync(join(tmpdir(), 'tally-config-'));
  assert.equal(loadConfig({ DATA_DIR: dir, NODE_ENV: 'production' }).apiKeyEnvironment, 'live');
  assert.equal(loadConfig({ DATA_DIR: dir, APP_API_KEY_ENVIRONMENT: '' }).apiKeyEnvironment, 'test', 'empty means unset');
  assert.throws(() => loadConfig({ DATA_DIR: dir, APP_API_KEY_ENVIRONMENT: 'prod' }), /APP_API_KEY_ENVIRONMENT/);
});

test('when DATA_DIR is relative then it is taken from the directory npm was run in (INIT_CWD), else the process directory', () => {
  assert.equal(dataDirOf({ INIT_CWD: '/srv/tally' }), '/srv/tally/data');
  assert.equal(dataDirOf({ INIT_CWD: '/srv/tally', DATA_DIR: 'state/db' }), '/srv/tally/state/db');
  assert.equal(dataDirOf({ INIT_CWD: '/srv/tally', DATA_DIR: '/var/lib/tally' }), '/var/lib/tally');
  assert.equal(dataDirOf({}), join(process.cwd(), 'data'));
});
