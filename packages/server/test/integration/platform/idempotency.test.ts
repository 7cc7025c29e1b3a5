import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ok } from '../../../src/platform/http/envelope.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

describe('Idempotency-Key on mutating Client API calls', () => {
  let svc: TestService;
  let key: string;
  let otherKey: string;
  let executions = 0;
  let failNext = false;

  const routes: FastifyPluginAsyncZod = async (app) => {
    app.post('/api/v1/client/test/orders', { schema: { body: z.object({ item: z.string() }) } }, async (request, reply) => {
      executions += 1;
      await new Promise((r) => setTimeout(r, 50)); // long enough for concurrent duplicates to overlap
      if (failNext) {
        failNext = false;
        throw new Error('transient failure');
      }
      return reply.code(201).send(ok({ item: request.body.item, execution: executions }));
    });
  };

  before(async () => {
    svc = await startTestService({ extraRoutes: (app) => app.register(routes) });
    key = (await createTestAccount(svc)).apiKey;
    otherKey = (await createTestAccount(svc)).apiKey;
  });
  after(() => svc.close());

  const order = (idemKey: string, item: string, apiKey = key) =>
    svc.http.post('/api/v1/client/test/orders', { auth: apiKey, body: { item }, headers: { 'idempotency-key': idemKey } });

  test('when an identical request is retried then the stored status and body are replayed without re-executing', async () => {
    const before = executions;
    const first = await order('k-replay', 'apple');
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotency-key'), 'k-replay');
    const retry = await order('k-replay', 'apple');
    assert.equal(retry.status, 201);
    assert.equal(retry.text, first.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(executions, before + 1);
  });

  test('when the same key comes with a different body then 409 idempotency_conflict', async () => {
    await order('k-conflict', 'apple');
    const res = await order('k-conflict', 'pear');
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'idempotency_conflict');
    assert.equal(res.body.error.message, "Idempotency-Key 'k-conflict' was already used with a different request body");
  });

  test('when two accounts use the same key then each executes its own request', async () => {
    const a = await order('k-shared', 'apple');
    const b = await order('k-shared', 'apple', otherKey);
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.notEqual(a.body.data.execution, b.body.data.execution);
  });

  test('when 20 first requests with one key arrive together then the handler runs once', async () => {
    const before = executions;
    const results = await Promise.all(Array.from({ length: 20 }, () => order('k-concurrent', 'plum')));
    assert.equal(executions, before + 1);
    const created = results.filter((r) => r.status === 201);
    assert.ok(created.length >= 1);
    for (const r of results) {
      assert.ok(r.status === 201 || (r.status === 409 && r.body.error.code === 'idempotency_conflict'), `status ${r.status}`);
      if (r.status === 201) assert.equal(r.body.data.execution, before + 1);
    }
  });

  test('when the first attempt fails with a 5xx then it is not stored and a retry executes', async () => {
    failNext = true;
    const failed = await order('k-5xx', 'fig');
    assert.equal(failed.status, 500);
    const retry = await order('k-5xx', 'fig');
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotent-replayed'), null);
  });

  test('when a 4xx answer is stored then its retry replays the same error', async () => {
    const first = await svc.http.post('/api/v1/client/test/orders', {
      auth: key,
      body: { wrong: true },
      headers: { 'idempotency-key': 'k-4xx' },
    });
    assert.equal(first.status, 400);
    const before = executions;
    const retry = await svc.http.post('/api/v1/client/test/orders', {
      auth: key,
      body: { wrong: true },
      headers: { 'idempotency-key': 'k-4xx' },
    });
    assert.equal(retry.status, 400);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, first.text);
    assert.equal(executions, before);
  });

  test('when the key is longer than 255 characters then 400', async () => {
    const res = await order('x'.repeat(256), 'apple');
    assert.equal(res.status, 400);
    assert.equal(res.body.error.message, 'Idempotency-Key must be 1-255 characters');
  });

  test('when 24 hours pass then the purge job removes the record and the key executes afresh', async () => {
    const first = await order('k-expire', 'kiwi');
    svc.clock.advanceMs(24 * 3600 * 1000 + 60_000);
    const outcome = await svc.scheduler.run('idempotency-purge');
    assert.equal(outcome.status, 'ran');
    const rows = await svc.ctx.db.selectFrom('idempotency_records').select('idempotency_key').where('idempotency_key', '=', 'k-expire').execute();
    assert.equal(rows.length, 0);
    const again = await order('k-expire', 'kiwi');
    assert.equal(again.status, 201);
    assert.notEqual(again.body.data.execution, first.body.data.execution);
  });

  test('when GET requests carry a key then it is ignored', async () => {
    const res = await svc.http.get('/api/v1/client/test/orders', { auth: key, headers: { 'idempotency-key': 'k-get' } });
    assert.equal(res.status, 405);
    assert.equal(res.body.error.code, 'method_not_allowed');
    const rows = await svc.ctx.db.selectFrom('idempotency_records').select('idempotency_key').where('idempotency_key', '=', 'k-get').execute();
    assert.equal(rows.length, 0);
  });
});
