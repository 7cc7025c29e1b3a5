import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operatorAccessOf, roleAllows } from './operator-access.js';

test('when a route is read then every role may, except the users routes which are the owner\'s', () => {
  assert.equal(operatorAccessOf('GET', '/api/v1/monetization/plans'), 'read');
  assert.equal(operatorAccessOf('GET', '/api/v1/users'), 'owner');
  for (const role of ['OWNER', 'ADMIN', 'BILLING', 'VIEWER'] as const) assert.ok(roleAllows(role, 'read'));
});

test('when a write is classified then billing gets money, admin the catalog and keys, unknown patterns need the owner', () => {
  assert.equal(operatorAccessOf('POST', '/api/v1/monetization/customers'), 'billing');
  assert.equal(operatorAccessOf('POST', '/api/v1/monetization/credits/grants'), 'billing');
  assert.equal(operatorAccessOf('POST', '/api/v1/monetization/credits/models'), 'admin');
  assert.equal(operatorAccessOf('POST', '/api/v1/monetization/plans'), 'admin');
  assert.equal(operatorAccessOf('POST', '/api/v1/client/customers/:ref/keys'), 'admin');
  assert.equal(operatorAccessOf('POST', '/api/v1/client/subscriptions'), 'billing');
  assert.equal(operatorAccessOf('POST', '/api/v1/spend/budgets/evaluate'), 'read');
  assert.equal(operatorAccessOf('POST', '/api/v1/somewhere/new'), 'owner');
  assert.ok(!roleAllows('BILLING', 'admin'));
  assert.ok(roleAllows('ADMIN', 'billing'));
  assert.ok(!roleAllows('ADMIN', 'owner'));
  assert.ok(!roleAllows('VIEWER', 'billing'));
});
