import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { browserCorsFetch, callTool, mcpClient } from './mcp-helpers.js';

const CURATED = ['checkEntitlement', 'getCreditPrices', 'getMyBudget', 'getUsageForecast', 'listPlans', 'purchaseCredits', 'subscribePlan'];

/** The MCP endpoint (contract §8) driven by the SDK's own client over real HTTP. */
describe('MCP endpoint', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let featureKey: string;
  let freePlanId: string;
  let poolId: string;
  let tenant: Client;
  let readKey: string;
  let purchaseKey: string;
  const clients: Client[] = [];
  const open = async (key: string) => {
    const c = await mcpClient(svc, key);
    clients.push(c);
    return c;
  };
  const issueKey = async (ref: string, scopes: string[]) => (await m.expectOk(m.client('POST', `/customers/${ref}/keys`, { scopes }), 201)).apiKey as string;

  before(async () => {
    svc = await startTestService();
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const feature = await m.feature();
    featureKey = feature.key;
    freePlanId = (await m.activePlan({ price: 0, key: 'free', features: [{ id: feature.id }] })).id;
    await m.activePlan({ price: 30, features: [{ id: feature.id }] });
    const alice = await m.customer('alice');
    await m.customer('bob');
    await m.customer('carol');
    readKey = await issueKey('alice', ['read']);
    purchaseKey = await issueKey('alice', ['read', 'purchase']);
    await m.creditModel({ denomination: 'credits' });
    const aliceId = (await m.expectOk(m.admin('GET', '/customers'))).find((c: any) => c.customerReferenceId === alice.customerReferenceId).id;
    poolId = (await m.expectOk(m.admin('POST', '/credits/pools', { name: 'wallet', denomination: 'credits', customerId: aliceId }), 201)).id;
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'credits', pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
    tenant = await open(acct.apiKey);
  });
  after(async () => {
    for (const c of clients) await c.close();
    await svc.close();
  });

  test('when a tenant key lists tools then it sees the curated and tenant tools but no admin tool', async () => {
    const names = (await tenant.listTools()).tools.map((t) => t.name);
    for (const name of [...CURATED, 'getCustomer', 'createCustomer', 'ingestEvent', 'markInvoicePaid', 'getCreditPools']) assert.ok(names.includes(name), name);
    assert.ok(!names.some((n) => n.startsWith('admin')), names.join(','));
  });

  test('when a customer key lists tools then it sees exactly the seven curated tools (getMyBudget added, agent-v2 §2.8)', async () => {
    const names = (await (await open(readKey)).listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, CURATED);
  });

  test('when a tool declares confirmAction then the input schema has it as an optional boolean', async () => {
    const tools = (await tenant.listTools()).tools;
    for (const name of ['subscribePlan', 'purchaseCredits', 'markInvoicePaid', 'cancelSubscription']) {
      const schema = tools.find((t) => t.name === name)!.inputSchema as { properties: Record<string, { type: string }>; required?: string[] };
      assert.equal(schema.properties.confirmAction!.type, 'boolean', name);
      assert.ok(!(schema.required ?? []).includes('confirmAction'), name);
    }
  });

  test('when a tenant key calls an admin tool with the flag off then the tool error admin_tools_disabled', async () => {
    const res = await callTool(tenant, 'adminListPlans');
    assert.equal(res.isError, true);
    assert.equal(res.json.success, false);
    assert.equal(res.json.error.code, 'admin_tools_disabled');
  });

  test('when listPlans is called then the text is the REST catalog items without envelope and structuredContent wraps them', async () => {
    const rest = await m.expectOk(m.client('GET', '/plans?limit=200'));
    const res = await callTool(await open(readKey), 'listPlans');
    assert.equal(res.isError, false);
    assert.deepEqual(res.json, JSON.parse(JSON.stringify(rest.items)));
    assert.deepEqual(res.structured, { items: res.json });
    assert.equal(res.json.length, 2);
  });

  test('when getCreditPrices is called then the prices in effect come back as a bare array with exact decimals', async () => {
    const res = await callTool(await open(readKey), 'getCreditPrices');
    assert.equal(res.isError, false);
    assert.equal(res.json.length, 1);
    assert.equal(res.json[0].denomination, 'credits');
    assert.match(res.text, /"pricePerCredit":0\.01\b/);
    assert.deepEqual(res.structured, { items: res.json });
  });

  test('when checkEntitlement is called with a customer key then it answers for its own customer as POST /entitlements does', async () => {
    const res = await callTool(await open(readKey), 'checkEntitlement', { featureKey, usageUnits: 2.5 });
    assert.equal(res.isError, false, res.text);
    const rest = await m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: 'alice', featureKey, usage: { usageUnits: 2.5 } }));
    const { flowId: _a, ...mcpRest } = res.json;
    const { flowId: _b, ...restRest } = JSON.parse(JSON.stringify(rest));
    assert.deepEqual(mcpRest, restRest);
    assert.equal(res.json.allowed, false);
    assert.deepEqual(res.structured, res.json);
  });

  test('when a customer key names another customer then forbidden, and a tenant key without a reference gets invalid_request', async () => {
    const other = await callTool(await open(readKey), 'checkEntitlement', { featureKey, customerReferenceId: 'bob' });
    assert.equal(other.isError, true);
    assert.equal(other.json.error.code, 'forbidden');
    assert.equal(other.json.error.message, 'This API key is scoped to another customer');
    const forecast = await callTool(await open(readKey), 'getUsageForecast', { customerReferenceId: 'bob' });
    assert.equal(forecast.json.error.code, 'forbidden');
    const missing = await callTool(tenant, 'getUsageForecast', {});
    assert.equal(missing.isError, true);
    assert.equal(missing.json.error.code, 'invalid_request');
    assert.equal(missing.json.error.message, 'customerReferenceId is required for tenant API keys');
  });

  test('when getUsageForecast is called then it is the REST usage report', async () => {
    const res = await callTool(tenant, 'getUsageForecast', { customerReferenceId: 'carol' });
    assert.equal(res.isError, false, res.text);
    const rest = await m.expectOk(m.client('GET', '/customers/carol/usage'));
    assert.deepEqual(res.json, JSON.parse(JSON.stringify(rest)));
  });

  test('when a spend tool is called without confirmAction then confirmation_required and nothing changes', async () => {
    const client = await open(purchaseKey);
    for (const args of [{ planId: freePlanId }, { planId: freePlanId, confirmAction: false }]) {
      const res = await callTool(client, 'subscribePlan', args);
      assert.equal(res.isError, true);
      assert.equal(res.json.error.code, 'confirmation_required');
      assert.equal(res.json.error.message, 'This tool spends money. Set confirmAction to true after your principal approved it.');
    }
    // Before any check: even an unknown pool and a read-only key get the confirmation answer.
    const purchase = await callTool(await open(readKey), 'purchaseCredits', { creditPoolId: poolId, credits: 100 });
    assert.equal(purchase.json.error.code, 'confirmation_required');
    const customer = await m.expectOk(m.client('GET', '/customers/alice'));
    assert.deepEqual(customer.subscriptions, []);
    assert.deepEqual(await m.expectOk(m.admin('GET', `/credits/pools/${poolId}/grants`)), []);
  });

  test('when a read-only customer key confirms a spend tool then forbidden for the purchase scope', async () => {
    const client = await open(readKey);
    const res = await callTool(client, 'subscribePlan', { planId: freePlanId, confirmAction: true });
    assert.equal(res.json.error.code, 'forbidden');
    assert.equal(res.json.error.message, "This API key lacks the 'purchase' scope");
    const buy = await callTool(client, 'purchaseCredits', { creditPoolId: poolId, credits: 100, confirmAction: true });
    assert.equal(buy.json.error.message, "This API key lacks the 'purchase' scope");
  });

  test('when a customer key calls a tenant tool then forbidden', async () => {
    const res = await callTool(await open(purchaseKey), 'getCustomer', { customerReferenceId: 'alice' });
    assert.equal(res.isError, true);
    assert.equal(res.json.error.code, 'forbidden');
    assert.equal(res.json.error.message, 'Access denied');
  });

  test('when inputs are bad then invalid_request with the REST validation message', async () => {
    const missing = await callTool(tenant, 'checkEntitlement', { customerReferenceId: 'alice' });
    assert.equal(missing.isError, true);
    assert.equal(missing.json.error.code, 'invalid_request');
    assert.match(missing.json.error.message, /^Validation failed: featureKey: /);
    const negative = await callTool(tenant, 'purchaseCredits', { customerReferenceId: 'alice', creditPoolId: poolId, credits: -5, confirmAction: true });
    assert.equal(negative.json.error.code, 'invalid_request');
    assert.match(negative.json.error.message, /credits: must be positive/);
    const notUuid = await callTool(tenant, 'purchaseCredits', { customerReferenceId: 'alice', creditPoolId: 'nope', credits: 5, confirmAction: true });
    assert.equal(notUuid.json.error.code, 'invalid_request');
    const unknownPlan = await callTool(tenant, 'subscribePlan', { customerReferenceId: 'alice', planId: 'no-such-plan', confirmAction: true });
    assert.equal(unknownPlan.json.error.code, 'not_found');
  });

  test('when a customer key subscribes to the free plan through MCP then the result matches a REST subscribe', async () => {
    const res = await callTool(await open(purchaseKey), 'subscribePlan', { planId: 'free', confirmAction: true });
    assert.equal(res.isError, false, res.text);
    const rest = await m.expectOk(m.client('POST', '/subscriptions', { customerReferenceId: 'carol', planId: 'free' }), 201);
    const strip = (v: any) => JSON.parse(JSON.stringify(v), (k, x) => (['id', 'customer', 'customerReferenceId', 'createdAt', 'modifiedAt', 'subscriptionId', 'customerId', 'invoiceId', 'number', 'finalizedAt'].includes(k) ? undefined : x));
    assert.deepEqual(strip(res.json), strip(rest));
    assert.equal(res.json.subscription.status, 'ACTIVE');
    const customer = await m.expectOk(m.client('GET', '/customers/alice'));
    assert.equal(customer.subscriptions.length, 1);
    assert.match(svc.logs(), /"mcpTool":"subscribePlan","keyHint":"ck_test_…[0-9a-f]{4}"/);
  });

  test('when credits are bought with no processor connected then the result is the REST 402 data, not a tool error', async () => {
    const res = await callTool(await open(purchaseKey), 'purchaseCredits', { creditPoolId: poolId, credits: 100, confirmAction: true });
    assert.equal(res.isError, false, res.text);
    const rest = await svc.http.post('/api/v1/client/credits/purchases', { auth: purchaseKey, body: { creditPoolId: poolId, credits: 100 } });
    assert.equal(rest.status, 402);
    assert.equal(res.text, JSON.stringify(rest.body.data));
    assert.equal(res.json.completed, false);
    assert.equal(res.json.declineReason, 'no payment processor connected');
  });

  test('when a tenant key uses the tenant tools then they answer as the REST routes do', async () => {
    const created = await callTool(tenant, 'createCustomer', { customerReferenceId: 'erin', email: 'erin@example.com' });
    assert.equal(created.isError, false, created.text);
    const fetched = await callTool(tenant, 'getCustomer', { customerReferenceId: 'erin' });
    assert.deepEqual(fetched.json, JSON.parse(JSON.stringify(await m.expectOk(m.client('GET', '/customers/erin')))));
    const updated = await callTool(tenant, 'updateCustomer', { customerReferenceId: 'erin', firstName: 'Erin' });
    assert.equal(updated.json.firstName, 'Erin', updated.text);
    const duplicate = await callTool(tenant, 'createCustomer', { customerReferenceId: 'erin', email: 'erin@example.com' });
    assert.equal(duplicate.json.error.code, 'conflict');
    const event = { eventIdempotencyKey: 'mcp-evt-1', eventName: 'chat.message', customerReferenceId: 'erin', featureKey, usageUnits: '3', costAmount: '0.25' };
    const ingested = await callTool(tenant, 'ingestEvent', event);
    assert.equal(ingested.isError, false, ingested.text);
    assert.equal(ingested.json.eventIdempotencyKey, 'mcp-evt-1');
    const again = await callTool(tenant, 'ingestEvent', event);
    assert.equal(again.json.error.code, 'conflict');
    const invoices = await callTool(tenant, 'listCustomerInvoices', { customerReferenceId: 'erin' });
    assert.deepEqual(invoices.json, JSON.parse(JSON.stringify(await m.expectOk(m.client('GET', '/billing/invoices/erin?limit=200')))));
    const unconfirmed = await callTool(tenant, 'markInvoicePaid', { invoiceId: '00000000-0000-4000-8000-000000000000' });
    assert.equal(unconfirmed.json.error.code, 'confirmation_required');
    const unknown = await callTool(tenant, 'markInvoicePaid', { invoiceId: '00000000-0000-4000-8000-000000000000', confirmAction: true });
    assert.equal(unknown.json.error.code, 'not_found');
  });

  test('when listCustomerEntitlements is called then it is the REST entitlement list, and an unknown customer not_found', async () => {
    await m.subscribe('bob', freePlanId);
    const res = await callTool(tenant, 'listCustomerEntitlements', { customerReferenceId: 'bob' });
    assert.equal(res.isError, false, res.text);
    assert.deepEqual(res.json, JSON.parse(JSON.stringify(await m.expectOk(m.client('GET', '/entitlements/bob?limit=200')))));
    assert.deepEqual(res.json.items[0].entitlements, [{ featureKey, allowed: true }]);
    assert.deepEqual(res.structured, res.json);
    const unknown = await callTool(tenant, 'listCustomerEntitlements', { customerReferenceId: 'nobody' });
    assert.equal(unknown.json.error.code, 'not_found');
  });

  test('when a browser page (the Inspector in direct mode) drives /mcp then preflights pass and the SDK client works under CORS rules', async () => {
    const client = await mcpClient(svc, readKey, { fetch: browserCorsFetch('http://localhost:6274') });
    clients.push(client);
    assert.equal((await client.listTools()).tools.length, 7);
    const res = await callTool(client, 'getCreditPrices');
    assert.equal(res.isError, false, res.text);
    // Preflights carry no key; the answer names every header an MCP client sends.
    const preflight = await svc.http.request('OPTIONS', '/mcp', {
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,mcp-protocol-version,mcp-session-id,x-api-key' },
    });
    assert.equal(preflight.status, 204, preflight.text);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    const allowed = preflight.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const h of ['authorization', 'x-api-key', 'content-type', 'mcp-protocol-version', 'mcp-session-id']) assert.ok(allowed.includes(h), h);
    const exposed = preflight.headers.get('access-control-expose-headers')!;
    assert.match(exposed, /Mcp-Session-Id/);
    assert.match(exposed, /Mcp-Protocol-Version/);
    // Errors are readable by the page too; other surfaces get no CORS headers and no preflight pass.
    const unauthenticated = await svc.http.post('/mcp', { body: {}, headers: { origin: 'http://localhost:6274' } });
    assert.equal(unauthenticated.status, 401);
    assert.equal(unauthenticated.headers.get('access-control-allow-origin'), '*');
    const elsewhere = await svc.http.request('OPTIONS', '/api/v1/client/plans', { headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET' } });
    assert.equal(elsewhere.status, 401);
    assert.equal(elsewhere.headers.get('access-control-allow-origin'), null);
    assert.equal((await m.client('GET', '/plans')).headers.get('access-control-allow-origin'), null);
  });

  test('when /mcp is called without a key then 401 in the envelope, and GET answers 405 as the SDK stateless examples', async () => {
    const res = await svc.http.post('/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'unauthorized');
    const get = await svc.http.get('/mcp', { auth: acct.apiKey });
    assert.equal(get.status, 405);
    assert.deepEqual(get.body, { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    const del = await svc.http.delete('/mcp', { auth: readKey });
    assert.equal(del.status, 405);
  });
});
