import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { BODY_LIMIT_BYTES } from '../../../src/app.js';
import { AppError } from '../../../src/platform/errors/app-error.js';
import { decimalInput } from '../../../src/platform/http/decimal-schema.js';
import { ok } from '../../../src/platform/http/envelope.js';
import { pageQuerySchema, pageSchema, toPage } from '../../../src/platform/http/pagination.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** Routes that exist only in this test, to drive the shared HTTP mechanisms. */
const testRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/v1/client/test/echo',
    {
      schema: {
        body: z.object({ name: z.string().min(1), entries: z.array(z.object({ amount: decimalInput({ min: 0, exclusiveMin: true, max: '1e30', maxScale: 30 }) })) }),
      },
    },
    async (request) => ok(request.body),
  );
  app.get('/api/v1/client/test/boom', async () => {
    throw new Error('secret database detail: relation "x" does not exist');
  });
  app.get('/api/v1/client/test/rule', async () => {
    throw new AppError('conflict', 'A record with this key already exists. Please use a different key.');
  });
  const numbers = Array.from({ length: 120 }, (_, i) => i);
  app.get(
    '/api/v1/client/test/numbers',
    { schema: { querystring: pageQuerySchema, response: { 200: z.object({ success: z.literal(true), data: pageSchema(z.number()) }) } } },
    async (request) => {
      const { limit, offset } = request.query;
      return ok(toPage(numbers.slice(offset, offset + limit), numbers.length, request.query));
    },
  );
};

describe('HTTP edges: envelope, validation, content types, pagination', () => {
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService({ extraRoutes: (app) => app.register(testRoutes) });
    key = (await createTestAccount(svc)).apiKey;
  });
  after(() => svc.close());

  test('when JSON is malformed then 400 validation_failed "Malformed request body"', async () => {
    const res = await svc.http.post('/api/v1/client/test/echo', {
      auth: key,
      rawBody: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'validation_failed');
    assert.equal(res.body.error.message, 'Malformed request body');
  });

  test('when the content type is not JSON then 415 unsupported_media_type', async () => {
    const res = await svc.http.post('/api/v1/client/test/echo', {
      auth: key,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.status, 415);
    assert.equal(res.body.error.code, 'unsupported_media_type');
  });

  test('when the body exceeds the limit then 413 payload_too_large', async () => {
    const res = await svc.http.post('/api/v1/client/test/echo', {
      auth: key,
      rawBody: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT_BYTES), entries: [] }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'payload_too_large');
  });

  test('when fields are invalid then 400 names each field path', async () => {
    const res = await svc.http.post('/api/v1/client/test/echo', {
      auth: key,
      body: { entries: [{ amount: 1 }, { amount: -2 }] },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'validation_failed');
    assert.match(res.body.error.message, /^Validation failed: /);
    const fields = res.body.error.fields.map((f: { field: string }) => f.field).sort();
    assert.deepEqual(fields, ['entries[1].amount', 'name']);
  });

  test('when decimals arrive then they keep their exact digits', async () => {
    const res = await svc.http.post('/api/v1/client/test/echo', {
      auth: key,
      rawBody: '{"name":"x","entries":[{"amount":0.1000000000000000000001},{"amount":12345678901234567890.5},{"amount":5}]}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 200);
    assert.equal(
      res.text,
      '{"success":true,"data":{"name":"x","entries":[{"amount":0.1000000000000000000001},{"amount":12345678901234567890.5},{"amount":5}]}}',
    );
  });

  test('when the route is unknown then 404 not_found in the envelope', async () => {
    const res = await svc.http.get('/api/v1/client/test/nothing-here', { auth: key });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'not_found');
    const open = await svc.http.get('/nowhere');
    assert.equal(open.status, 404);
    assert.equal(open.body.error.code, 'not_found');
  });

  test('when a handler fails unexpectedly then 500 internal_error without internals, and the log has the request id', async () => {
    const res = await svc.http.get('/api/v1/client/test/boom', { auth: key });
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, 'internal_error');
    assert.equal(res.body.error.message, 'Internal Server Error');
    assert.doesNotMatch(res.text, /secret database detail|at .*\.ts/);
    const requestId = res.body.error.requestId;
    assert.equal(res.headers.get('x-request-id'), requestId);
    const line = svc.logs().split('\n').find((l) => l.includes(requestId));
    assert.ok(line, 'the error is logged under its request id');
    assert.match(line!, /secret database detail/);
  });

  test('when a rule rejects a request then its code and status come from the registry', async () => {
    const res = await svc.http.get('/api/v1/client/test/rule', { auth: key });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'conflict');
    assert.equal(typeof res.body.error.requestId, 'string');
  });

  test('when a list is read without paging then limit 50, offset 0 and hasMore are reported', async () => {
    const res = await svc.http.get('/api/v1/client/test/numbers', { auth: key });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.items.length, 50);
    assert.deepEqual(res.body.data.pagination, { total: 120, limit: 50, offset: 0, hasMore: true });
  });

  test('when the last page is read then hasMore is false', async () => {
    const res = await svc.http.get('/api/v1/client/test/numbers?limit=50&offset=100', { auth: key });
    assert.deepEqual(res.body.data.items, Array.from({ length: 20 }, (_, i) => 100 + i));
    assert.equal(res.body.data.pagination.hasMore, false);
  });

  test('when limit exceeds 200 then it is clamped to 200', async () => {
    const res = await svc.http.get('/api/v1/client/test/numbers?limit=1000', { auth: key });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.pagination.limit, 200);
    assert.equal(res.body.data.items.length, 120);
  });

  test('when limit or offset is out of range or not a number then 400 names the parameter', async () => {
    for (const [query, name] of [
      ['limit=0', 'limit'],
      ['offset=-1', 'offset'],
      ['limit=abc', 'limit'],
    ] as const) {
      const res = await svc.http.get(`/api/v1/client/test/numbers?${query}`, { auth: key });
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.message, `Invalid value for parameter: ${name}`);
    }
  });
});
