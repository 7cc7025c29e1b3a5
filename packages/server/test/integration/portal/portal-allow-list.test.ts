import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

type Need = 'read' | 'purchase' | 'plan_change' | 'cancel' | 'auto_topup' | 'payment_method' | 'denied';

/**
 * api-contract-money.md §3.2, route by route: what a customer portal token needs on every Client API
 * route that exists (`denied`: 403 Access denied whatever its flags). A route added under
 * /api/v1/client fails this test until it is classified here, so the portal's permissions can only
 * change deliberately (ADR 0038).
 */
const EXPECTED: Record<string, Need> = {
  'GET /api/v1/client/customers/:ref': 'read',
  'POST /api/v1/client/customers': 'denied',
  'GET /api/v1/client/customers': 'denied',
  'PATCH /api/v1/client/customers/:ref': 'denied',
  'POST /api/v1/client/customers/:ref/keys': 'denied',
  'GET /api/v1/client/customers/:ref/keys': 'denied',
  'POST /api/v1/client/customers/:ref/keys/:keyId/rotate': 'denied',
  'DELETE /api/v1/client/customers/:ref/keys/:keyId': 'denied',
  'POST /api/v1/client/customers/:ref/portal-sessions': 'denied',
  'GET /api/v1/client/customers/:ref/portal-sessions': 'denied',
  'DELETE /api/v1/client/customers/:ref/portal-sessions/:sessionId': 'denied',
  'GET /api/v1/client/portal/session': 'read',
  'GET /api/v1/client/customers/:ref/usage': 'read',
  // Not in §3.2 (added by api-contract-agent-v2.md for keys): closed to portal tokens.
  'GET /api/v1/client/customers/:ref/usage/events': 'denied',
  'GET /api/v1/client/customers/:ref/usage/history': 'denied',
  'GET /api/v1/client/customers/:ref/status': 'denied',
  // Key budgets are the tenant's to set and a customer key's to read (agent v2 §2.9); §3.2 does not list them.
  'GET /api/v1/client/customers/:ref/keys/:keyId/budget': 'denied',
  'PUT /api/v1/client/customers/:ref/keys/:keyId/budget': 'denied',
  'DELETE /api/v1/client/customers/:ref/keys/:keyId/budget': 'denied',
  'PUT /api/v1/client/customers/:ref/owner': 'denied',
  'POST /api/v1/client/customers/:ref/spend-mandate': 'denied',
  'GET /api/v1/client/plans': 'plan_change',
  'GET /api/v1/client/features': 'denied',
  'GET /api/v1/client/features/:featureKey': 'denied',
  'POST /api/v1/client/subscriptions': 'plan_change',
  'POST /api/v1/client/subscriptions/cancellation/:subscriptionId': 'cancel',
  'DELETE /api/v1/client/subscriptions/cancellation/:subscriptionId/scheduled': 'cancel',
  'POST /api/v1/client/subscriptions/:subscriptionId/plan-change': 'plan_change',
  'POST /api/v1/client/subscriptions/:subscriptionId/plan-change/preview': 'plan_change',
  'DELETE /api/v1/client/subscriptions/:subscriptionId/plan-change/scheduled': 'plan_change',
  'GET /api/v1/client/entitlements/:ref': 'read',
  'GET /api/v1/client/entitlements/:ref/:featureKey': 'read',
  // Usage is the integrator's to record: portal tokens lost these (§3.2).
  'POST /api/v1/client/entitlements': 'denied',
  'POST /api/v1/client/events': 'denied',
  'POST /api/v1/client/events/batch': 'denied',
  'GET /api/v1/client/credits/prices': 'read',
  'GET /api/v1/client/credits/:ref/pools': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/grants': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/transactions': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/auto-topup': 'read',
  'GET /api/v1/client/credits/:ref/pools/:poolId/auto-topup/attempts': 'read',
  'PUT /api/v1/client/credits/:ref/pools/:poolId/auto-topup': 'auto_topup',
  'DELETE /api/v1/client/credits/:ref/pools/:poolId/auto-topup': 'auto_topup',
  'POST /api/v1/client/credits/reservations': 'denied',
  'GET /api/v1/client/credits/reservations/:reservationId': 'denied',
  'POST /api/v1/client/credits/reservations/:reservationId/capture': 'denied',
  'POST /api/v1/client/credits/reservations/:reservationId/release': 'denied',
  'GET /api/v1/client/billing/invoices/:ref': 'read',
  'GET /api/v1/client/billing/invoices/:invoiceId/pdf': 'read',
  'POST /api/v1/client/billing/invoices/:invoiceId/mark-paid': 'denied',
  'POST /api/v1/client/billing/subscriptions/:subscriptionId/stripe/checkout': 'read',
  'POST /api/v1/client/billing/invoices/subscription/:subscriptionId/stripe/checkout': 'denied',
  'POST /api/v1/client/customers/:ref/payment-methods/setup-intent': 'payment_method',
  'POST /api/v1/client/customers/:ref/payment-methods/default': 'payment_method',
  'POST /api/v1/client/customers/:ref/payment-methods/setup-checkout': 'payment_method',
  'GET /api/v1/client/customers/:ref/payment-methods/default': 'read',
  'GET /api/v1/client/checkout-sessions/:checkoutSessionId': 'read',
  'POST /api/v1/client/credits/purchases': 'purchase',
  'POST /api/v1/client/outcomes': 'denied',
};

