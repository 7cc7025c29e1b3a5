import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dec } from '../../../platform/money.js';
import { enforcementFieldsOf, gatewayTargetsOf, maxBudgetDollarsOf, samePlan, type GatewayPlan } from './domain.js';

const now = new Date('2026-11-25T12:00:00Z');
const rule = (match_kind: 'WORKSPACE_ID' | 'API_KEY_ID' | 'ACTOR', match_value: string, provider: 'LITELLM' | 'OPENAI' = 'LITELLM') => ({ provider, match_kind, match_value });

describe('gateway enforcement rules', () => {
  test('targets: LiteLLM rules only, in the order given, each once; kind per match kind', () => {
    const targets = gatewayTargetsOf([rule('API_KEY_ID', 'hash-1'), rule('WORKSPACE_ID', 'proj', 'OPENAI'), rule('WORKSPACE_ID', 'backend'), rule('ACTOR', 'dana'), rule('API_KEY_ID', 'hash-1')]);
    assert.deepEqual(targets.map((t) => [t.kind, t.id, t.label]), [['key', 'hash-1', 'litellm:key:hash-1'], ['team', 'backend', 'litellm:team:backend'], ['user', 'dana', 'litellm:user:dana']]);
  });

  test('max_budget: BLOCK effective monthly ceiling ÷ 100 exactly; ALERT, no monthly ceiling or no budget → null', () => {
    const block = { monthlyMode: 'BLOCK' as const, monthlyCents: dec(12345), bumpMonthlyCents: null, bumpExpiresAt: null };
    assert.equal(maxBudgetDollarsOf(block, now)!.toFixed(), '123.45');
    assert.equal(maxBudgetDollarsOf({ ...block, monthlyCents: dec('0.01') }, now)!.toFixed(), '0.0001');
    assert.equal(maxBudgetDollarsOf({ ...block, monthlyCents: dec('99999999999999.9999999999') }, now)!.toFixed(), '999999999999.999999999999', 'the largest ceiling stays exact');
    assert.equal(maxBudgetDollarsOf({ ...block, bumpMonthlyCents: dec(20000), bumpExpiresAt: new Date('2026-11-25T12:00:01Z') }, now)!.toFixed(), '200', 'the bump while it lasts');
    assert.equal(maxBudgetDollarsOf({ ...block, bumpMonthlyCents: dec(20000), bumpExpiresAt: now }, now)!.toFixed(), '123.45', 'an expired bump no longer counts');
    assert.equal(maxBudgetDollarsOf({ ...block, monthlyMode: 'ALERT' }, now), null);
    assert.equal(maxBudgetDollarsOf({ ...block, monthlyCents: null }, now), null);
    assert.equal(maxBudgetDollarsOf(null, now), null);
  });

  test('recorded fields: the first target on success with a limit, all cleared with null, the first failure (labelled when several) otherwise', () => {
    const targets = gatewayTargetsOf([rule('WORKSPACE_ID', 'backend'), rule('ACTOR', 'dana')]);
    const plan: GatewayPlan = { connectionId: 'c', targets, maxBudgetDollars: dec(5) };
    assert.deepEqual(enforcementFieldsOf(plan, [], now), { enforcement_target: 'litellm:team:backend', enforced_at: now, enforcement_error: null });
    assert.deepEqual(enforcementFieldsOf({ ...plan, maxBudgetDollars: null }, [], now), { enforcement_target: null, enforced_at: null, enforcement_error: null });
    assert.deepEqual(enforcementFieldsOf(plan, [{ target: targets[1]!, message: 'nope' }], now), { enforcement_target: null, enforcement_error: 'litellm:user:dana: nope' });
    assert.deepEqual(enforcementFieldsOf({ ...plan, targets: [targets[0]!] }, [{ target: targets[0]!, message: 'nope' }], now), { enforcement_target: null, enforcement_error: 'nope' });
  });

  test('samePlan compares connection, exact amount and targets', () => {
    const targets = gatewayTargetsOf([rule('WORKSPACE_ID', 'backend')]);
    const plan: GatewayPlan = { connectionId: 'c', targets, maxBudgetDollars: dec('1.50') };
    assert.ok(samePlan(plan, { ...plan, maxBudgetDollars: dec('1.5') }));
    assert.ok(!samePlan(plan, { ...plan, maxBudgetDollars: null }));
    assert.ok(!samePlan(plan, { ...plan, connectionId: 'd' }));
    assert.ok(!samePlan(plan, { ...plan, targets: [] }));
  });
});
