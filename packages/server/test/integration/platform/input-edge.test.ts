import assert from 'node:assert/strict';
import { request as rawRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ok } from '../../../src/platform/http/envelope.js';
import { MAX_JSON_DEPTH, MAX_PATH_PARAM_LENGTH } from '../../../src/platform/http/input-guard.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type HttpResponse, type TestService } from '../../harness.js';
import { snapshotTables } from '../../snapshot.js';

let service: TestService | undefined;

/** Test-only routes: one echoes its body, one hands a value to PostgreSQL unvalidated. */
const testRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/api/v1/client/test/echo-any', { schema: { body: z.unknown() } }, async (request) => ok(request.body));
  app.get(
    '/api/v1/client/test/cast/:value',
    { schema: { params: z.object({ value: z.string() }) } },
    async (request) => ok(await sql<{ v: string }>`select ${request.params.value}::int as v`.execute(service!.ctx.db)),
  );
  app.get('/api/v1/client/test/numeric', async () =>
    ok(await sql`select (1e300)::numeric(20,2) as v`.execute(service!.ctx.db)),
  );
};

function assertEnvelope(res: HttpResponse, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body?.success, false, res.text);
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.message, 'string');
  assert.equal(typeof res.body.error.requestId, 'string');
  assert.equal(res.headers.get('x-request-id'), res.body.error.requestId);
}

