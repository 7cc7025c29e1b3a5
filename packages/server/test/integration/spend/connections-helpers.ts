import { ANTHROPIC_FAKE_KEY, startAnthropicFake, type AnthropicFake } from '../../fakes/vendors/anthropic.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** A service pointed at the Anthropic fake (fast retries, loopback allowed for outbound URLs). */
export async function startSpendService(env: Record<string, string> = {}): Promise<{ svc: TestService; anthropic: AnthropicFake; close(): Promise<void> }> {
  const anthropic = await startAnthropicFake();
  const svc = await startTestService({
    env: {
      APP_SPEND_ANTHROPIC_BASE_URL: anthropic.url,
      APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true',
      APP_SPEND_VENDOR_MAX_RETRIES: '2',
      APP_SPEND_VENDOR_TIMEOUT_MS: '5000',
      ...env,
    },
  });
  return {
    svc,
    anthropic,
    async close() {
      await svc.close();
      await anthropic.close();
    },
  };
}

export const CONNECTIONS = '/api/v1/spend/connections';

/** A fresh operator with helpers for its connections. */
export async function spendOperator(svc: TestService) {
  const account = await createTestAccount(svc);
  const auth = { auth: account.token };
  return {
    account,
    create: (body: Record<string, unknown>) => svc.http.post(CONNECTIONS, { ...auth, body }),
    connectAnthropic: async (label = 'Org') => {
      const res = await svc.http.post(CONNECTIONS, { ...auth, body: { provider: 'ANTHROPIC', label, adminKey: ANTHROPIC_FAKE_KEY } });
      if (res.status !== 201) throw new Error(`connect failed: ${res.status} ${res.text}`);
      return res.body.data as { id: string; [k: string]: unknown };
    },
    list: () => svc.http.get(CONNECTIONS, auth),
    get: (id: string) => svc.http.get(`${CONNECTIONS}/${id}`, auth),
    probe: (id: string) => svc.http.post(`${CONNECTIONS}/${id}/probe`, auth),
    sync: (id: string, query = '') => svc.http.post(`${CONNECTIONS}/${id}/sync${query}`, auth),
    putKey: (id: string, adminKey: unknown) => svc.http.put(`${CONNECTIONS}/${id}/key`, { ...auth, body: { adminKey } }),
    remove: (id: string) => svc.http.delete(`${CONNECTIONS}/${id}`, auth),
    usageReport: (query: string) => svc.http.get(`/api/v1/spend/reports/usage${query}`, auth),
  };
}

/** Rows a connection holds in each pulled table. */
export async function storedRows(svc: TestService, connectionId: string) {
  const count = async (table: 'spend_usage_buckets' | 'spend_vendor_costs' | 'spend_actor_metrics') =>
    Number((await svc.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('connection_id', '=', connectionId).executeTakeFirstOrThrow()).n);
  return { usage: await count('spend_usage_buckets'), costs: await count('spend_vendor_costs'), actors: await count('spend_actor_metrics') };
}
