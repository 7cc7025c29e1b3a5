import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestService, type TestService } from '../../harness.js';

const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('console served at / (ADR 0019)', () => {
  let svc: TestService;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tally-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Tally console</title><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log("tally")');
    svc = await startTestService({ consoleDir: dir });
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('when / is opened then index.html is served and never cached', async () => {
    const res = await svc.http.get('/', { headers: HTML });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /text\/html/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.match(res.text, /Tally console/);
  });

  test('when a hashed asset is fetched then it is cached for a year as immutable', async () => {
    const res = await svc.http.get('/assets/index-AbC123.js');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /javascript/);
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const missing = await svc.http.get('/assets/nope-123.js', { headers: HTML });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'not_found');
  });

  test('when a console page is deep-linked then the history fallback serves index.html', async () => {
    for (const path of ['/customers', '/customers/0190f0c2-0000-7000-8000-000000000000', '/catalog/plans?status=DRAFT']) {
      const res = await svc.http.get(path, { headers: HTML });
      assert.equal(res.status, 200, path);
      assert.match(res.text, /Tally console/, path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
    }
  });

  test('when an unknown API path is asked for HTML then it keeps its 404 envelope', async () => {
    for (const path of ['/api/v1/nope', '/api/v1/client/nope', '/v3/nope', '/public/v1/nope', '/healthz/x', '/metrics/x', '/mcp/x', '/.well-known/x', '/pricing.json']) {
      const res = await svc.http.get(path, { headers: HTML });
      assert.ok([401, 404].includes(res.status), `${path} → ${res.status}`);
      assert.equal(res.body?.success, false, path);
    }
  });

  test('when a page is asked without accepting HTML, or with another method, then the envelope answers', async () => {
    const json = await svc.http.get('/customers', { headers: { accept: 'application/json' } });
    assert.equal(json.status, 404);
    assert.equal(json.body.error.code, 'not_found');
    const post = await svc.http.post('/customers', { headers: HTML, body: {} });
    assert.equal(post.status, 404);
  });

  test('when the console reads its settings then it learns the switched-on modules and the dev login', async () => {
    const res = await svc.http.get('/public/v1/console');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { modules: { monetization: true, build: true }, devLogin: true });
  });
});

describe('console not built', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ consoleDir: join(tmpdir(), 'tally-console-missing-build'), env: { APP_MODULES_BUILD_ENABLED: 'false' } });
  });
  after(() => svc.close());

  test('when / is opened without a build then a page says how to build it, and the API still answers', async () => {
    const res = await svc.http.get('/', { headers: HTML });
    assert.equal(res.status, 503);
    assert.match(res.text, /npm run build -w @tally\/console/);
    assert.equal((await svc.http.get('/customers', { headers: HTML })).status, 503);
    assert.equal((await svc.http.get('/healthz')).status, 200);
    assert.deepEqual((await svc.http.get('/public/v1/console')).body.data.modules, { monetization: true, build: false });
  });
});
