import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe } from '../../fakes/stripe/with-service.js';
import { ANTHROPIC_FAKE_KEY, startAnthropicFake, type AnthropicFake } from '../../fakes/vendors/anthropic.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_logs_51HxYzSecretKey0123456789';
const METRICS_TOKEN = 'metrics-token-logs-0123456789abcdef';
const JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';
const SECRETS_KEY = 'test-secrets-key-0123456789abcdef012345678';

/**
 * A full scenario with every log line captured at trace level: then no secret it used is in the
 * log, nor a JWT or an Authorization header, and every request-scoped line names its request and,
 * once authenticated, its account (ADR 0021).
 */
describe(`logs of a full scenario (${backend})`, () => {
  let svc: TestService;
  let stripe: StripeFake;
  let anthropic: AnthropicFake;
  const secrets: Record<string, string> = { STRIPE_KEY, METRICS_TOKEN, JWT_SECRET, SECRETS_KEY, ANTHROPIC_FAKE_KEY };
  const authenticated: { requestId: string; accountId: string }[] = [];

  before(async () => {
    const started: { svc?: TestService } = {};
    stripe = await StripeFake.start({ now: () => started.svc!.clock.now() });
    anthropic = await startAnthropicFake();
    svc = started.svc = await startTestService({
      env: {
        LOG_LEVEL: 'trace',
        JWT_SECRET,
        APP_SECRETS_KEY: SECRETS_KEY,
        APP_METRICS_TOKEN: METRICS_TOKEN,
        APP_STRIPE_API_BASE: stripe.baseUrl,
        APP_STRIPE_MAX_NETWORK_RETRIES: '0',
        APP_SPEND_ANTHROPIC_BASE_URL: anthropic.url,
        APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true',
        APP_SPEND_VENDOR_MAX_RETRIES: '0',
      },
      extraRoutes: (app) => {
        app.get('/api/v1/client/test-failure', async () => {
          throw Object.assign(new Error('unexpected failure'), { headers: { authorization: `Bearer ${STRIPE_KEY}` } });
        });
      },
    });
  });
  after(async () => {
    await svc.close();
    await stripe.close();
    await anthropic.close();
  });

  test('when the scenario has run then its log holds no secret, JWT or Authorization header, and request lines carry requestId and accountId', async () => {
    const account = await createTestAccount(svc);
    Object.assign(secrets, { password: account.password, jwt: account.token, tenantKey: account.apiKey });
    const m = monetization(svc, account);
    const remember = (res: { headers: Headers }) => authenticated.push({ requestId: res.headers.get('x-request-id')!, accountId: account.accountId });

    // Admin login: a wrong password, then the right one.
    assert.equal((await svc.http.post('/public/v1/login', { body: { username: account.username, password: `${account.password}-wrong` } })).status, 401);
    assert.equal((await svc.http.post('/public/v1/login', { body: { username: account.username, password: account.password } })).status, 200);

    // Tenant key and a customer key; refused calls with each (logged at debug).
    await m.customer('logs-customer');
    const customerKey = await m.customerKey('logs-customer');
    secrets.customerKey = customerKey;
    remember(await svc.http.get('/api/v1/client/customers/no-such-customer', { auth: account.apiKey }));
    remember(await svc.http.get('/api/v1/client/customers', { headers: { 'x-api-key': customerKey } }));
    remember(await svc.http.get('/api/v1/client/test-failure', { auth: account.apiKey }));
    assert.equal((await svc.http.get('/api/v1/client/customers', { auth: `${account.apiKey.slice(0, -1)}${account.apiKey.endsWith('0') ? '1' : '0'}` })).status, 401);

    // The processor: its secret key stored, the webhook registered (its signing secret), a signed delivery and a forged one.
    await connectStripe(m, STRIPE_KEY, 'STRIPE_INTEGRATION');
    const endpoint = stripe.list(STRIPE_KEY, 'webhook_endpoint')[0]!;
    secrets.webhookSecret = endpoint.secret as string;
    const event = { id: 'evt_logs_1', object: 'event', type: 'customer.created', created: 1, data: { object: { id: 'cus_logs', object: 'customer' } } };
    assert.ok((await stripe.deliver(event, endpoint.url as string, endpoint.secret as string)).status < 300);
    assert.equal((await stripe.deliver(event, endpoint.url as string, 'whsec_forged')).status, 400);

    // The internal AI-spend side: a vendor admin key, a probe, a sync, a refused key.
    const connection = await svc.http.post('/api/v1/spend/connections', { auth: account.token, body: { provider: 'ANTHROPIC', label: 'Org', adminKey: ANTHROPIC_FAKE_KEY } });
    assert.equal(connection.status, 201, connection.text);
    remember(await svc.http.post(`/api/v1/spend/connections/${connection.body.data.id}/probe`, { auth: account.token }));
    remember(await svc.http.post(`/api/v1/spend/connections/${connection.body.data.id}/sync`, { auth: account.token }));
    const wrongKey = 'sk-ant-admin01-wrong-key-logs-9999';
    secrets.wrongVendorKey = wrongKey;
    remember(await svc.http.post('/api/v1/spend/connections', { auth: account.token, body: { provider: 'ANTHROPIC', label: 'Bad', adminKey: wrongKey } }));

    // Metrics with its token, and without.
    assert.equal((await svc.http.get('/metrics', { auth: METRICS_TOKEN })).status, 200);
    assert.equal((await svc.http.get('/metrics')).status, 401);

    const text = svc.logs();
    if (process.env.DUMP_LOGS) (await import('node:fs')).writeFileSync(process.env.DUMP_LOGS, text);
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    assert.ok(lines.length > 10, 'the scenario logged');
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);

    for (const [name, value] of Object.entries(secrets)) assert.ok(!text.includes(value), `the log holds ${name}`);
    assert.doesNotMatch(text, /eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}/, 'the log holds a JWT');
    assert.doesNotMatch(text, /bearer\s+[\w.-]{8,}/i, 'the log holds an Authorization value');
    for (const match of text.matchAll(/"(authorization|x-api-key|stripe-signature)":("[^"]*"|\{)/gi)) assert.equal(match[2], '"[Redacted]"', `the log holds ${match[0]}`);

    let checked = 0;
    for (const { requestId, accountId } of authenticated) {
      for (const e of entries.filter((entry) => entry.requestId === requestId)) {
        assert.equal(e.accountId, accountId, `a line of request ${requestId} lacks its account: ${JSON.stringify(e)}`);
        checked += 1;
      }
    }
    assert.ok(checked >= 4, `authenticated requests logged ${checked} lines`);
    const failure = entries.find((e) => e.msg === 'request failed');
    assert.ok(failure && typeof failure.requestId === 'string' && failure.accountId === account.accountId, 'the 500 is logged with its request and account');
    assert.ok(!lines.some((l) => /"requestId":"[^"]*".*"requestId":/.test(l)), 'requestId appears once per line');
  });
});
