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
    assert.deepEqual(computeNextSteps('https://api.acme.example', 'agent_ab'), {
      base_url: 'https://api.acme.example',
      check_entitlement: 'https://api.acme.example/api/v1/client/entitlements/agent_ab/{featureKey}',
      record_usage: 'https://api.acme.example/api/v1/client/events',
      credit_balances: 'https://api.acme.example/api/v1/client/credits/agent_ab/pools',
      docs: 'https://api.acme.example/swagger-ui.html',
    });
  });
});
