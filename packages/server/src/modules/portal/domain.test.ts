import assert from 'node:assert/strict';
import { test } from 'node:test';
import { computePortalExpiry, computePortalScopes, computePortalUrl, isHttpUrl, toPortalPermissions } from './domain.js';

test('when no flag is set then the session reads only', () => {
  assert.deepEqual(computePortalScopes({}), ['read']);
  assert.deepEqual(computePortalScopes({ allowPurchase: false, allowCancel: false }), ['read']);
  assert.deepEqual(computePortalScopes({ allowPurchase: true }), ['read', 'purchase']);
});

test('when flags are set then read comes first and the scopes follow in the contract order, whatever the order asked', () => {
  assert.deepEqual(computePortalScopes({ allowAutoTopup: true, allowCancel: true, allowPlanChange: true, allowPurchase: true }), ['read', 'purchase', 'plan_change', 'cancel', 'auto_topup']);
  assert.deepEqual(computePortalScopes({ allowAutoTopup: true, allowPlanChange: true }), ['read', 'plan_change', 'auto_topup']);
});

test('when a session is shown then each flag is read back from its scopes', () => {
  assert.deepEqual(toPortalPermissions(['read', 'cancel']), { allowPurchase: false, allowPlanChange: false, allowCancel: true, allowAutoTopup: false });
});

test('when no lifetime is asked then the session ends one hour after it starts', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  assert.equal(computePortalExpiry(now, undefined).toISOString(), '2026-03-10T13:00:00.000Z');
  assert.equal(computePortalExpiry(now, 60).toISOString(), '2026-03-10T12:01:00.000Z');
});

test('when the link is built then the token and the customer reference travel in the fragment of /portal', () => {
  assert.equal(computePortalUrl('https://billing.example', 'pt_test_x', 'acme'), 'https://billing.example/portal#token=pt_test_x&customer=acme');
  assert.equal(computePortalUrl('https://billing.example', 'pt_test_x', 'a&b c/é'), 'https://billing.example/portal#token=pt_test_x&customer=a%26b+c%2F%C3%A9');
});

test('when a return URL is not absolute http(s) then it is refused', () => {
  assert.equal(isHttpUrl('https://app.example/account'), true);
  assert.equal(isHttpUrl('http://localhost:3000/'), true);
  for (const bad of ['javascript:alert(1)', 'data:text/html,x', '/relative', 'ftp://x.example/', 'not a url']) assert.equal(isHttpUrl(bad), false, bad);
});