/**
 * Routes §3.2 lists that other work builds (invoice PDFs §4). The table in
 * portal-access.ts already opens them; once one is registered this test fails until it moves into
 * EXPECTED with this need.
 */
const CONTRACT_NOT_YET_BUILT: Record<string, Need> = {};

const FLAGS = { allowPurchase: 'purchase', allowPlanChange: 'plan_change', allowCancel: 'cancel', allowAutoTopup: 'auto_topup' } as const;
type Flag = keyof typeof FLAGS;

/** Whether a session with exactly these flags may call a route that needs `need`. */
function opens(need: Need, flags: readonly Flag[]): boolean {
  const scopes = flags.map((f) => FLAGS[f] as string);
  if (need === 'denied') return false;
  if (need === 'read') return true;
  if (need === 'payment_method') return scopes.some((s) => s === 'purchase' || s === 'plan_change' || s === 'auto_topup');
  return scopes.includes(need);
}

/** The message of a refusal for a missing flag (the payment-method routes name purchase). */
const lacking = (need: Need) => `This portal link lacks the '${need === 'payment_method' ? 'purchase' : need}' permission`;

const routeName = (method: string, url: string) => `${method} ${url}`;

describe('portal-token allow-list (api-contract-money.md §3.2)', () => {
  let svc: TestService;
  let ref: string;
  let clientRoutes: { method: string; url: string; need: Need }[];
  /** A token per flag set: none, each flag alone, all four. */
  const tokens = new Map<string, string>();
  const flagSets: Flag[][] = [[], ['allowPurchase'], ['allowPlanChange'], ['allowCancel'], ['allowAutoTopup'], ['allowPurchase', 'allowPlanChange', 'allowCancel', 'allowAutoTopup']];

  before(async () => {
    svc = await startTestService();
    const account = await createTestAccount(svc);
    const m = monetization(svc, account);
    ref = (await m.customer()).customerReferenceId;
    for (const flags of flagSets) {
      const session = await m.expectOk(m.client('POST', `/customers/${ref}/portal-sessions`, Object.fromEntries(flags.map((f) => [f, true]))), 201);
      tokens.set(flags.join(','), session.token);
    }
    clientRoutes = svc.app.routeTable
      .filter((r) => r.url.startsWith('/api/v1/client/'))
      .map((r) => ({ method: r.method, url: r.url, need: r.portal ?? 'denied' }));
  });
  after(() => svc.close());

  /** Calls a route as `token` with its path parameters filled in: `:ref` is the session's own customer. */
  function call(token: string, method: string, url: string) {
    const path = url.replace(/:(\w+)/g, (_match, name: string) => (name === 'ref' ? ref : name === 'featureKey' ? 'some-feature' : randomUUID()));
    return svc.http.request(method, path, { auth: token, ...(['POST', 'PUT', 'PATCH'].includes(method) ? { body: {} } : {}) });
  }

  test('when the route table is read then every Client API route has exactly the portal access the contract gives it', () => {
    const actual = Object.fromEntries(clientRoutes.map((r) => [routeName(r.method, r.url), r.need]));
    assert.deepEqual(actual, EXPECTED, 'routes under /api/v1/client differ from §3.2: classify new routes in EXPECTED (and in platform/http/portal-access.ts)');
  });

  test('when a contract route open to portal tokens is built then it must be listed with its need', () => {
    for (const name of Object.keys(CONTRACT_NOT_YET_BUILT)) {
      assert.ok(!clientRoutes.some((r) => routeName(r.method, r.url) === name), `${name} exists now: move it into EXPECTED as '${CONTRACT_NOT_YET_BUILT[name]}'`);
    }
  });

  for (const flags of flagSets) {
    test(`when a portal token with flags [${flags.join(', ')}] calls every Client API route then exactly the routes those flags open admit it`, async () => {
      const token = tokens.get(flags.join(','))!;
      for (const route of clientRoutes) {
        const res = await call(token, route.method, route.url);
        const name = routeName(route.method, route.url);
        if (opens(route.need, flags)) {
          assert.notEqual(res.status, 403, `${name} admits [${flags.join(', ')}]: ${res.text}`);
          assert.notEqual(res.status, 401, name);
        } else {
          assert.equal(res.status, 403, `${name} refuses [${flags.join(', ')}]: ${res.text}`);
          assert.equal(res.body.error.code, 'forbidden', name);
          assert.equal(res.body.error.message, route.need === 'denied' ? 'Access denied' : lacking(route.need), name);
        }
      }
    });
  }

  test('when a portal token with every flag calls /mcp then 403, and an Admin API route then 401', async () => {
    const token = tokens.get(flagSets.at(-1)!.join(','))!;
    const mcp = await svc.http.request('POST', '/mcp', { auth: token, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    assert.equal(mcp.status, 403, mcp.text);
    for (const path of ['/api/v1/monetization/customers', '/api/v1/tanso/account-settings']) {
      const res = await svc.http.request('GET', path, { auth: token });
      assert.equal(res.status, 401, `${path}: ${res.text}`);
    }
  });

  test("when a portal token without the flag names another customer's {ref} then the pinning answers first: scoped to another customer", async () => {
    const res = await svc.http.request('POST', '/api/v1/client/customers/someone-else/payment-methods/setup-checkout', { auth: tokens.get('')! });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.message, 'This API key is scoped to another customer');
  });
});
