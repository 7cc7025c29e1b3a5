import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { surfaceOf } from '../../../src/platform/http/surfaces.js';
import { startTestService, type TestService } from '../../harness.js';

describe('OpenAPI, Swagger UI and health', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  test('when /v3/api-docs is read then every route is documented with its surface security scheme', async () => {
    const res = await svc.http.get('/v3/api-docs');
    assert.equal(res.status, 200);
    const doc = res.body;
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['AdminJwt', 'ApiKeyBearer', 'ApiKeyHeader']);
    assert.ok(doc.components.schemas.ErrorEnvelope, 'the shared error envelope is a component');
    const routes = svc.app.printRoutes({ commonPrefix: false });
    for (const path of ['/public/v1/login', '/api/v1/account/api-key', '/api/v1/account/change-password', '/healthz', '/readyz']) {
      assert.ok(routes.includes(path.split('/').pop()!), path);
      const item = doc.paths[path];
      assert.ok(item, `${path} is documented`);
      for (const [method, op] of Object.entries<any>(item)) {
        const surface = surfaceOf(path);
        const expected = surface === 'admin' ? [{ AdminJwt: [] }] : surface === 'client' ? [{ ApiKeyHeader: [] }, { ApiKeyBearer: [] }] : undefined;
        assert.deepEqual(op.security, expected, `${method} ${path}`);
        assert.ok(op.responses['200'], `${method} ${path} documents its success`);
        assert.ok(op.responses['400'], `${method} ${path} documents errors`);
      }
    }
    assert.equal(doc.paths['/public/v1/login'].post.requestBody.content['application/json'].schema.required.includes('password'), true);
  });

  test('when the document is generated then every registered route is in it, with a success schema and its security', async () => {
    const doc = (await svc.http.get('/v3/api-docs')).body;
    const routes = svc.app.routeTable.filter((r) => !r.hidden && !r.url.startsWith('/swagger-ui'));
    assert.ok(routes.length > 40, `found ${routes.length} routes`);
    for (const route of routes) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      assert.ok(op, `${route.method} ${path} is documented`);
      assert.ok(op.summary, `${route.method} ${path} has a summary`);
      assert.ok(op.responses['200'] || op.responses['201'], `${route.method} ${path} documents its success`);
      const surface = surfaceOf(route.url);
      if (surface !== 'open') assert.ok(op.security?.length > 0, `${route.method} ${path} names its security scheme`);
    }
  });

  test('when /swagger-ui.html is opened then it leads to the bundled UI', async () => {
    const redirect = await fetch(`${svc.baseUrl}/swagger-ui.html`, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    const ui = await fetch(new URL(redirect.headers.get('location')!, svc.baseUrl));
    assert.equal(ui.status, 200);
    assert.match(await ui.text(), /swagger-ui/i);
    const asset = await fetch(`${svc.baseUrl}/swagger-ui/static/swagger-ui-bundle.js`);
    assert.equal(asset.status, 200, 'assets are served locally, not from a CDN');
  });

  test('when the database answers then /healthz and /readyz are ok', async () => {
    assert.deepEqual((await svc.http.get('/healthz')).body, { status: 'ok' });
    assert.deepEqual((await svc.http.get('/readyz')).body, { status: 'ok' });
  });
});

describe('readiness without a database', () => {
  test('when the database is gone then /readyz answers 503 and /healthz stays ok', async () => {
    const svc = await startTestService();
    try {
      await svc.ctx.database.close();
      const ready = await svc.http.get('/readyz');
      assert.equal(ready.status, 503);
      assert.equal(ready.body.error.code, 'service_unavailable');
      assert.equal((await svc.http.get('/healthz')).status, 200);
    } finally {
      await svc.app.close();
    }
  });
});
