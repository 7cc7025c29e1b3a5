import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { setCatalogSettings } from '../agents/agent-helpers.js';
import { callTool, mcpClient } from './mcp-helpers.js';

describe('MCP switches (APP_MCP_ENABLED, APP_MCP_ADMIN_TOOLS_ENABLED)', () => {
  describe('when APP_MCP_ENABLED=false', () => {
    let svc: TestService;
    let acct: Awaited<ReturnType<typeof createTestAccount>>;
    before(async () => {
      svc = await startTestService({ env: { APP_MCP_ENABLED: 'false' } });
      acct = await createTestAccount(svc);
    });
    after(() => svc.close());

    test('when /mcp is called with a tenant key then 404, and pricing.json says mcp_server false', async () => {
      const res = await svc.http.post('/mcp', { auth: acct.apiKey, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'not_found');
      assert.ok(!svc.app.routeTable.some((r) => r.url === '/mcp'));
      const m = monetization(svc, acct);
      const feature = await m.feature();
      await m.activePlan({ price: 5, features: [{ id: feature.id }] });
      await setCatalogSettings(svc, acct, { slug: 'off-co' });
      const pricing = await svc.http.get('/public/v1/catalog/off-co/pricing.json');
      assert.equal(pricing.status, 200, pricing.text);
      assert.equal(pricing.body.integration.mcp_server, false);
    });
  });

  describe('when APP_MODULES_MONETIZATION_ENABLED=false', () => {
    test('when /mcp is called with a key then 404 module_disabled, and without one 401', async () => {
      const svc = await startTestService({ env: { APP_MODULES_MONETIZATION_ENABLED: 'false' } });
      try {
        const acct = await createTestAccount(svc);
        const res = await svc.http.post('/mcp', { auth: acct.apiKey, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error.code, 'module_disabled');
        assert.equal((await svc.http.post('/mcp', { body: {} })).status, 401);
      } finally {
        await svc.close();
      }
    });
  });

  describe('when APP_MCP_ADMIN_TOOLS_ENABLED=true', () => {
    let svc: TestService;
    let acct: Awaited<ReturnType<typeof createTestAccount>>;
    before(async () => {
      svc = await startTestService({ env: { APP_MCP_ADMIN_TOOLS_ENABLED: 'true' } });
      acct = await createTestAccount(svc);
    });
    after(() => svc.close());

    test('when a tenant key lists and calls admin tools then they are there and answer, while a customer key still sees its seven curated tools (getMyBudget added, agent v2 §2.8)', async () => {
      const m = monetization(svc, acct);
      const feature = await m.feature();
      await m.activePlan({ price: 5, features: [{ id: feature.id }] });
      const client = await mcpClient(svc, acct.apiKey);
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('adminListPlans') && names.includes('adminListFeatures'), names.join(','));
      const plans = await callTool(client, 'adminListPlans');
      assert.equal(plans.isError, false, plans.text);
      assert.deepEqual(plans.json, JSON.parse(JSON.stringify(await m.expectOk(m.admin('GET', '/plans')))));
      await client.close();
      await m.customer('dora');
      const key = (await m.expectOk(m.client('POST', '/customers/dora/keys', { scopes: ['read'] }), 201)).apiKey;
      const customer = await mcpClient(svc, key);
      const curated = (await customer.listTools()).tools.map((t) => t.name);
      assert.equal(curated.length, 7, curated.join(','));
      assert.ok(curated.includes('getMyBudget') && !curated.includes('adminListPlans'), curated.join(','));
      const denied = await callTool(customer, 'adminListPlans');
      assert.equal(denied.json.error.code, 'forbidden');
      await customer.close();
    });
  });
});
