import assert from 'node:assert/strict';
import { test } from 'node:test';
import { activationProblems, checkPlanTransition, type ActivationProblem } from './domain.js';

/** The contract's 400 message: the first unmet precondition's, or null when the plan may activate. */
const firstMessage = (problems: ActivationProblem[]) => problems[0]?.message ?? null;
import type { PlanRow } from './repo.js';

const plan = (overrides: Partial<PlanRow> = {}): PlanRow =>
  ({
    id: 'p',
    account_id: 'a',
    key: 'pro',
    name: 'Pro',
    description: 'For teams',
    price_amount: '30.00',
    currency: 'USD',
    interval_months: 1,
    billing_timing: 'IN_ADVANCE',
    status: 'DRAFT',
    metadata: {},
    created_at: new Date(0),
    modified_at: new Date(0),
    ...overrides,
  }) as PlanRow;

test('when a plan status changes then DRAFT → ACTIVE ⇄ ARCHIVED is allowed and nothing else', () => {
  assert.equal(checkPlanTransition('DRAFT', 'ACTIVE'), null);
  assert.equal(checkPlanTransition('ACTIVE', 'ARCHIVED'), null);
  assert.equal(checkPlanTransition('ARCHIVED', 'ACTIVE'), null);
  assert.equal(checkPlanTransition('ACTIVE', 'ACTIVE'), null, 'staying put is no transition');
  assert.equal(checkPlanTransition('DRAFT', 'ARCHIVED'), 'Cannot transition plan from DRAFT to ARCHIVED');
  assert.equal(checkPlanTransition('ACTIVE', 'DRAFT'), 'Cannot transition plan from ACTIVE to DRAFT');
  assert.equal(checkPlanTransition('ARCHIVED', 'DRAFT'), 'Cannot transition plan from ARCHIVED to DRAFT');
  assert.equal(checkPlanTransition('DRAFT', 'LIVE'), 'Invalid plan status: LIVE. Valid values: DRAFT, ACTIVE, ARCHIVED');
});

test('when activating then the preconditions fail in the contract order: name, description, interval, price, features', () => {
  assert.equal(firstMessage(activationProblems(plan(), 1)), null);
  const bare = plan({ name: ' ', description: null, interval_months: null, price_amount: null });
  assert.equal(firstMessage(activationProblems(bare, 0)), 'Plan must have a name before activation');
  assert.equal(firstMessage(activationProblems({ ...bare, name: 'x' }, 0)), 'Plan must have a description before activation');
  assert.equal(firstMessage(activationProblems({ ...bare, name: 'x', description: 'd' }, 0)), 'Plan must have a positive intervalMonths before activation');
  assert.equal(firstMessage(activationProblems({ ...bare, name: 'x', description: 'd', interval_months: 1 }, 0)), 'Plan must have a priceAmount before activation');
  assert.equal(firstMessage(activationProblems(plan({ price_amount: '0' }), 0)), 'Plan must have at least one linked feature before activation');
  assert.equal(firstMessage(activationProblems(plan({ price_amount: '0' }), 1)), null, 'a free plan may activate');
});

test('when a bare plan is activated then every unmet precondition is listed, in the contract order', () => {
  const bare = plan({ name: ' ', description: null, interval_months: 0, price_amount: null });
  assert.deepEqual(activationProblems(bare, 0).map((p) => p.field), ['name', 'description', 'intervalMonths', 'priceAmount', 'features']);
  assert.deepEqual(activationProblems({ ...bare, name: 'x', interval_months: 3 }, 2).map((p) => p.field), ['description', 'priceAmount']);
  assert.deepEqual(activationProblems(plan(), 1), []);
});
