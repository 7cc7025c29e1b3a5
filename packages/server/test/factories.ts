import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TestService } from './harness.js';

/** API-driven factories: each builds a valid resource through HTTP so a test states only what matters. */
export function monetization(svc: TestService, auth: { token: string; apiKey: string; username: string; password: string }) {
  // Tests move the clock by months: log in again once the 2-hour JWT has expired.
  let token = auth.token;
  const freshToken = async () => {
    const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;
    if (exp * 1000 <= svc.clock.now().getTime() + 60_000) {
      const login = await svc.http.post('/public/v1/login', { body: { username: auth.username, password: auth.password } });
      token = login.body.data.token;
    }
    return token;
  };
  const admin = async (method: string, path: string, body?: unknown) =>
    svc.http.request(method, `/api/v1/monetization${path}`, { auth: await freshToken(), ...(body === undefined ? {} : { body }) });
  const client = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    svc.http.request(method, `/api/v1/client${path}`, { auth: auth.apiKey, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) });
  const unique = () => randomBytes(4).toString('hex');

  async function expectOk<T = any>(res: Promise<{ status: number; body: any; text: string }>, status = 200): Promise<T> {
    const r = await res;
    assert.equal(r.status, status, r.text);
    return r.body.data as T;
  }

  const api = async (method: string, path: string, body?: unknown) =>
    svc.http.request(method, path, { auth: await freshToken(), ...(body === undefined ? {} : { body }) });

  return {
    admin,
    client,
    api,
    expectOk,
    feature: (overrides: Record<string, unknown> = {}) =>
      expectOk(admin('POST', '/features', { name: 'AI chat', key: `chat-${unique()}`, ...overrides }), 201),
    /** An ACTIVE plan with one usage rule per feature given. */
    async activePlan(options: { price?: number | string; features: { id: string; value?: unknown }[]; intervalMonths?: number; billingTiming?: string; key?: string }) {
      const key = options.key ?? `plan-${unique()}`;
      const plan = await expectOk(
        admin('POST', '/plans', {
          key,
          name: `Plan ${key}`,
          description: 'For tests',
          priceAmount: options.price ?? 30,
          intervalMonths: options.intervalMonths ?? 1,
          ...(options.billingTiming ? { billingTiming: options.billingTiming } : {}),
        }),
        201,
      );
      for (const f of options.features) {
        await expectOk(
          admin('POST', '/rules/plan-features', {
            planId: plan.id,
            featureId: f.id,
            value: f.value ?? { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.002 } },
          }),
          201,
        );
      }
      return expectOk(admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
    },
    creditModel: (overrides: Record<string, unknown> = {}) =>
      expectOk(admin('POST', '/credits/models', { name: 'AI credits', denomination: `cr-${unique()}`, ...overrides }), 201),
    /**
     * A customer subscribed to a free plan whose one feature draws on a pool of `credits` in a fresh
     * denomination (a hard- or soft-limit pool), priced `pricePerUnit` per unit of usage.
     */
    async wallet(credits: number, hardLimit: boolean, pricePerUnit = 0.5) {
      const model = await expectOk(admin('POST', '/credits/models', { name: 'AI credits', denomination: `cr-${unique()}`, hardLimit }), 201);
      const feature = await expectOk(admin('POST', '/features', { name: 'AI chat', key: `chat-${unique()}` }), 201);
      const plan = await expectOk(admin('POST', '/plans', { key: `p-${unique()}`, name: `p-${unique()}`, description: 'x', priceAmount: 0, intervalMonths: 1 }), 201);
      await expectOk(admin('POST', '/rules/plan-features', { planId: plan.id, featureId: feature.id, creditModelId: model.id, value: { pricing: { model: 'usage', usage_unit_type: 'u', price_per_unit: pricePerUnit } } }), 201);
      await expectOk(admin('POST', `/credits/models/${model.id}/plans/${plan.id}?creditAmount=${credits}`), 201);
      await expectOk(admin('PATCH', `/plans/${plan.id}`, { status: 'ACTIVE' }));
      const ref = `c-${unique()}`;
      await expectOk(client('POST', '/customers', { customerReferenceId: ref, email: `${ref}@example.com` }), 201);
      await expectOk(client('POST', '/subscriptions', { customerReferenceId: ref, planId: plan.id }), 201);
      const poolId = (await expectOk(client('GET', `/credits/${ref}/pools`))).items[0].id as string;
      return { ref, denomination: model.denomination as string, featureKey: feature.key as string, poolId };
    },
    /** Runs the whole ledger audit and fails the test on any difference. */
    async audit() {
      const report = await expectOk(admin('GET', '/credits/audit'));
      assert.deepEqual(report.discrepancies, [], 'the ledger audit finds no difference');
      return report;
    },
    customer: (ref = `cust-${unique()}`) => expectOk(client('POST', '/customers', { customerReferenceId: ref, email: `${ref}@example.com` }), 201),
    /** A customer-scoped key (plaintext) issued through the key route. */
    customerKey: async (ref: string, scopes: ('read' | 'purchase')[] = ['read', 'purchase']) =>
      (await expectOk(client('POST', `/customers/${ref}/keys`, { scopes }), 201)).apiKey as string,
    subscribe: (customerReferenceId: string, planId: string) => expectOk(client('POST', '/subscriptions', { customerReferenceId, planId }), 201),
    markPaid: (invoiceId: string) => expectOk(client('POST', `/billing/invoices/${invoiceId}/mark-paid`)),
    check: (ref: string, featureKey: string) => expectOk(client('GET', `/entitlements/${ref}/${featureKey}`)),
    event: (body: Record<string, unknown>) => client('POST', '/events', { eventName: 'chat.message', ...body }),
    invoices: (ref: string) => expectOk(client('GET', `/billing/invoices/${ref}?limit=200`)),
  };
}
