import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agentCustomerReference, computeNextSteps, computeRetryAfterSeconds, isOverCap, signupWindowStart } from './domain.js';

const NOW = new Date('2026-03-10T12:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);

describe('agent signup rules', () => {
  test('when the window is computed then it is the hour before now', () => {
    assert.equal(signupWindowStart(NOW).toISOString(), '2026-03-10T11:00:00.000Z');
  });

  test('when signups reach the cap then the next is refused; below it passes', () => {
    assert.equal(isOverCap(9, 10), false);
    assert.equal(isOverCap(10, 10), true);
    assert.equal(isOverCap(11, 10), true, 'a lowered cap refuses too');
  });

  test('when Retry-After is computed then it is the seconds until the oldest signup ages out, rounded up, within 1..3600', () => {
    assert.equal(computeRetryAfterSeconds(ago(15 * 60_000), NOW), 45 * 60);
    assert.equal(computeRetryAfterSeconds(ago(15 * 60_000 + 500), NOW), 45 * 60, '2699.5 s rounds up to 2700');
    assert.equal(computeRetryAfterSeconds(ago(15 * 60_000 - 1), NOW), 45 * 60 + 1);
    assert.equal(computeRetryAfterSeconds(NOW, NOW), 3600);
    assert.equal(computeRetryAfterSeconds(ago(3_600_000 - 1), NOW), 1);
    assert.equal(computeRetryAfterSeconds(ago(3_600_000), NOW), 1, 'never 0');
  });

  test('when an agent customer is named then the reference is agent_ + the hex', () => {
    assert.equal(agentCustomerReference('0123456789abcdef0123456789abcdef'), 'agent_0123456789abcdef0123456789abcdef');
  });

  test('when next steps are built then the links hang off the base URL and {featureKey} stays literal', () => {
    const base = 'https://api.acme.example';
    const steps = computeNextSteps(base, 'agent_ab', 'acme', 'ai.chat');
    assert.deepEqual(steps, {
      base_url: base,
      check_entitlement: `${base}/api/v1/client/entitlements/agent_ab/{featureKey}`,
      record_usage: `${base}/api/v1/client/events`,
      credit_balances: `${base}/api/v1/client/credits/agent_ab/pools`,
      docs: `${base}/swagger-ui.html`,
      pricing: `${base}/public/v1/catalog/acme/pricing.json`,
      check_entitlement_template: `${base}/api/v1/client/entitlements/agent_ab/{featureKey}`,
      check_entitlement_example: `${base}/api/v1/client/entitlements/agent_ab/ai.chat`,
      usage_summary: `${base}/api/v1/client/customers/agent_ab/usage`,
      usage_history: `${base}/api/v1/client/customers/agent_ab/usage/history`,
      usage_events: `${base}/api/v1/client/customers/agent_ab/usage/events`,
      buy_credits: `${base}/api/v1/client/credits/purchases`,
      change_plan: `${base}/api/v1/client/subscriptions/{subscriptionId}/plan-change`,
      runbook: `${base}/agent-signup.md`,
    });
    assert.equal('check_entitlement_example' in computeNextSteps(base, 'agent_ab', 'acme', null), false, 'only when the plan has a feature');
  });
});
