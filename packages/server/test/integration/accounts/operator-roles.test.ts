import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

type Access = 'read' | 'billing' | 'admin' | 'owner';
type Role = 'OWNER' | 'ADMIN' | 'BILLING' | 'VIEWER';

/**
 * Issue 32 item 4 (ADR 0034), route by route: the access an operator's role needs on every Admin API
 * route and on every Client API route a console session may call. A route added fails this test
 * until it is classified here, so what a role may do changes only deliberately.
 */
const EXPECTED: Record<string, Access> = {
  'GET /api/v1/session': 'read',
  'DELETE /api/v1/session': 'read',
  'GET /api/v1/account/api-key': 'read',
  'POST /api/v1/account/api-key': 'admin',
  'POST /api/v1/account/change-password': 'read',
  'GET /api/v1/users': 'owner',
  'POST /api/v1/users': 'owner',
  'PATCH /api/v1/users/:userId': 'owner',
  'GET /api/v1/tanso/account-settings': 'read',
  'PATCH /api/v1/tanso/account-settings': 'admin',
  'GET /api/v1/tanso/audit-log': 'read',
  'POST /api/v1/monetization/features': 'admin',
  'GET /api/v1/monetization/features': 'read',
  'GET /api/v1/monetization/features/:id': 'read',
  'PATCH /api/v1/monetization/features/:id': 'admin',
  'DELETE /api/v1/monetization/features/:id': 'admin',
  'POST /api/v1/monetization/plans': 'admin',
  'GET /api/v1/monetization/plans': 'read',
  'GET /api/v1/monetization/plans/:id': 'read',
  'GET /api/v1/monetization/plans/:id/features': 'read',
  'PATCH /api/v1/monetization/plans/:id': 'admin',
  'DELETE /api/v1/monetization/plans/:id': 'admin',
  'POST /api/v1/monetization/rules/plan-features': 'admin',
  'PATCH /api/v1/monetization/rules/plan-features': 'admin',
  'GET /api/v1/monetization/rules/plan-features/:planId/:featureId': 'read',
  'DELETE /api/v1/monetization/rules/plan-features/:planId/:featureId': 'admin',
  'GET /api/v1/client/plans': 'read',
  'GET /api/v1/client/features': 'read',
  'GET /api/v1/client/features/:featureKey': 'read',
  'POST /api/v1/monetization/customers': 'billing',
  'GET /api/v1/monetization/customers': 'read',
  'GET /api/v1/monetization/customers/:id': 'read',
  'PATCH /api/v1/monetization/customers/:id': 'billing',
  'POST /api/v1/client/customers': 'billing',
  'GET /api/v1/client/customers': 'read',
  'GET /api/v1/client/customers/:ref': 'read',
  'PATCH /api/v1/client/customers/:ref': 'billing',
  'GET /api/v1/client/customers/:ref/status': 'read',
  'PUT /api/v1/client/customers/:ref/owner': 'billing',
  'POST /api/v1/client/customers/:ref/spend-mandate': 'billing',
  'GET /api/v1/monetization/billing/invoices': 'read',
  'GET /api/v1/monetization/billing/invoices/:invoiceId': 'read',
  'GET /api/v1/monetization/billing/invoices/:invoiceId/pdf': 'read',
  'PATCH /api/v1/monetization/billing/invoices/:invoiceId': 'billing',
  'GET /api/v1/monetization/billing/overview': 'read',
  'GET /api/v1/monetization/subscriptions/:subscriptionId': 'read',
  'POST /api/v1/client/subscriptions': 'billing',
  'POST /api/v1/client/subscriptions/cancellation/:subscriptionId': 'billing',
  'DELETE /api/v1/client/subscriptions/cancellation/:subscriptionId/scheduled': 'billing',
  'POST /api/v1/client/subscriptions/:subscriptionId/plan-change': 'billing',
  'POST /api/v1/client/subscriptions/:subscriptionId/plan-change/preview': 'billing',
  'DELETE /api/v1/client/subscriptions/:subscriptionId/plan-change/scheduled': 'billing',
  'GET /api/v1/client/billing/invoices/:ref': 'read',
  'GET /api/v1/client/billing/invoices/:invoiceId/pdf': 'read',
  'POST /api/v1/client/billing/invoices/:invoiceId/mark-paid': 'billing',
  'GET /api/v1/tanso/events': 'read',
  'GET /api/v1/tanso/customers/:ref/usage': 'read',
  'GET /api/v1/tanso/customers/:ref/entitlements': 'read',
  'GET /api/v1/tanso/events/grouped': 'read',
  'GET /api/v1/tanso/events/overview': 'read',
  'GET /api/v1/client/entitlements/:ref': 'read',
  'GET /api/v1/client/entitlements/:ref/:featureKey': 'read',
  'POST /api/v1/client/entitlements': 'billing',
  'POST /api/v1/client/events': 'admin',
  'POST /api/v1/client/events/batch': 'admin',
  'GET /api/v1/client/customers/:ref/usage': 'read',
  'GET /api/v1/client/customers/:ref/usage/events': 'read',
  'GET /api/v1/client/customers/:ref/usage/history': 'read',
  'POST /api/v1/monetization/credits/weights/publish': 'admin',
  'GET /api/v1/monetization/credits/weights': 'read',
  'GET /api/v1/monetization/credits/weights/history': 'read',
  'DELETE /api/v1/monetization/credits/weights/:id': 'admin',
  'POST /api/v1/monetization/credits/prices/publish': 'admin',
  'GET /api/v1/monetization/credits/prices': 'read',
  'GET /api/v1/monetization/credits/prices/history': 'read',
  'DELETE /api/v1/monetization/credits/prices/:id': 'admin',
  'GET /api/v1/client/credits/prices': 'read',
  'POST /api/v1/monetization/credits/models': 'admin',
  'GET /api/v1/monetization/credits/models': 'read',
  'GET /api/v1/monetization/credits/models/:modelId': 'read',
  'DELETE /api/v1/monetization/credits/models/:modelId': 'admin',
  'POST /api/v1/monetization/credits/models/:modelId/plans/:planId': 'admin',
  'GET /api/v1/monetization/credits/plans/:planId/allocations': 'read',
  'DELETE /api/v1/monetization/credits/models/:modelId/plans/:planId': 'admin',
  'POST /api/v1/monetization/credits/pools': 'billing',
  'GET /api/v1/monetization/credits/pools': 'read',
  'GET /api/v1/monetization/credits/pools/:poolId': 'read',
  'PATCH /api/v1/monetization/credits/pools/:poolId': 'billing',
  'GET /api/v1/monetization/credits/pools/customer/:customerId': 'read',
  'POST /api/v1/monetization/credits/pools/:poolId/subscriptions/:subscriptionId': 'billing',
  'DELETE /api/v1/monetization/credits/pools/:poolId/subscriptions/:subscriptionId': 'billing',
  'GET /api/v1/monetization/credits/pools/:poolId/grants': 'read',
  'GET /api/v1/monetization/credits/pools/:poolId/subscriptions': 'read',
  'GET /api/v1/monetization/credits/pools/:poolId/transactions': 'read',
  'POST /api/v1/monetization/credits/grants': 'billing',
  'POST /api/v1/monetization/credits/deductions': 'billing',
  'POST /api/v1/monetization/credits/transactions/:transactionId/reverse': 'billing',
  'GET /api/v1/monetization/credits/audit': 'read',
  'POST /api/v1/client/credits/reservations': 'billing',
  'GET /api/v1/client/credits/reservations/:reservationId': 'read',
  'POST /api/v1/client/credits/reservations/:reservationId/capture': 'billing',
  'POST /api/v1/client/credits/reservations/:reservationId/release': 'billing',
  'GET /api/v1/client/credits/:ref/pools': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/grants': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/transactions': 'read',
  'POST /api/v1/client/customers/:ref/keys': 'admin',
  'GET /api/v1/client/customers/:ref/keys': 'read',
  'POST /api/v1/client/customers/:ref/keys/:keyId/rotate': 'admin',
  'DELETE /api/v1/client/customers/:ref/keys/:keyId': 'admin',
  'POST /api/v1/tanso/customers/:customerId/keys': 'admin',
  'GET /api/v1/tanso/customers/:customerId/keys': 'read',
  'POST /api/v1/tanso/customers/:customerId/keys/:keyId/rotate': 'admin',
  'DELETE /api/v1/tanso/customers/:customerId/keys/:keyId': 'admin',
  'PUT /api/v1/client/customers/:ref/keys/:keyId/budget': 'admin',
  'GET /api/v1/client/customers/:ref/keys/:keyId/budget': 'read',
  'DELETE /api/v1/client/customers/:ref/keys/:keyId/budget': 'admin',
  'PUT /api/v1/tanso/customers/:customerId/keys/:keyId/budget': 'admin',
  'GET /api/v1/tanso/customers/:customerId/keys/:keyId/budget': 'read',
  'DELETE /api/v1/tanso/customers/:customerId/keys/:keyId/budget': 'admin',
  'POST /api/v1/client/customers/:ref/portal-sessions': 'billing',
  'GET /api/v1/client/customers/:ref/portal-sessions': 'read',
  'DELETE /api/v1/client/customers/:ref/portal-sessions/:sessionId': 'billing',
  'GET /api/v1/client/portal/session': 'read',
  'POST /api/v1/data/stripe/api': 'admin',
  'GET /api/v1/data/stripe/api': 'read',
  'DELETE /api/v1/data/stripe/api': 'admin',
  'GET /api/v1/data/stripe/checkout-sessions': 'read',
  'POST /api/v1/data/stripe/webhook/register': 'admin',
  'POST /api/v1/client/customers/:ref/payment-methods/setup-intent': 'billing',
  'POST /api/v1/client/customers/:ref/payment-methods/default': 'billing',
  'POST /api/v1/client/customers/:ref/payment-methods/setup-checkout': 'billing',
  'GET /api/v1/client/customers/:ref/payment-methods/default': 'read',
  'GET /api/v1/client/checkout-sessions/:checkoutSessionId': 'read',
  'POST /api/v1/client/credits/purchases': 'billing',
  'GET /api/v1/client/credits/:ref/pools/:poolId/auto-topup': 'read',
  'PUT /api/v1/client/credits/:ref/pools/:poolId/auto-topup': 'billing',
  'DELETE /api/v1/client/credits/:ref/pools/:poolId/auto-topup': 'billing',
  'GET /api/v1/client/credits/:ref/pools/:poolId/auto-topup/attempts': 'read',
  'POST /api/v1/client/billing/subscriptions/:subscriptionId/stripe/checkout': 'billing',
  'POST /api/v1/client/billing/invoices/subscription/:subscriptionId/stripe/checkout': 'billing',
  'GET /api/v1/spend/connections': 'read',
  'GET /api/v1/spend/connections/:id': 'read',
  'POST /api/v1/spend/connections': 'admin',
  'POST /api/v1/spend/connections/:id/probe': 'admin',
  'POST /api/v1/spend/connections/:id/sync': 'admin',
  'PUT /api/v1/spend/connections/:id/key': 'admin',
  'DELETE /api/v1/spend/connections/:id': 'admin',
  'GET /api/v1/spend/settings': 'read',
  'PUT /api/v1/spend/settings': 'admin',
  'GET /api/v1/spend/reports/usage': 'read',
  'GET /api/v1/spend/reports/reconcile': 'read',
  'GET /api/v1/spend/reports/models': 'read',
  'GET /api/v1/spend/prices': 'read',
  'POST /api/v1/spend/prices': 'admin',
  'DELETE /api/v1/spend/prices/:id': 'admin',
  'POST /api/v1/spend/invoices': 'admin',
  'GET /api/v1/spend/invoices': 'read',
  'DELETE /api/v1/spend/invoices/:id': 'admin',
  'GET /api/v1/spend/units': 'read',
  'POST /api/v1/spend/units': 'admin',
  'PUT /api/v1/spend/units/:id': 'admin',
  'DELETE /api/v1/spend/units/:id': 'admin',
  'GET /api/v1/spend/rules': 'read',
  'POST /api/v1/spend/rules': 'admin',
  'DELETE /api/v1/spend/rules/:id': 'admin',
  'GET /api/v1/spend/outcomes': 'read',
  'POST /api/v1/spend/outcomes': 'admin',
  'POST /api/v1/client/outcomes': 'admin',
  'POST /api/v1/spend/deliveries/test': 'admin',
  'GET /api/v1/spend/deliveries': 'read',
  'GET /api/v1/spend/reports/allocation': 'read',
  'GET /api/v1/spend/reports/margin': 'read',
  'GET /api/v1/spend/units/:id/budget': 'read',
  'PUT /api/v1/spend/units/:id/budget': 'admin',
  'DELETE /api/v1/spend/units/:id/budget': 'admin',
  'POST /api/v1/spend/units/:id/budget/bump': 'admin',
  'DELETE /api/v1/spend/units/:id/budget/bump': 'admin',
  'POST /api/v1/spend/budgets/evaluate': 'read',
  'GET /api/v1/spend/alerts': 'read',
  'POST /api/v1/spend/alerts/:id/ack': 'admin',
  'GET /api/v1/spend/digest': 'read',
  'POST /api/v1/spend/digest/send': 'admin',
  'GET /api/v1/spend/outcome-sources': 'read',
  'POST /api/v1/spend/outcome-sources': 'admin',
  'POST /api/v1/spend/outcome-sources/:id/probe': 'admin',
  'POST /api/v1/spend/outcome-sources/:id/sync': 'admin',
  'DELETE /api/v1/spend/outcome-sources/:id': 'admin',
  'GET /api/v1/spend/reports/outcomes': 'read',
  'GET /api/v1/spend/reports/savings': 'read',
  'POST /api/v1/spend/reports/simulate': 'read',
  'GET /api/v1/spend/reports/pnl': 'read',
  'POST /api/v1/webhooks/endpoints': 'admin',
  'GET /api/v1/webhooks/endpoints': 'read',
  'GET /api/v1/webhooks/endpoints/:endpointId': 'read',
  'PATCH /api/v1/webhooks/endpoints/:endpointId': 'admin',
  'DELETE /api/v1/webhooks/endpoints/:endpointId': 'admin',
  'POST /api/v1/webhooks/endpoints/:endpointId/rotate-secret': 'admin',
  'POST /api/v1/webhooks/endpoints/:endpointId/test': 'admin',
  'POST /api/v1/webhooks/endpoints/:endpointId/events/:eventId/resend': 'admin',
  'GET /api/v1/webhooks/events': 'read',
  'GET /api/v1/webhooks/events/:eventId': 'read',
  'GET /api/v1/webhooks/deliveries': 'read',
  'GET /api/v1/webhooks/deliveries/:deliveryId': 'read',
};

