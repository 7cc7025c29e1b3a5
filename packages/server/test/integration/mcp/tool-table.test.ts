import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { callTool, mcpClient } from './mcp-helpers.js';

/**
 * Tools that spend money or make a hard-to-reverse change (contract §8.2, §8.4 `*`; createSubscription
 * too, because a saved card is charged at once). Each must take confirmAction and refuse without it.
 */
const CONFIRM = new Set([
  'subscribePlan', 'purchaseCredits', 'createSubscription', 'cancelSubscription', 'changeSubscriptionPlan', 'markInvoicePaid',
  'adminUnlinkFeatureFromPlan', 'adminDeleteCreditModel', 'adminRemoveCreditAllocationFromPlan', 'adminDeductCredits', 'adminReverseTransaction',
  'adminUnlinkPoolFromSubscription', 'registerStripeApiKey', 'setupStripeIntegration',
]);

/** The §8.4 admin tools (flag). */
const ADMIN = [
  'adminListFeatures', 'adminCreateFeature', 'adminUpdateFeature', 'adminListPlans', 'adminGetPlanWithFeatures', 'adminCreatePlan', 'adminUpdatePlan',
  'adminGetFeatureRule', 'adminLinkFeatureToPlan', 'adminUpdateFeatureRule', 'adminUnlinkFeatureFromPlan', 'adminListCreditModels', 'adminGetCreditModel',
  'adminCreateCreditModel', 'adminDeleteCreditModel', 'adminAddCreditAllocationToPlan', 'adminListCreditAllocationsForPlan', 'adminRemoveCreditAllocationFromPlan',
  'adminListCreditPools', 'adminGetCreditPool', 'adminGetCreditPoolsByCustomer', 'adminCreateCreditPool', 'adminGrantCredits', 'adminGetPoolGrants',
  'adminDeductCredits', 'adminGetPoolTransactions', 'adminReverseTransaction', 'adminLinkPoolToSubscription', 'adminUnlinkPoolFromSubscription',
  'getEvents', 'getGroupedEvents', 'getStripeIntegrationStatus', 'registerStripeApiKey', 'setupStripeIntegration',
];

/** Processor-setup tools (§8.4, flag) with no Stripe data import behind them: a clear tool error. */
const PROCESSOR = ['discoverStripeData', 'importStripeData', 'getStripeImportStatus'];

/** Every listed tool, table-driven: schema, description, confirmAction, and bad input, with the admin flag on and off. */
describe('MCP tool table', () => {
  let on: TestService;
  let off: TestService;
  let client: Client;
  let offClient: Client;
  let tools: Tool[];

  before(async () => {
    on = await startTestService({ env: { APP_MCP_ADMIN_TOOLS_ENABLED: 'true' } });
    off = await startTestService();
    client = await mcpClient(on, (await createTestAccount(on)).apiKey);
    offClient = await mcpClient(off, (await createTestAccount(off)).apiKey);
    tools = (await client.listTools()).tools;
  });
  after(async () => {
    await client.close();
    await offClient.close();
    await on.close();
    await off.close();
  });

  test('when the tools are listed then each has an object input schema and a description saying what it does and costs', () => {
    const names = tools.map((t) => t.name);
    for (const name of ADMIN) assert.ok(names.includes(name), `${name} is listed with the flag on`);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.ok((t.description ?? '').length >= 30, `${t.name}: a description of what it does`);
      assert.match(t.description!, /free|spends nothing|charges no|money|bills/i, `${t.name}: its description says what it costs`);
      assert.equal(t.annotations?.destructiveHint, CONFIRM.has(t.name), `${t.name}: destructiveHint`);
    }
  });

  test('when a spending or hard-to-reverse tool is called without confirmAction then confirmation_required, and only those declare it', async () => {
    const declaring = tools.filter((t) => 'confirmAction' in (t.inputSchema.properties ?? {})).map((t) => t.name);
    assert.deepEqual(declaring.sort(), [...CONFIRM].sort());
    for (const name of declaring) {
      const schema = tools.find((t) => t.name === name)!.inputSchema;
      assert.ok(!(schema.required ?? []).includes('confirmAction'), `${name}: optional, so the SDK never refuses the call itself`);
      for (const args of [{}, { confirmAction: false }, { confirmAction: 'yes' }]) {
        const res = await callTool(client, name, args);
        assert.equal(res.isError, true, name);
        assert.equal(res.json.error.code, 'confirmation_required', `${name} ${JSON.stringify(args)}`);
      }
    }
  });

  test('when a tool with required inputs gets none then invalid_request naming a field', async () => {
    for (const t of tools.filter((x) => (x.inputSchema.required ?? []).length > 0)) {
      const res = await callTool(client, t.name, CONFIRM.has(t.name) ? { confirmAction: true } : {});
      assert.equal(res.isError, true, t.name);
      assert.equal(res.json.error.code, 'invalid_request', `${t.name}: ${res.text}`);
      assert.match(res.json.error.message, /^Validation failed: \w+/, t.name);
    }
  });

  test('when a Stripe data-import tool is called with the flag on then a clear tool error, and it is not listed', async () => {
    for (const name of PROCESSOR) {
      assert.ok(!tools.some((t) => t.name === name), name);
      const res = await callTool(client, name, { confirmAction: true });
      assert.equal(res.isError, true, name);
      assert.equal(res.json.error.code, 'not_found', name);
      assert.match(res.json.error.message, /^\w+ is not available on this install: there is no Stripe data import/, name);
    }
  });

  test('when the admin flag is off then no admin tool is listed and each answers admin_tools_disabled', async () => {
    const offNames = new Set((await offClient.listTools()).tools.map((t) => t.name));
    const adminOnly = tools.map((t) => t.name).filter((n) => !offNames.has(n));
    assert.deepEqual(adminOnly.sort(), [...ADMIN].sort());
    for (const name of [...adminOnly, ...PROCESSOR]) {
      const res = await callTool(offClient, name, { confirmAction: true });
      assert.equal(res.json.error.code, 'admin_tools_disabled', name);
    }
  });
});
