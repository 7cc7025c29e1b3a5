import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { callTool, mcpClient } from './mcp-helpers.js';

const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

/** The §8.4 admin tools (APP_MCP_ADMIN_TOOLS_ENABLED=true), one story per group, checked against the Admin API. */
describe('MCP admin tools', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const res = await callTool(client, name, args);
    assert.equal(res.isError, false, `${name}: ${res.text}`);
    return res.json;
  };

  before(async () => {
    svc = await startTestService({ env: { APP_MCP_ADMIN_TOOLS_ENABLED: 'true' } });
    const acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    client = await mcpClient(svc, acct.apiKey);
  });
  after(async () => {
    await client.close();
    await svc.close();
  });

  test('when an operator builds a plan through the catalog tools then the Admin API shows the same plan, rule and features', async () => {
    const feature = await call('adminCreateFeature', { name: 'Search', key: 'search' });
    assert.deepEqual(plain(await m.expectOk(m.admin('GET', `/features/${feature.id}`))), feature);
    assert.equal((await call('adminUpdateFeature', { featureId: feature.id, description: 'Full-text search' })).description, 'Full-text search');
    const plan = await call('adminCreatePlan', { key: 'starter', name: 'Starter', priceAmount: '9.99', description: 'Entry plan', intervalMonths: 1 });
    assert.equal(plan.status, 'DRAFT');
    const badJson = await callTool(client, 'adminLinkFeatureToPlan', { planId: plan.id, featureId: feature.id, valueJson: '{not json' });
    assert.equal(badJson.json.error.code, 'invalid_request');
    assert.equal(badJson.json.error.message, 'Validation failed: valueJson: is not valid JSON');
    const rule = await call('adminLinkFeatureToPlan', {
      planId: plan.id, featureId: feature.id, valueJson: JSON.stringify({ pricing: { model: 'usage', usage_unit_type: 'queries', price_per_unit: 0.01, max_usage: 500 } }),
    });
    await call('adminUpdateFeatureRule', { planId: plan.id, featureId: feature.id, isEnabled: false });
    const viaTool = await call('adminGetFeatureRule', { planId: plan.id, featureId: feature.id });
    assert.deepEqual(viaTool, plain(await m.expectOk(m.admin('GET', `/rules/plan-features/${plan.id}/${feature.id}`))));
    assert.equal(viaTool.id, rule.id);
    assert.equal(viaTool.enabled, false);
    await call('adminUpdateFeatureRule', { planId: plan.id, featureId: feature.id, isEnabled: true });
    assert.equal((await call('adminUpdatePlan', { planId: plan.id, status: 'ACTIVE' })).status, 'ACTIVE');
    assert.deepEqual(await call('adminGetPlanWithFeatures', { planId: plan.id }), plain(await m.expectOk(m.admin('GET', `/plans/${plan.id}/features`))));
    assert.deepEqual(await call('adminListPlans'), plain(await m.expectOk(m.admin('GET', '/plans'))));
    const frozen = await callTool(client, 'adminUpdatePlan', { planId: plan.id, priceAmount: '1' });
    assert.equal(frozen.json.error.code, 'invalid_request', 'an ACTIVE plan keeps its price, as on REST');

    const unconfirmed = await callTool(client, 'adminUnlinkFeatureFromPlan', { planId: plan.id, featureId: feature.id });
    assert.equal(unconfirmed.json.error.code, 'confirmation_required');
    assert.equal((await m.admin('GET', `/rules/plan-features/${plan.id}/${feature.id}`)).status, 200, 'still linked');
  });

  test('when an operator manages credits through the credit tools then the ledger, the Admin API and the audit agree', async () => {
    const model = await call('adminCreateCreditModel', { name: 'Tokens', denomination: 'tokens' });
    assert.deepEqual(await call('adminGetCreditModel', { modelId: model.id }), model);
    assert.deepEqual(await call('adminListCreditModels'), plain(await m.expectOk(m.admin('GET', '/credits/models'))));
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 0, features: [{ id: feature.id }] });
    const allocation = await call('adminAddCreditAllocationToPlan', { modelId: model.id, planId: plan.id, creditAmount: '100', hardLimit: true });
    assert.equal(allocation.creditAmount, 100);
    assert.deepEqual(await call('adminListCreditAllocationsForPlan', { planId: plan.id }), plain(await m.expectOk(m.admin('GET', `/credits/plans/${plan.id}/allocations`))));

    const customer = await m.customer();
    const customerId = (await m.expectOk(m.admin('GET', '/customers'))).find((c: any) => c.customerReferenceId === customer.customerReferenceId).id;
    const pool = await call('adminCreateCreditPool', { name: 'side', denomination: 'tokens', customerId });
    const grant = await call('adminGrantCredits', { creditPoolId: pool.id, amount: '50.5', grantType: 'PROMOTIONAL', idempotencyKey: 'mcp-grant-1' });
    assert.equal(grant.amount, 50.5);
    assert.equal((await call('adminGrantCredits', { creditPoolId: pool.id, amount: '50.5', grantType: 'PROMOTIONAL', idempotencyKey: 'mcp-grant-1' })).id, grant.id, 'a replay is the first grant');

    const deduction = { creditPoolId: pool.id, amount: '20.25', description: 'manual' };
    assert.equal((await callTool(client, 'adminDeductCredits', deduction)).json.error.code, 'confirmation_required');
    assert.equal((await call('adminGetCreditPool', { poolId: pool.id })).balance, 50.5, 'nothing deducted without confirmation');
    const deducted = await call('adminDeductCredits', { ...deduction, confirmAction: true });
    assert.equal((await call('adminGetCreditPool', { poolId: pool.id })).balance, 30.25);
    await call('adminReverseTransaction', { transactionId: deducted.id, description: 'oops', confirmAction: true });
    const after = await call('adminGetCreditPool', { poolId: pool.id });
    assert.equal(after.balance, 50.5);
    assert.deepEqual(after, plain(await m.expectOk(m.admin('GET', `/credits/pools/${pool.id}`))));
    assert.deepEqual(await call('adminGetPoolGrants', { poolId: pool.id }), plain(await m.expectOk(m.admin('GET', `/credits/pools/${pool.id}/grants`))));
    assert.deepEqual(await call('adminGetPoolTransactions', { poolId: pool.id }), plain(await m.expectOk(m.admin('GET', `/credits/pools/${pool.id}/transactions`))));
    assert.deepEqual(await call('adminGetCreditPoolsByCustomer', { customerId }), plain(await m.expectOk(m.admin('GET', `/credits/pools/customer/${customerId}`))));
    assert.deepEqual(await call('adminListCreditPools'), plain(await m.expectOk(m.admin('GET', '/credits/pools'))));

    const sub = await m.subscribe(customer.customerReferenceId, plan.id);
    // Subscribing linked the customer's tokens pool (the plan allocates tokens): unlink it, then link it again with a limit.
    const unlink = { poolId: pool.id, subscriptionId: sub.subscription.id };
    assert.equal((await callTool(client, 'adminUnlinkPoolFromSubscription', unlink)).json.error.code, 'confirmation_required');
    await call('adminUnlinkPoolFromSubscription', { ...unlink, confirmAction: true });
    assert.equal((await m.admin('DELETE', `/credits/pools/${pool.id}/subscriptions/${sub.subscription.id}`)).status, 404, 'already unlinked');
    const link = await call('adminLinkPoolToSubscription', { ...unlink, drawPriority: 5, drawLimit: '10' });
    assert.deepEqual([link.drawPriority, link.drawLimit], [5, 10]);

    await call('adminRemoveCreditAllocationFromPlan', { modelId: model.id, planId: plan.id, confirmAction: true });
    assert.deepEqual(await call('adminListCreditAllocationsForPlan', { planId: plan.id }), []);
    await call('adminDeleteCreditModel', { modelId: model.id, confirmAction: true });
    assert.equal((await callTool(client, 'adminGetCreditModel', { modelId: model.id })).json.error.code, 'not_found');
    await m.audit();
    assert.match(svc.logs(), /"mcpTool":"adminDeductCredits","keyHint":"sk_test_…[0-9a-f]{4}"[^\n]*"outcome":"ok"/);
  });

  test('when events are read through getEvents and getGroupedEvents then the page is the Admin API page and the groups sum it exactly', async () => {
    const a = await m.feature();
    const b = await m.feature();
    await m.activePlan({ price: 0, key: 'ev-free', features: [{ id: a.id }, { id: b.id }] });
    await m.customer('ev_1');
    await m.subscribe('ev_1', 'ev-free');
    const send = async (key: string, featureKey: string, units: number, occurredAt: string) =>
      m.expectOk(m.event({ eventIdempotencyKey: key, customerReferenceId: 'ev_1', featureKey, usageUnits: units, costAmount: '0.1', occurredAt }), 201);
    await send('ev-1', a.key, 1.5, '2026-02-01T10:00:00Z');
    await send('ev-2', a.key, 2.25, '2026-02-01T23:59:59Z');
    await send('ev-3', b.key, 4, '2026-02-02T00:00:00Z');

    const page = await call('getEvents', { customerReferenceId: 'ev_1', limit: 2 });
    assert.deepEqual(page, plain(await m.expectOk(m.api('GET', '/api/v1/tanso/events?customerReferenceId=ev_1&limit=2'))));
    assert.equal(page.pagination.total, 3);

    const byFeature = await call('getGroupedEvents', { groupBy: 'feature', customerReferenceId: 'ev_1' });
    assert.equal(byFeature.truncated, false);
    assert.deepEqual(
      byFeature.items.map((g: any) => [g.key, g.eventCount, g.usageUnits, g.costAmount]).sort(),
      [[a.key, 2, 3.75, 0.2], [b.key, 1, 4, 0.1]].sort(),
    );
    const byDay = await call('getGroupedEvents', { groupBy: 'day', customerReferenceId: 'ev_1', eventType: 'CLIENT_TRACKED' });
    assert.deepEqual(byDay.items.map((g: any) => [g.key, g.eventCount]), [['2026-02-01', 2], ['2026-02-02', 1]]);
    const none = await call('getGroupedEvents', { groupBy: 'model', customerReferenceId: 'nobody' });
    assert.deepEqual(none.items, []);
    const bad = await callTool(client, 'getGroupedEvents', { groupBy: 'planet' });
    assert.equal(bad.json.error.code, 'invalid_request');
  });
});
