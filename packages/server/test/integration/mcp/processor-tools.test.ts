import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { monetization } from '../../factories.js';
import { startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { createTestAccount, type TestService } from '../../harness.js';
import { callTool, mcpClient } from './mcp-helpers.js';

/** The §8.4 processor-setup tools (admin flag): the Admin API's connection functions over MCP, against the Stripe fake. */
describe('MCP processor-setup tools', () => {
  let svc: TestService;
  let close: () => Promise<void>;
  let client: Client;
  let m: ReturnType<typeof monetization>;

  before(async () => {
    const started = await startServiceWithStripe({ APP_MCP_ADMIN_TOOLS_ENABLED: 'true' });
    svc = started.svc;
    close = started.close;
    const acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    client = await mcpClient(svc, acct.apiKey);
  });
  after(async () => {
    await client.close();
    await close();
  });

  test('when an operator connects Stripe through the tools then the Admin API shows the same masked connection', async () => {
    let status = await callTool(client, 'getStripeIntegrationStatus');
    assert.equal(status.isError, false, status.text);
    assert.deepEqual(status.json, {}, 'nothing stored yet');

    const unconfirmed = await callTool(client, 'registerStripeApiKey', { stripeApiKey: 'sk_test_mcp0123456789' });
    assert.equal(unconfirmed.json.error.code, 'confirmation_required');
    assert.deepEqual((await callTool(client, 'getStripeIntegrationStatus')).json, {}, 'nothing stored without confirmAction');

    const refused = await callTool(client, 'registerStripeApiKey', { stripeApiKey: 'sk_test_revoked0000', confirmAction: true });
    assert.equal(refused.isError, true);
    assert.equal(refused.json.error.code, 'vendor_error');

    const stored = await callTool(client, 'registerStripeApiKey', { stripeApiKey: 'sk_test_mcp0123456789', confirmAction: true });
    assert.deepEqual(stored.json, { stored: true }, stored.text);
    const webhook = await callTool(client, 'setupStripeIntegration', { confirmAction: true });
    assert.deepEqual(webhook.json, { webhookRegistered: true }, webhook.text);

    status = await callTool(client, 'getStripeIntegrationStatus');
    const rest = await m.expectOk(m.api('GET', '/api/v1/data/stripe/api'));
    assert.deepEqual(status.json, rest);
    assert.ok(!status.text.includes('sk_test_mcp0123456789'), 'the key is only ever shown masked');
    assert.match(status.json.stripeApiKey, /^sk_t\*+6789$/);
    assert.ok(status.json.webhookSecret);
  });
});
