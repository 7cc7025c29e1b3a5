import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { callTool, mcpClient } from './mcp-helpers.js';

/** Plain JSON of a REST `data`, as the tool's text carries it. */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

/** The §8.4 tenant tools, group by group, against the REST routes that share their service functions. */
describe('MCP tenant tools', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let tenant: Client;
  let featureKey: string;
  let basicPlanId: string;
  let proPlanId: string;

  before(async () => {
    svc = await startTestService();
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    const feature = await m.feature();
    featureKey = feature.key;
    basicPlanId = (await m.activePlan({ price: 10, features: [{ id: feature.id, value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 0.5, max_usage: 100 } } }] })).id;
    proPlanId = (await m.activePlan({ price: 40, features: [{ id: feature.id }] })).id;
    for (const ref of ['t_a', 't_b']) {
      await m.customer(ref);
      await m.markPaid((await m.subscribe(ref, basicPlanId)).invoice.id);
    }
    tenant = await mcpClient(svc, acct.apiKey);
  });
  after(async () => {
    await tenant.close();
    await svc.close();
  });

  test('when the catalog tools are called then they are the REST feature list and feature', async () => {
    const list = await callTool(tenant, 'listFeatures');
    assert.equal(list.isError, false, list.text);
    assert.deepEqual(list.json, plain((await m.expectOk(m.client('GET', '/features?limit=200'))).items));
    assert.deepEqual(list.structured, { items: list.json });
    const one = await callTool(tenant, 'getFeature', { featureKey });
    assert.deepEqual(one.json, plain(await m.expectOk(m.client('GET', `/features/${featureKey}`))));
    assert.equal((await callTool(tenant, 'getFeature', { featureKey: 'no-such' })).json.error.code, 'not_found');
  });

  test('when evaluateEntitlement is called then it is POST /entitlements, limit simulation included', async () => {
    const res = await callTool(tenant, 'evaluateEntitlement', { customerReferenceId: 't_a', featureKey, requestedUsage: '150' });
    assert.equal(res.isError, false, res.text);
    const rest = await m.expectOk(m.client('POST', '/entitlements', { customerReferenceId: 't_a', featureKey, usage: { usageUnits: 150 } }));
    const { flowId, ...viaMcp } = res.json;
    const { flowId: _f, ...viaRest } = plain(rest);
    assert.deepEqual(viaMcp, viaRest);
    assert.match(flowId, /^[0-9a-f-]{36}$/);
    assert.equal(res.json.allowed, false);
    assert.equal(res.json.meta.reason.code, 'PROPOSED_USAGE_WOULD_EXCEED');
  });

  test('when ingestEvent gets its numbers as strings then the event is recorded as REST records it, costUnits ignored', async () => {
    const res = await callTool(tenant, 'ingestEvent', {
      eventIdempotencyKey: 'tt-1', eventName: 'api.call', occurredAt: '2026-01-01T00:00:00Z', customerReferenceId: 't_a', featureKey,
      usageUnits: '4', revenueAmount: '1.25', costAmount: '0.125', costUnits: '7', model: 'gpt-x', modelProvider: 'openai',
    });
    assert.equal(res.isError, false, res.text);
    const rest = await m.expectOk(m.client('POST', '/events', { eventIdempotencyKey: 'tt-2', eventName: 'api.call', customerReferenceId: 't_b', featureKey, usageUnits: 4, revenueAmount: 1.25, costAmount: 0.125 }), 201);
    assert.deepEqual(Object.keys(res.json).sort(), Object.keys(plain(rest)).sort());
    const events = await m.expectOk(svc.http.get(`/api/v1/tanso/events?customerReferenceId=t_a&limit=10`, { auth: acct.token }));
    const stored = events.items.find((e: any) => e.eventIdempotencyKey === 'tt-1');
    assert.equal(stored.usageUnits, 4);
    assert.equal(stored.revenueAmount, 1.25);
    assert.equal(stored.costAmount, 0.125);
    const bad = await callTool(tenant, 'ingestEvent', { eventIdempotencyKey: 'tt-3', eventName: 'api.call', customerReferenceId: 't_a', featureKey, usageUnits: 'four' });
    assert.equal(bad.json.error.code, 'invalid_request');
    assert.match(bad.json.error.message, /^Validation failed: usageUnits: /);
  });

  test('when a subscription tool is called without confirmAction then confirmation_required and nothing changes; confirmed, it acts as REST', async () => {
    await m.customer('t_c');
    for (const [name, args] of [
      ['createSubscription', { customerReferenceId: 't_c', planId: basicPlanId }],
      ['cancelSubscription', { subscriptionId: '00000000-0000-4000-8000-000000000000' }],
      ['changeSubscriptionPlan', { subscriptionId: '00000000-0000-4000-8000-000000000000', newPlanId: proPlanId, changeType: 'UPGRADE' }],
    ] as const) {
      const res = await callTool(tenant, name, args);
      assert.equal(res.json.error.code, 'confirmation_required', name);
    }
    assert.deepEqual((await m.expectOk(m.client('GET', '/customers/t_c'))).subscriptions, []);

    const created = await callTool(tenant, 'createSubscription', { customerReferenceId: 't_c', planId: basicPlanId, confirmAction: true });
    assert.equal(created.isError, false, created.text);
    assert.equal(created.json.subscription.status, 'PENDING_PAYMENT');
    assert.equal(created.json.invoice.status, 'DUE');
    assert.equal(created.json.invoice.amount, 10);
    await callTool(tenant, 'markInvoicePaid', { invoiceId: created.json.invoice.id, confirmAction: true });
    const subscriptionId = created.json.subscription.id;

    const changed = await callTool(tenant, 'changeSubscriptionPlan', { subscriptionId, newPlanId: proPlanId, changeType: 'DOWNGRADE', confirmAction: true });
    assert.equal(changed.isError, false, changed.text);
    assert.equal(changed.json.invoice, null, 'a downgrade charges nothing');
    const sub = plain(await m.expectOk(svc.http.get(`/api/v1/monetization/subscriptions/${subscriptionId}`, { auth: acct.token })));
    assert.deepEqual(changed.json.subscription, sub, 'the result is the subscription as REST shows it');
    assert.equal(sub.plan.id, basicPlanId, 'a downgrade waits for the period end');
    assert.equal(sub.scheduledChange.toPlan, proPlanId);

    const cancelled = await callTool(tenant, 'cancelSubscription', { subscriptionId, cancelMode: 'IMMEDIATE', confirmAction: true });
    assert.equal(cancelled.isError, false, cancelled.text);
    assert.deepEqual(cancelled.json, { subscriptionId, cancelMode: 'IMMEDIATE' });
    const ended = await m.expectOk(svc.http.get(`/api/v1/monetization/subscriptions/${subscriptionId}`, { auth: acct.token }));
    assert.equal(ended.status, 'CANCELLED');
    assert.match(svc.logs(), /"mcpTool":"cancelSubscription","keyHint":"sk_test_…[0-9a-f]{4}"[^\n]*"outcome":"ok"/);
  });

  test('when the credit reads are called then they are the REST pool, balance, grants and ledger pages', async () => {
    await m.creditModel({ denomination: 'tokens' });
    const customer = (await m.expectOk(m.admin('GET', '/customers'))).find((c: any) => c.customerReferenceId === 't_a');
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'main', denomination: 'tokens', customerId: customer.id }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: '12.5', grantType: 'PROMOTIONAL' }), 201);
    const base = `/credits/t_a/pools`;
    for (const [name, args, path] of [
      ['getCreditPools', { customerReferenceId: 't_a' }, `${base}?limit=200`],
      ['getCreditBalance', { customerReferenceId: 't_a', poolId: pool.id }, `${base}/${pool.id}`],
      ['getPoolGrants', { customerReferenceId: 't_a', poolId: pool.id }, `${base}/${pool.id}/grants?limit=200`],
      ['getPoolTransactions', { customerReferenceId: 't_a', poolId: pool.id }, `${base}/${pool.id}/transactions?limit=200`],
    ] as const) {
      const res = await callTool(tenant, name, args);
      assert.equal(res.isError, false, `${name}: ${res.text}`);
      assert.deepEqual(res.json, plain(await m.expectOk(m.client('GET', path))), name);
    }
    const balance = await callTool(tenant, 'getCreditBalance', { customerReferenceId: 't_a', poolId: pool.id });
    assert.match(balance.text, /"balance":12\.5\b/);
    const foreign = await callTool(tenant, 'getCreditBalance', { customerReferenceId: 't_b', poolId: pool.id });
    assert.equal(foreign.json.error.code, 'not_found');
  });
});