const GRANTS: Record<Role, Access[]> = {
  OWNER: ['read', 'billing', 'admin', 'owner'],
  ADMIN: ['read', 'billing', 'admin'],
  BILLING: ['read', 'billing'],
  VIEWER: ['read'],
};
const ROLES = Object.keys(GRANTS) as Role[];

describe('operator roles on every route (issue 32, ADR 0034)', () => {
  let svc: TestService;
  let routes: { method: string; url: string; access: Access }[];
  const sessions = {} as Record<Role, { cookie: string; csrf: string; token: string }>;

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    for (const role of ROLES) {
      let username = account.username;
      let password = account.password;
      if (role !== 'OWNER') {
        const invited = await svc.http.post('/api/v1/users', { auth: account.token, body: { username: `${role.toLowerCase()}-${randomUUID().slice(0, 8)}`, role } });
        assert.equal(invited.status, 201, invited.text);
        username = invited.body.data.user.username;
        password = invited.body.data.password;
      }
      const signIn = await svc.http.post('/public/v1/sessions', { body: { username, password } });
      assert.equal(signIn.status, 200, signIn.text);
      const cookie = /^(tally_session=[^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1]!;
      const login = await svc.http.post('/public/v1/login', { body: { username, password } });
      sessions[role] = { cookie, csrf: signIn.body.data.csrfToken, token: login.body.data.token };
    }
    routes = svc.app.routeTable.filter((r) => r.operatorAccess !== null).map((r) => ({ method: r.method, url: r.url, access: r.operatorAccess as Access }));
  });
  after(() => svc.close());

  /** Calls a route as the role's console session, path parameters filled with values that exist nowhere. */
  function call(role: Role, method: string, url: string, via: 'cookie' | 'bearer' = 'cookie') {
    const path = url.replace(/:(\w+)/g, (_m, name: string) => (['ref', 'featureKey', 'slug'].includes(name) ? `no-such-${name}` : randomUUID()));
    const s = sessions[role];
    const headers: Record<string, string> = via === 'cookie' ? { cookie: s.cookie, 'x-csrf-token': s.csrf } : { authorization: `Bearer ${s.token}` };
    return svc.http.request(method, path, { headers, ...(['POST', 'PUT', 'PATCH'].includes(method) ? { body: {} } : {}) });
  }

  test('when the route table is read then every operator route has exactly the access this table gives it', () => {
    const actual = Object.fromEntries(routes.map((r) => [`${r.method} ${r.url}`, r.access]));
    assert.deepEqual(actual, EXPECTED, 'classify new routes in EXPECTED (and in platform/http/operator-access.ts when the rule is wrong)');
  });

  test('when each role calls each state-changing route then the roles without its access get 403 Access denied and the others get past the role check', async () => {
    const writes = routes.filter((r) => r.method !== 'GET' && !(r.method === 'DELETE' && r.url === '/api/v1/session'));
    assert.ok(writes.length >= 80, `found ${writes.length} state-changing routes`);
    for (const route of writes) {
      for (const role of ROLES) {
        const res = await call(role, route.method, route.url);
        const name = `${role} ${route.method} ${route.url}`;
        if (GRANTS[role].includes(route.access)) {
          assert.ok(!(res.status === 403 && res.body?.error?.message === 'Access denied'), `${name} is admitted: ${res.text}`);
          assert.notEqual(res.status, 401, `${name}: ${res.text}`);
          assert.ok(res.status < 500, `${name}: ${res.text}`);
        } else {
          assert.equal(res.status, 403, `${name}: ${res.text}`);
          assert.equal(res.body.error.code, 'forbidden', name);
          assert.equal(res.body.error.message, 'Access denied', name);
        }
      }
    }
  });

  test('when a viewer uses a bearer JWT on the Admin API then every state-changing route answers 403 as with the cookie', async () => {
    const adminWrites = routes.filter((r) => r.method !== 'GET' && !r.url.startsWith('/api/v1/client/') && r.access !== 'read');
    for (const route of adminWrites) {
      const res = await call('VIEWER', route.method, route.url, 'bearer');
      assert.equal(res.status, 403, `${route.method} ${route.url}: ${res.text}`);
    }
  });

  test('when a viewer reads then every read route admits it and the users routes do not', async () => {
    for (const route of routes.filter((r) => r.method === 'GET')) {
      const res = await call('VIEWER', route.method, route.url);
      if (route.access === 'owner') assert.equal(res.status, 403, `${route.url}: ${res.text}`);
      else assert.notEqual(res.status, 403, `${route.url}: ${res.text}`);
    }
  });
});
