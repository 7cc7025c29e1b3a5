import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUniqueViolation, UNIQUE_CONSTRAINTS, uniqueViolationOf } from './errors.js';

test('when PostgreSQL names the constraint then it is the one matched', () => {
  const err = { code: '23505', constraint: 'usage_event_keys_pkey', message: 'duplicate key value violates unique constraint "usage_event_keys_pkey"' };
  assert.equal(isUniqueViolation(err, UNIQUE_CONSTRAINTS.usageEventKey), true);
  assert.equal(isUniqueViolation(err, UNIQUE_CONSTRAINTS.planKey), false);
});

test("when Citus relays a shard's violation without the constraint field then the shard id is taken off Tally's name", () => {
  const err = { code: '23505', message: 'duplicate key value violates unique constraint "usage_event_keys_pkey_102345"' };
  assert.deepEqual(uniqueViolationOf(err), { constraint: 'usage_event_keys_pkey' });
  assert.equal(isUniqueViolation(err, UNIQUE_CONSTRAINTS.usageEventKey), true);
});

test('when the message names no constraint of Tally then the violation has no name, and other errors are not violations', () => {
  assert.deepEqual(uniqueViolationOf({ code: '23505', message: 'duplicate key value violates unique constraint "other_thing_12"' }), { constraint: null });
  assert.deepEqual(uniqueViolationOf({ code: '23505', message: 'doppelter Schlüsselwert verletzt Unique-Constraint' }), { constraint: null });
  assert.equal(uniqueViolationOf({ code: '23503', message: 'duplicate key value violates unique constraint "usage_event_keys_pkey_1"' }), null);
});

test('when Citus relays a violation inside a multi-CTE statement as XX000 then it is still the named violation, and any other XX000 is not one', () => {
  const err = { code: 'XX000', message: 'duplicate key value violates unique constraint "usage_event_keys_pkey_102823"' };
  assert.equal(isUniqueViolation(err, UNIQUE_CONSTRAINTS.usageEventKey), true);
  assert.equal(uniqueViolationOf({ code: 'XX000', message: 'could not connect to worker' }), null);
  assert.equal(uniqueViolationOf({ code: 'XX000', message: 'duplicate key value violates unique constraint "other_thing_12"' }), null);
});

test('when Citus cut a long constraint name to fit its shard id then the name is recognised by its prefix', () => {
  const err = { code: '23505', message: 'duplicate key value violates unique constraint "plan_credit_allocations_account_id_plan_id_cred_5d8c2b1a_102400"' };
  assert.equal(isUniqueViolation(err, UNIQUE_CONSTRAINTS.planCreditAllocation), true);
});
