import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { createTestAccount, type TestService } from '../../harness.js';
import { callTool, mcpClient } from './mcp-helpers.js';

const STRIPE_KEY = 'sk_test_tallyMcpAccount000000003';

/** Money through MCP against the Stripe fake: the same outcomes and ledger entries as REST. */
describe('MCP spend tools with a payment processor', () => {
  let svc: TestService;
  let fake: StripeFake;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  let poolId: string;
  let paidPlanId: string;
  let secondPlanId: string;
  let purchaseKey: string;
  const ref = 'mcp-buyer';

  let close: () => Promise<void>;

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const feature = await m.feature();
    paidPlanId = (await m.activePlan({ price: 30, features: [{ id: feature.id }] })).id;
    secondPlanId = (await m.activePlan({ price: 12, features: [{ id: feature.id }] })).id;
    await m.creditModel({ denomination: 'credits' });
    const customer = await m.expectOk(m.admin('POST', '/customers', { customerReferenceId: ref, email: 'buyer@example.com' }), 201);
    poolId = (await m.expectOk(m.admin('POST', '/credits/pools', { name: 'wallet', denomination: 'credits', customerId: customer.id }), 201)).id;
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'credits', pricePerCredit: '0.01' }] }), 201);
    svc.clock.advanceMs(2000);
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    purchaseKey = (await m.expectOk(m.client('POST', `/customers/${ref}/keys`, { scopes: ['read', 'purchase'] }), 201)).apiKey;
  });
  after(() => close());

  test('when a customer key subscribes to a paid plan without a card then the result carries the checkout, as the REST 402 data', async () => {
    const client = await mcpClient(svc, purchaseKey);
    const res = await callTool(client, 'subscribePlan', { planId: paidPlanId, confirmAction: true });
    await client.close();
    assert.equal(res.isError, false, res.text);
    assert.equal(res.json.subscription.status, 'PENDING_PAYMENT');
    assert.match(res.json.checkoutUrl, /\/i\/in_/);
    // A retry through REST answers 402 with the same pending subscription and checkout.
    const rest = await svc.http.post('/api/v1/client/subscriptions', { auth: purchaseKey, body: { planId: paidPlanId } });
    assert.equal(rest.status, 402, rest.text);
    assert.deepEqual(res.json, rest.body.data);
  });

  test('when credits are bought with a saved card through MCP and through REST then both complete with the same amounts and one grant each', async () => {
    const intent = await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-intent`));
    fake.confirmSetupIntent(STRIPE_KEY, intent.setup_intent_id);
    await fake.deliverWebhooks();

    const client = await mcpClient(svc, purchaseKey);
    const viaMcp = await callTool(client, 'purchaseCredits', { creditPoolId: poolId, credits: 250.5, confirmAction: true });
    await client.close();
    assert.equal(viaMcp.isError, false, viaMcp.text);
    const viaRest = await svc.http.post('/api/v1/client/credits/purchases', { auth: purchaseKey, body: { creditPoolId: poolId, credits: 250.5 } });
    assert.equal(viaRest.status, 201, viaRest.text);
    const { grantId: _g1, paymentIntentId: _p1, ...mcpOutcome } = viaMcp.json;
    const { grantId: _g2, paymentIntentId: _p2, ...restOutcome } = viaRest.body.data;
    assert.deepEqual(mcpOutcome, restOutcome);
    assert.equal(viaMcp.json.completed, true);
    assert.match(viaMcp.text, /"amountCharged":2\.51\b/);
    await fake.deliverWebhooks();
    const grants = (await m.expectOk<any[]>(m.admin('GET', `/credits/pools/${poolId}/grants`))).filter((g) => g.grantType === 'PURCHASED');
    assert.equal(grants.length, 2);
    assert.deepEqual(grants.map((g) => g.amount), [250.5, 250.5]);
    assert.deepEqual(new Set(grants.map((g) => g.id)), new Set([viaMcp.json.grantId, viaRest.body.data.grantId]));
    await m.audit();
  });

  test('when a tenant key creates a subscription for a customer with a saved card then it charges at once, so it waits for confirmAction', async () => {
    const client = await mcpClient(svc, acct.apiKey);
    const unconfirmed = await callTool(client, 'createSubscription', { customerReferenceId: ref, planId: secondPlanId });
    assert.equal(unconfirmed.json.error.code, 'confirmation_required');
    const charged = await callTool(client, 'createSubscription', { customerReferenceId: ref, planId: secondPlanId, confirmAction: true });
    await client.close();
    assert.equal(charged.isError, false, charged.text);
    assert.equal(charged.json.invoice.status, 'PAID', 'the saved card paid the first invoice off-session');
    assert.equal(charged.json.subscription.status, 'ACTIVE');
    assert.match(svc.logs(), /"mcpTool":"createSubscription","keyHint":"sk_test_…[0-9a-f]{4}"[^\n]*"outcome":"ok"/);
  });
});
