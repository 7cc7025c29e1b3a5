/**
 * The compiled build, started the way the container starts it (NODE_ENV=production, plain node on
 * dist/main.js, PostgreSQL): answers /readyz and /metrics, runs no dev seed, and exits 0 on SIGTERM.
 * Not part of `npm test` (it needs `npm run build` first): `.ci/run` runs it after the build.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Http } from '../harness.js';
import { createScratchDatabase, productionSecrets, SERVER_DIR, startServerProcess, type ServerProcess } from '../server-process.js';

const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const METRICS_TOKEN = 'ci-metrics-token-0123456789abcdef';

describe('compiled server (NODE_ENV=production, PostgreSQL)', () => {
  let server: ServerProcess;
  let http: Http;
  let drop = async () => {};

  before(async () => {
    assert.ok(existsSync(join(SERVER_DIR, 'dist/main.js')), 'dist/main.js exists: run `npm run build` first');
    const scratch = await createScratchDatabase(ADMIN_DATABASE_URL, 'tally_compiled');
    drop = scratch.drop;
    server = await startServerProcess({ NODE_ENV: 'production', DATABASE_URL: scratch.url, DATABASE_POOL_SIZE: '5', ...productionSecrets(), APP_METRICS_TOKEN: METRICS_TOKEN });
    http = new Http(server.url);
  });
  after(async () => {
    await server?.kill();
    await drop();
  });

  test('when started with NODE_ENV=production then plain node runs dist/main.js (no tsx)', () => {
    const argv = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0');
    assert.ok(argv.includes('dist/main.js'), argv.join(' '));
    assert.ok(!argv.some((a) => a.includes('tsx')), argv.join(' '));
  });

  test('when the database answers then /readyz is 200', async () => {
    const res = await http.get('/readyz');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  test('when scraped with the token then /metrics answers in Prometheus text format', async () => {
    assert.equal((await http.get('/metrics')).status, 401, 'APP_METRICS_TOKEN is required');
    const res = await http.get('/metrics', { auth: METRICS_TOKEN });
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(res.text, /^# (HELP|TYPE) /m);
  });

  test('when in production then no dev account was seeded and the API docs are served', async () => {
    const login = await http.post('/public/v1/login', { body: { username: 'admin', password: 'admin' } });
    assert.equal(login.status, 401, login.text);
    assert.equal((await http.get('/v3/api-docs')).status, 200);
    const ui = await fetch(`${server.url}/swagger-ui/`);
    assert.equal(ui.status, 200);
    assert.match(await ui.text(), /swagger-ui/i);
    assert.equal((await fetch(`${server.url}/swagger-ui/static/swagger-ui-bundle.js`)).status, 200, 'the UI static files ship with the build');
  });

  test('when a browser opens the root then the console built by npm ci is served', async () => {
    const page = await fetch(`${server.url}/`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200, 'apps/console/dist/index.html exists (npm ci builds it)');
    const asset = /\/assets\/[\w.-]+\.js/.exec(await page.text())?.[0];
    assert.ok(asset, 'index.html names its script');
    assert.equal((await fetch(`${server.url}${asset}`)).status, 200);
  });

  test('when SIGTERM arrives then the process exits 0', async () => {
    server.signal('SIGTERM');
    assert.equal(await server.exited, 0, server.lines.join('\n'));
  });
});