describe('request edge: NUL, lone surrogates, nesting, path lengths, 404/405', () => {
  let svc: TestService;
  let account: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  before(async () => {
    svc = service = await startTestService({ extraRoutes: (app) => app.register(testRoutes) });
    account = await createTestAccount(svc);
    m = monetization(svc, account);
  });
  after(() => svc.close());

  const customers = () => snapshotTables(svc, ['customers']);

  test('when a body string holds NUL then 400 names the field and nothing is stored', async () => {
    const before = await customers();
    const res = await m.client('POST', '/customers', { customerReferenceId: 'nul-1', email: 'a@example.com', metadata: { x: 'a\u0000b' } });
    assertEnvelope(res, 400, 'validation_failed');
    assert.equal(res.body.error.message, 'Validation failed: metadata.x: must not contain NUL characters');
    assert.deepEqual(res.body.error.fields, [{ field: 'metadata.x', message: 'must not contain NUL characters' }]);
    assert.deepEqual(await customers(), before);
  });

  test('when a key or an array item holds NUL or a lone surrogate then 400 names where', async () => {
    const cases: [string, string, string][] = [
      ['{"a":[1,{"b":"\\ud800"}]}', 'a[1].b', 'must be valid Unicode (no lone surrogates)'],
      ['{"a":{"k\\u0000":1}}', 'a', 'keys must not contain NUL characters'],
      ['{"a":"x\\udc00y"}', 'a', 'must be valid Unicode (no lone surrogates)'],
      ['"\\u0000"', 'body', 'must not contain NUL characters'],
    ];
    for (const [rawBody, field, message] of cases) {
      const res = await svc.http.post('/api/v1/client/test/echo-any', { auth: account.apiKey, rawBody, headers: { 'content-type': 'application/json' } });
      assertEnvelope(res, 400, 'validation_failed');
      assert.deepEqual(res.body.error.fields, [{ field, message }], rawBody);
    }
    const fine = await svc.http.post('/api/v1/client/test/echo-any', { auth: account.apiKey, body: { a: 'emoji 😀 and é' } });
    assert.equal(fine.status, 200);
    assert.equal(fine.body.data.a, 'emoji 😀 and é');
  });

  test('when the unauthenticated login gets NUL or deep nesting then 400, not 500', async () => {
    const nul = await svc.http.post('/public/v1/login', { body: { username: 'a\u0000', password: 'x' } });
    assertEnvelope(nul, 400, 'validation_failed');
    assert.equal(nul.body.error.fields[0].field, 'username');
    const deep = await svc.http.post('/public/v1/login', {
      rawBody: `{"username":${'['.repeat(10_000)}${']'.repeat(10_000)},"password":"x"}`,
      headers: { 'content-type': 'application/json' },
    });
    assertEnvelope(deep, 400, 'validation_failed');
  });

  test(`when a body nests deeper than ${MAX_JSON_DEPTH} levels then 400 before parsing; ${MAX_JSON_DEPTH} levels pass`, async () => {
    const nest = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const tooDeep = await svc.http.post('/api/v1/client/test/echo-any', {
      auth: account.apiKey,
      rawBody: `{"a":${nest(MAX_JSON_DEPTH)}}`,
      headers: { 'content-type': 'application/json' },
    });
    assertEnvelope(tooDeep, 400, 'validation_failed');
    assert.equal(tooDeep.body.error.message, `Validation failed: body: must not nest deeper than ${MAX_JSON_DEPTH} levels`);
    const deepest = await svc.http.post('/api/v1/client/test/echo-any', {
      auth: account.apiKey,
      rawBody: `{"a":${nest(MAX_JSON_DEPTH - 1)},"s":"[[[[{{{{\\"]]]"}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(deepest.status, 200, deepest.text);
    const objects = await svc.http.post('/api/v1/monetization/features', {
      auth: account.token,
      rawBody: '{"name":"x","key":"k","metadata":' + '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_001),
      headers: { 'content-type': 'application/json' },
    });
    assertEnvelope(objects, 400, 'validation_failed');
  });

  test('when a query or path value holds NUL or invalid UTF-8 then 400 names the parameter', async () => {
    const query = await m.client('GET', '/customers?customerReferenceId=a%00b');
    assertEnvelope(query, 400, 'validation_failed');
    assert.equal(query.body.error.message, 'Invalid value for parameter: customerReferenceId');
    assert.deepEqual(query.body.error.fields, [{ field: 'customerReferenceId', message: 'must not contain NUL characters' }]);
    const path = await m.client('GET', '/customers/a%00b');
    assertEnvelope(path, 400, 'validation_failed');
    assert.equal(path.body.error.message, 'Invalid value for parameter: ref');
    for (const bad of ['%ED%A0%80', '%FF', '%zz', 'a%']) {
      const res = await m.client('GET', `/customers/${bad}`);
      assertEnvelope(res, 400, 'validation_failed');
    }
  });

  test('when a value reaches PostgreSQL unvalidated and is refused as data then 400, never 500', async () => {
    assertEnvelope(await svc.http.get('/api/v1/client/test/cast/abc', { auth: account.apiKey }), 400, 'validation_failed');
    assertEnvelope(await svc.http.get('/api/v1/client/test/numeric', { auth: account.apiKey }), 400, 'validation_failed');
    assert.match(svc.logs(), /input refused by the database/);
  });

  test('when a customer has a 255-character reference then every path with it reaches the customer', async () => {
    const create = (customerReferenceId: string) =>
      m.expectOk(m.client('POST', '/customers', { customerReferenceId, email: 'long@example.com' }), 201);
    const ref = 'r'.repeat(255);
    await create(ref);
    const read = await m.client('GET', `/customers/${ref}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.data.customerReferenceId, ref);
    const accented = 'é'.repeat(255);
    await create(accented);
    const encoded = await m.client('GET', `/customers/${encodeURIComponent(accented)}`);
    assert.equal(encoded.status, 200, encoded.text);
  });

  test('when a path value is longer than any field then the envelope answers, not a bare 414', async () => {
    assertEnvelope(await m.client('GET', `/customers/${'r'.repeat(256)}`), 400, 'validation_failed');
    const tooLong = await m.client('GET', `/customers/${'r'.repeat(MAX_PATH_PARAM_LENGTH + 1)}`);
    assertEnvelope(tooLong, 400, 'validation_failed');
    assert.match(tooLong.body.error.message, /longer than the service accepts/);
  });

  test('when the URL exceeds the HTTP server limit then 431 headers_too_large in the envelope', async () => {
    const res = await svc.http.get(`/api/v1/client/customers/${'p'.repeat(20_000)}`, { auth: account.apiKey });
    assertEnvelope(res, 431, 'headers_too_large');
  });

  test('when the method is unknown to HTTP then 400 in the envelope', async () => {
    const { port } = new URL(svc.baseUrl);
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = rawRequest({ host: '127.0.0.1', port, method: 'FOOBAR', path: '/healthz' }, (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => resolve({ status: r.statusCode!, text }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(res.status, 400);
    const body = JSON.parse(res.text);
    assert.equal(body.error.code, 'validation_failed');
    assert.equal(typeof body.error.requestId, 'string');
  });

  test('when a known path gets another method then 405 method_not_allowed with Allow', async () => {
    const res = await m.client('PUT', '/customers');
    assertEnvelope(res, 405, 'method_not_allowed');
    assert.equal(res.headers.get('allow'), 'GET, HEAD, POST');
    const withParam = await m.client('DELETE', '/customers/someone/');
    assertEnvelope(withParam, 405, 'method_not_allowed');
    assert.equal(withParam.headers.get('allow'), 'GET, HEAD, PATCH');
    const options = await svc.http.request('OPTIONS', '/healthz');
    assertEnvelope(options, 405, 'method_not_allowed');
    assert.equal(options.headers.get('allow'), 'GET, HEAD');
    const head = await svc.http.request('HEAD', '/healthz');
    assert.equal(head.status, 200);
    const headPost = await svc.http.request('HEAD', '/public/v1/login');
    assert.equal(headPost.status, 405);
    assert.equal(headPost.headers.get('allow'), 'POST');
  });

  test('when a path is unknown then 404 not_found, also for a client path without credentials: 401 first', async () => {
    assertEnvelope(await svc.http.get('/api/v1/client/nothing', { auth: account.apiKey }), 404, 'not_found');
    assertEnvelope(await svc.http.get('/api/v1/client/nothing'), 401, 'unauthorized');
    assertEnvelope(await svc.http.request('PUT', '/api/v1/client/customers'), 401, 'unauthorized');
  });
});
