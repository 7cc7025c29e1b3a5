import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../../src/platform/errors/app-error.js';
import { gate } from '../../../src/platform/errors/gate.js';
import { ok } from '../../../src/platform/http/envelope.js';
import { createTestAccount, startTestService, type HttpResponse, type TestService } from '../../harness.js';

const GATE_FIELDS = ['gate', 'action', 'url', 'poll', 'retry_after'] as const;

/** Test-only routes that throw the refusals whose envelope is under test. */
const routes: FastifyPluginAsyncZod = async (app) => {
  let windowOpen = false;
  app.post('/api/v1/client/test/checkout', async () => {
    throw new AppError('payment_required', 'Pay first', { data: { checkoutUrl: 'https://checkout.example/s/1', checkoutSessionId: 'cs_1' } });
  });
  app.post('/api/v1/client/test/no-processor', async () => {
    throw new AppError('payment_required', 'Payment is required but no payment processor is connected to this instance; contact the operator.', { data: { completed: false } });
  });
  app.post('/api/v1/client/test/owner', async () => {
    throw new AppError('payment_required', 'Nominate an owner', { gate: gate('payment', 'nominate_owner', { url: '/api/v1/client/customers/a/owner' }) });
  });
  app.post('/api/v1/client/test/spend-cap', async () => {
    throw new AppError('spend_cap_exceeded', 'Amount 20 exceeds this account\'s agent spend cap of 10; ask the operator to raise the cap');
  });
  // Refused with `wait` until /test/open is called, then 200: a gated answer must not be replayed.
  app.post('/api/v1/client/test/window', async () => {
    if (!windowOpen) throw new AppError('budget_exceeded', 'window used up', { gate: gate('budget', 'wait', { retryAfter: 60 }) });
    return ok({ ran: true });
  });
  app.post('/api/v1/client/test/open', async () => {
    windowOpen = true;
    return ok({});
  });
  let invalidCalls = 0;
  app.post('/api/v1/client/test/invalid', async () => {
    invalidCalls += 1;
    throw new AppError('validation_failed', `invalid ${invalidCalls}`);
  });
  app.post('/api/v1/client/test/rate', async () => {
    throw new AppError('rate_limited', 'slow down', { headers: { 'retry-after': '5' } });
  });
  app.get('/api/v1/tanso/test/forbidden', async () => {
    throw new AppError('forbidden', 'Access denied');
  });
  app.get('/api/v1/tanso/test/payment', async () => {
    throw new AppError('payment_required', 'Pay first', { data: { checkoutUrl: 'https://checkout.example/s/1', checkoutSessionId: 'cs_1' } });
  });
};

function assertGate(res: HttpResponse, expected: { code: string; gate: string; action: string; url: string | null; poll: string | null; retry_after: number | null }) {
  const error = res.body.error;
  for (const field of GATE_FIELDS) assert.ok(field in error, `${field} is present in ${res.text}`);
  assert.deepEqual(
    { code: error.code, gate: error.gate, action: error.action, url: error.url, poll: error.poll, retry_after: error.retry_after },
    expected,
  );
  assert.equal(error.detail, `errorId=${error.requestId}`);
  assert.equal(res.headers.get('x-request-id'), error.requestId);
}

function assertNoGate(res: HttpResponse) {
  for (const field of GATE_FIELDS) assert.ok(!(field in res.body.error), `${field} is absent in ${res.text}`);
  assert.ok(!String(res.body.error.detail ?? '').startsWith('errorId='), res.text);
}

