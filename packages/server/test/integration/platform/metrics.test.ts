import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { Scheduler } from '../../../src/platform/jobs/scheduler.js';
import { metricValue } from '../../metrics-text.js';

describe(`/metrics (${backend})`, () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  const metrics = async () => {
    const res = await svc.http.get('/metrics');
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  test('when requests are answered then they are counted per route pattern and status, never per raw URL', async () => {
    await m.customer('metrics-ref-1');
    assert.equal((await m.client('GET', '/customers/metrics-ref-1')).status, 200);
    assert.equal((await m.client('GET', '/customers/metrics-ref-missing')).status, 404);
    assert.equal((await svc.http.get('/no/such/path')).status, 404);
    const text = await metrics();
    assert.equal(metricValue(text, 'tally_http_requests_total', { method: 'GET', route: '/api/v1/client/customers/:ref', status: '200' }), 1);
    assert.equal(metricValue(text, 'tally_http_requests_total', { method: 'GET', route: '/api/v1/client/customers/:ref', status: '404' }), 1);
    assert.equal(metricValue(text, 'tally_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
    assert.equal(metricValue(text, 'tally_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/client/customers', status: '201' }), 1);
    assert.ok(!text.includes('metrics-ref-1') && !text.includes('/no/such/path'), 'no raw URL in a label');
    assert.equal(metricValue(text, 'tally_db_pool_connections', { backend: svc.ctx.database.kind, state: 'total' })! >= 1, true);
    assert.notEqual(metricValue(text, 'tally_db_pool_connections', { backend: svc.ctx.database.kind, state: 'waiting' }), undefined);
    assert.notEqual(metricValue(text, 'process_cpu_user_seconds_total'), undefined);
  });

  test('when events are stored, repeated and refused on both paths then each outcome and the credits drawn are counted', async () => {
    const model = await m.creditModel({ denomination: 'metrics', hardLimit: true });
    const feature = await m.feature({ key: 'metrics.f' });
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'metrics', name: 'metrics', description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: 0 } } }), 201);
    await m.expectOk(m.admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=5`), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    await m.customer('metered');
    await m.subscribe('metered', plan.id);
    const event = (key: string) => ({ eventName: 'chat.message', customerReferenceId: 'metered', featureKey: 'metrics.f', usageUnits: 2, eventIdempotencyKey: key });

    assert.equal((await m.event(event('e1'))).status, 201);
    assert.equal((await m.event(event('e1'))).status, 409);
    const batch = await m.expectOk(m.client('POST', '/events/batch', { events: [event('e2'), event('e1'), event('e3')] }));
    assert.deepEqual(batch.results.map((r: { status: string }) => r.status), ['stored', 'duplicate', 'refused']);
    assert.equal((await m.event(event('e4'))).status, 409);

    const text = await metrics();
    const ingested = (path: string, outcome: string) => metricValue(text, 'tally_usage_events_ingested_total', { path, outcome });
    assert.equal(ingested('single', 'stored'), 1);
    assert.equal(ingested('single', 'duplicate'), 1);
    assert.equal(ingested('single', 'refused'), 1);
    assert.equal(ingested('batch', 'stored'), 1);
    assert.equal(ingested('batch', 'duplicate'), 1);
    assert.equal(ingested('batch', 'refused'), 1);
    assert.equal(metricValue(text, 'tally_credits_drawn_total'), 4);
  });

  test('when job slots run and fail then runs are counted per job and outcome', async () => {
    assert.equal((await svc.scheduler.run('idempotency-purge')).status, 'ran');
    const failing = new Scheduler(svc.ctx.db, svc.clock, [{ name: 'always-fails', cron: '* * * * *', run: async () => Promise.reject(new Error('boom')) }], svc.app.log, svc.ctx.metrics);
    assert.equal((await failing.run('always-fails')).status, 'failed');
    const text = await metrics();
    assert.equal(metricValue(text, 'tally_job_runs_total', { job: 'idempotency-purge', outcome: 'succeeded' }), 1);
    assert.equal(metricValue(text, 'tally_job_runs_total', { job: 'always-fails', outcome: 'failed' }), 1);
    assert.equal(metricValue(text, 'tally_job_duration_seconds_count', { job: 'always-fails' }), 1);
  });
});

describe(`/metrics with APP_METRICS_TOKEN (${backend})`, () => {
  let svc: TestService;
  const TOKEN = 'metrics-token-0123456789abcdef';
  before(async () => (svc = await startTestService({ env: { APP_METRICS_TOKEN: TOKEN } })));
  after(() => svc.close());

  test('when the token is missing or wrong then 401 in the envelope; when it matches then the metrics', async () => {
    const cases: Record<string, string>[] = [{}, { authorization: 'Bearer wrong' }, { authorization: `Basic ${TOKEN}` }, { authorization: `Bearer ${TOKEN}x` }];
    for (const headers of cases) {
      const res = await svc.http.get('/metrics', { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'unauthorized');
      assert.equal(typeof res.body.error.requestId, 'string');
    }
    const res = await svc.http.get('/metrics', { auth: TOKEN });
    assert.equal(res.status, 200);
    assert.match(res.text, /^# HELP /m);
    assert.equal(metricValue(res.text, 'tally_http_requests_total', { method: 'GET', route: '/metrics', status: '401' }), 4);
  });
});

describe(`/metrics outbound calls (${backend})`, () => {
  test('when the processor is called then its answers are counted per vendor and status', async () => {
    const { svc, close } = await startServiceWithStripe();
    try {
      const m = monetization(svc, await createTestAccount(svc));
      await connectStripe(m, 'sk_test_metrics_0123456789', 'STRIPE_INTEGRATION');
      const text = (await svc.http.get('/metrics')).text;
      assert.ok((metricValue(text, 'tally_outbound_requests_total', { vendor: 'stripe', status: '200' }) ?? 0) >= 2, text.split('\n').filter((l) => l.includes('outbound')).join('\n'));
    } finally {
      await close();
    }
  });
});
