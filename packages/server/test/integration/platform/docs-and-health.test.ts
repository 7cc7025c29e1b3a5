import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { surfaceOf } from '../../../src/platform/http/surfaces.js';
import { startTestService, type TestService } from '../../harness.js';

/** A GET with headers fetch will not send as given (Host), over node:http. */
function rawGet(baseUrl: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: any; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let body: any = null;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the test reads text
        }
        resolve({ status: res.statusCode ?? 0, body, text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

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
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['AdminJwt', 'CustomerKey', 'CustomerKeyHeader', 'TenantKey', 'TenantKeyHeader']);
    assert.ok(doc.components.schemas.ErrorEnvelope, 'the shared error envelope is a component');
    const routes = svc.app.printRoutes({ commonPrefix: false });
    for (const path of ['/public/v1/login', '/api/v1/account/api-key', '/api/v1/account/change-password', '/healthz', '/readyz']) {
      assert.ok(routes.includes(path.split('/').pop()!), path);
      const item = doc.paths[path];
      assert.ok(item, `${path} is documented`);
      for (const [method, op] of Object.entries<any>(item)) {
        const surface = surfaceOf(path);
        const expected = surface === 'admin' ? [{ AdminJwt: [] }] : surface === 'client' ? [{ TenantKey: [] }, { TenantKeyHeader: [] }] : [];
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
    assert.ok(doc.paths['/public/v1/login'].post.responses['429'], 'login documents its throttle (429)');
    for (const route of routes) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      assert.ok(op, `${route.method} ${path} is documented`);
      assert.ok(op.summary, `${route.method} ${path} has a summary`);
      assert.ok(op.responses['200'] || op.responses['201'] || op.responses['202'], `${route.method} ${path} documents its success`);
      if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
        assert.ok(op.responses['413'] && op.responses['415'], `${route.method} ${path} documents 413 and 415 for its body`);
      }
      const surface = surfaceOf(route.url);
      if (surface !== 'open') assert.ok(op.security?.length > 0, `${route.method} ${path} names its security scheme`);
      else assert.deepEqual(op.security, [], `${route.method} ${path} says it needs no credential`);
    }
  });

  test('when the document is generated then every operation has a unique camelCase operationId', async () => {
    const doc = (await svc.http.get('/v3/api-docs')).body;
    const seen = new Map<string, string>();
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.match(op.operationId ?? '', /^[a-z][a-zA-Z]+$/, `${where} has a camelCase operationId`);
        assert.equal(seen.get(op.operationId), undefined, `${where} reuses the operationId of ${seen.get(op.operationId)}`);
        seen.set(op.operationId, where);
      }
    }
    assert.ok(seen.size > 40, `found ${seen.size} operations`);
    for (const [id, where] of [['createCustomer', 'POST /api/v1/client/customers'], ['ingestEvent', 'POST /api/v1/client/events'], ['checkEntitlement', 'GET /api/v1/client/entitlements/{ref}/{featureKey}']]) {
      assert.equal(seen.get(id!), where, `${id} names ${where}`);
    }
  });

  test('when the document is generated then it names its server and every schema component is referenced', async () => {
    const doc = (await svc.http.get('/v3/api-docs')).body;
    assert.deepEqual(doc.servers, [{ url: svc.baseUrl }], 'without APP_PUBLIC_BASE_URL: the origin the reader called');
    const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: undefined } });
    const schemas = doc.components.schemas as Record<string, unknown>;
    const referenced = new Set<string>();
    const walk = (t: string) => {
      for (const m of t.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
        if (!referenced.has(m[1]!)) {
          referenced.add(m[1]!);
          walk(JSON.stringify(schemas[m[1]!]));
        }
      }
    };
    walk(text);
    assert.deepEqual(Object.keys(schemas).filter((name) => !referenced.has(name)), [], 'no unused component');
    assert.ok(!Object.keys(schemas).some((name) => name.endsWith('Input')), 'no unused *Input variants');
    assert.doesNotMatch(JSON.stringify(doc), /"anyOf":\[\{\},/, 'no anyOf with an empty schema (dates are string/date-time)');
    assert.deepEqual(doc.components.schemas.Invoice.properties.paidAt, { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] });
  });

  test('when a client reads the request schemas then they state the rules validation enforces', async () => {
    const doc = (await svc.http.get('/v3/api-docs')).body;
    const body = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
    const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters.find((p: any) => p.name === name).schema;
    const customer = body('/api/v1/client/customers', 'post');
    assert.equal(customer.properties.email.format, 'email');
    assert.deepEqual(customer.required, ['email']);
    assert.deepEqual(customer.anyOf, [{ required: ['customerReferenceId'] }, { required: ['externalClientCustomerId'] }]);
    assert.equal(body('/api/v1/client/customers/{ref}', 'patch').properties.email.format, 'email');
    assert.deepEqual(body('/api/v1/client/subscriptions', 'post').anyOf, [{ required: ['planId'] }, { required: ['planKey'] }]);
    for (const [path, method] of [['/api/v1/client/events', 'post'], ['/api/v1/client/entitlements', 'post'], ['/api/v1/client/subscriptions', 'post']] as const) {
      assert.match(body(path, method).properties.customerReferenceId.description, /Required with a tenant key/, `${path} field`);
      assert.match(doc.paths[path][method].description, /customerReferenceId is required with a tenant key/, `${path} operation`);
    }
    assert.deepEqual(body('/api/v1/monetization/plans/{id}', 'patch').properties.status.enum, ['DRAFT', 'ACTIVE', 'ARCHIVED']);
    const value = body('/api/v1/monetization/rules/plan-features', 'post').properties.value;
    assert.deepEqual(value.type, ['object', 'null']);
    assert.deepEqual(value.properties.pricing.properties.model.enum, ['usage', 'graduated']);
    assert.equal(value.properties.pricing.properties.price_per_unit.maximum, 1000000);
    const grant = body('/api/v1/monetization/credits/grants', 'post').properties.amount;
    assert.deepEqual([grant.type, grant.exclusiveMinimum, grant.maximum], ['number', 0, 1000000000000]);
    assert.match(grant.description, /At most 6 decimal places/);
    assert.deepEqual(param('/api/v1/client/entitlements/{ref}/{featureKey}', 'get', 'record'), { type: 'boolean' });
    assert.equal(param('/api/v1/monetization/billing/invoices', 'get', 'onlyDue').type, 'boolean');

    // Every string a request carries has a length bound (or a format/enum/pattern that fixes it),
    // every number a maximum.
    const problems: string[] = [];
    const walk = (schema: any, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      const types = [schema.type].flat();
      if (types.includes('string') && schema.maxLength === undefined && !schema.enum && !schema.pattern && schema.format !== 'uuid') problems.push(`${where}: string without maxLength`);
      if ((types.includes('number') || types.includes('integer')) && schema.maximum === undefined) problems.push(`${where}: number without maximum`);
      for (const [k, v] of Object.entries<any>(schema.properties ?? {})) walk(v, `${where}.${k}`);
      for (const k of ['anyOf', 'oneOf', 'allOf']) for (const v of schema[k] ?? []) walk(v, where);
      if (schema.items) walk(schema.items, `${where}[]`);
    };
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const p of op.parameters ?? []) walk(p.schema, `${method} ${path} ${p.in} ${p.name}`);
        const b = op.requestBody?.content?.['application/json']?.schema;
        if (b) walk(b, `${method} ${path} body`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test('when the document is read under another host name then servers names that host, and X-Forwarded-* only behind a trusted proxy', async () => {
    const viaHost = await rawGet(svc.baseUrl, '/v3/api-docs', { host: 'tally.example.test' });
    assert.deepEqual(viaHost.body.servers, [{ url: 'http://tally.example.test' }]);
    const spoofed = await rawGet(svc.baseUrl, '/v3/api-docs', { host: 'tally.example.test', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' });
    assert.deepEqual(spoofed.body.servers, [{ url: 'http://tally.example.test' }], 'APP_TRUST_PROXY is off: forwarded headers are ignored');
    const bad = await rawGet(svc.baseUrl, '/v3/api-docs', { host: 'tally.example.test:99999<x>' });
    assert.ok(bad.status === 400 || bad.body.servers[0].url === 'http://localhost', `a malformed Host is never echoed: ${bad.text.slice(0, 200)}`);
    const proxied = await startTestService({ env: { APP_TRUST_PROXY: 'true' } });
    try {
      const res = await rawGet(proxied.baseUrl, '/v3/api-docs', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'billing.example.test' });
      assert.deepEqual(res.body.servers, [{ url: 'https://billing.example.test' }]);
    } finally {
      await proxied.close();
    }
  });

  test('when APP_PUBLIC_BASE_URL is set then the document names it as its server', async () => {
    const other = await startTestService({ env: { APP_PUBLIC_BASE_URL: 'https://billing.example.com/' } });
    try {
      assert.deepEqual((await other.http.get('/v3/api-docs')).body.servers, [{ url: 'https://billing.example.com' }]);
    } finally {
      await other.close();
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
      // Ready first (its boot registered), so the 503 below is the database's.
      assert.equal((await svc.http.get('/readyz')).status, 200);
      await svc.ctx.database.close();
      const ready = await svc.http.get('/readyz');
      assert.equal(ready.status, 503);
      assert.equal(ready.body.error.code, 'service_unavailable');
      assert.equal(ready.body.error.message, 'Database unreachable');
      assert.equal((await svc.http.get('/healthz')).status, 200);
    } finally {
      // The whole runtime, not only the HTTP server: its cache listener holds a connection of its own.
      await svc.close();
    }
  });
});