for (const configured of [undefined, 'https://billing.example.com']) {
  describe(`the gate object on Client API refusals (APP_PUBLIC_BASE_URL ${configured ?? 'unset'})`, () => {
    let svc: TestService;
    let tenantKey: string;
    let jwt: string;
    let base: string;

    async function customerKey(scopes: string[]) {
      const ref = `c-${randomUUID()}`;
      assert.equal((await svc.http.post('/api/v1/client/customers', { auth: tenantKey, body: { customerReferenceId: ref, email: `${ref}@example.com` } })).status, 201);
      const issued = await svc.http.post(`/api/v1/client/customers/${ref}/keys`, { auth: tenantKey, body: { scopes } });
      assert.equal(issued.status, 201, issued.text);
      return { ref, key: issued.body.data.apiKey as string };
    }

    before(async () => {
      svc = await startTestService({ extraRoutes: (app) => app.register(routes), ...(configured ? { env: { APP_PUBLIC_BASE_URL: configured } } : {}) });
      ({ apiKey: tenantKey, token: jwt } = await createTestAccount(svc));
      base = configured ?? svc.baseUrl;
    });
    after(() => svc.close());

    test('when a read-only customer key calls a purchase route then 403 scope_denied with the scope gate', async () => {
      const { key } = await customerKey(['read']);
      const res = await svc.http.post('/api/v1/client/credits/purchases', { auth: key, body: { creditPoolId: randomUUID(), credits: 1 } });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.message, "This API key lacks the 'purchase' scope");
      assertGate(res, { code: 'scope_denied', gate: 'scope', action: 'request_scope', url: null, poll: null, retry_after: null });
    });

    test('when a customer key calls a tenant-only route then 403 forbidden with request_scope', async () => {
      const { key } = await customerKey(['read', 'purchase']);
      const res = await svc.http.get('/api/v1/client/customers', { auth: key });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.message, 'Access denied');
      assertGate(res, { code: 'forbidden', gate: 'scope', action: 'request_scope', url: null, poll: null, retry_after: null });
    });

    test("when a customer key names another customer then 403 forbidden with use_own_reference", async () => {
      const { key } = await customerKey(['read']);
      const other = await customerKey(['read']);
      const res = await svc.http.get(`/api/v1/client/customers/${other.ref}`, { auth: key });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.error.message, 'This API key is scoped to another customer');
      assertGate(res, { code: 'forbidden', gate: 'scope', action: 'use_own_reference', url: null, poll: null, retry_after: null });
    });

    test('when a 402 carries a checkout session then the gate points at its page and polls the session (absolute)', async () => {
      const res = await svc.http.post('/api/v1/client/test/checkout', { auth: tenantKey });
      assert.equal(res.status, 402);
      assertGate(res, { code: 'payment_required', gate: 'payment', action: 'complete_checkout', url: 'https://checkout.example/s/1', poll: `${base}/api/v1/client/checkout-sessions/cs_1`, retry_after: null });
      assert.deepEqual(res.body.data, { checkoutUrl: 'https://checkout.example/s/1', checkoutSessionId: 'cs_1' }, 'the 402 keeps its data');
    });

    test('when a 402 has no checkout (no processor) then url and poll are null; an explicit gate is rendered as thrown', async () => {
      const none = await svc.http.post('/api/v1/client/test/no-processor', { auth: tenantKey });
      assertGate(none, { code: 'payment_required', gate: 'payment', action: 'complete_checkout', url: null, poll: null, retry_after: null });
      const owner = await svc.http.post('/api/v1/client/test/owner', { auth: tenantKey });
      assertGate(owner, { code: 'payment_required', gate: 'payment', action: 'nominate_owner', url: `${base}/api/v1/client/customers/a/owner`, poll: null, retry_after: null });
    });

    test('when the spend cap refuses then 403 spend_cap_exceeded with raise_spend_cap', async () => {
      const res = await svc.http.post('/api/v1/client/test/spend-cap', { auth: tenantKey });
      assertGate(res, { code: 'spend_cap_exceeded', gate: 'budget', action: 'raise_spend_cap', url: null, poll: null, retry_after: null });
    });

    test('when 401, 404, 429, 400 or an Admin API 403/402 answer then no gate fields', async () => {
      assertNoGate(await svc.http.get('/api/v1/client/customers', { auth: 'sk_test_nope' }));
      assertNoGate(await svc.http.get(`/api/v1/client/customers/${randomUUID()}`, { auth: tenantKey }));
      const rate = await svc.http.post('/api/v1/client/test/rate', { auth: tenantKey });
      assert.equal(rate.status, 429);
      assertNoGate(rate);
      assertNoGate(await svc.http.post('/api/v1/client/test/invalid', { auth: tenantKey }));
      const admin = await svc.http.get('/api/v1/tanso/test/forbidden', { auth: jwt });
      assert.equal(admin.status, 403, admin.text);
      assertNoGate(admin);
      const adminPayment = await svc.http.get('/api/v1/tanso/test/payment', { auth: jwt });
      assert.equal(adminPayment.status, 402, adminPayment.text);
      assertNoGate(adminPayment);
    });

    test('when a gated answer was given under an Idempotency-Key then a retry with the same key runs again (§1.4)', async () => {
      const headers = { 'idempotency-key': `k-${randomUUID()}` };
      const first = await svc.http.post('/api/v1/client/test/window', { auth: tenantKey, headers, body: {} });
      assert.equal(first.status, 403, first.text);
      assertGate(first, { code: 'budget_exceeded', gate: 'budget', action: 'wait', url: null, poll: null, retry_after: 60 });
      assert.equal(first.headers.get('idempotent-replayed'), null);
      assert.equal((await svc.http.post('/api/v1/client/test/open', { auth: tenantKey, body: {} })).status, 200);
      const retry = await svc.http.post('/api/v1/client/test/window', { auth: tenantKey, headers, body: {} });
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.headers.get('idempotent-replayed'), null);
      const replay = await svc.http.post('/api/v1/client/test/window', { auth: tenantKey, headers, body: {} });
      assert.equal(replay.status, 200);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true', 'a stored 2xx is replayed');
    });

    test('when a non-gated 4xx was given under an Idempotency-Key then it is still replayed (base §1.6)', async () => {
      const headers = { 'idempotency-key': `k-${randomUUID()}` };
      const first = await svc.http.post('/api/v1/client/test/invalid', { auth: tenantKey, headers, body: {} });
      const again = await svc.http.post('/api/v1/client/test/invalid', { auth: tenantKey, headers, body: {} });
      assert.equal(again.status, 400);
      assert.equal(again.body.error.message, first.body.error.message);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
    });
  });
}
