import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

const PATH = '/api/v1/tanso/account-settings';

describe(`agent onboarding settings (api-contract-agent-v2.md §3) on ${backend}`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  async function operator() {
    const account = await createTestAccount(svc);
    const patch = (body: unknown) => svc.http.patch(PATH, { auth: account.token, body });
    const set = async (body: unknown) => {
      const r = await patch(body);
      assert.equal(r.status, 200, r.text);
      return r.body.data;
    };
    const settings = async () => (await svc.http.get(PATH, { auth: account.token })).body.data;
    const refused = async (body: unknown, message: string) => {
      const before = await settings();
      const r = await patch(body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error.code, 'validation_failed');
      assert.equal(r.body.error.message, message);
      assert.deepEqual(await settings(), before, 'a refused PATCH changes nothing');
    };
    const audit = async () => {
      const r = await svc.http.get('/api/v1/tanso/audit-log', { auth: account.token });
      assert.equal(r.status, 200, r.text);
      return (r.body.data as { action: string; details: any }[]).filter((e) => !/^[A-Z]+ \//.test(e.action)).reverse();
    };
    return { account, patch, set, settings, refused, audit };
  }

  test('when a fresh account reads its settings then the four fields have their defaults', async () => {
    const o = await operator();
    const s = await o.settings();
    assert.equal(s.agentProvisionalDays, 14);
    assert.equal(s.agentSignupPerIpCap, null);
    assert.equal(s.agentSpendMandateEnabled, false);
    assert.equal(s.agentMaxMandateAmount, null);
  });

  test('when agentProvisionalDays is set then 1..365 pass and anything else is refused with the message', async () => {
    const o = await operator();
    assert.equal((await o.set({ agentProvisionalDays: 1 })).agentProvisionalDays, 1);
    assert.equal((await o.set({ agentProvisionalDays: 365 })).agentProvisionalDays, 365);
    for (const bad of [0, 366, -3]) await o.refused({ agentProvisionalDays: bad }, 'agentProvisionalDays must be between 1 and 365');
    const r = await o.patch({ agentProvisionalDays: 1.5 });
    assert.equal(r.status, 400);
    const n = await o.patch({ agentProvisionalDays: null });
    assert.equal(n.status, 400, 'not nullable: send a value');
  });

  test('when agentSignupPerIpCap is set then 0 and null clear it and a negative is refused', async () => {
    const o = await operator();
    assert.equal((await o.set({ agentSignupPerIpCap: 5 })).agentSignupPerIpCap, 5);
    assert.equal((await o.set({ agentSignupPerIpCap: 0 })).agentSignupPerIpCap, null);
    assert.equal((await o.set({ agentSignupPerIpCap: 3 })).agentSignupPerIpCap, 3);
    assert.equal((await o.set({ agentSignupPerIpCap: null })).agentSignupPerIpCap, null);
    await o.refused({ agentSignupPerIpCap: -1 }, 'agentSignupPerIpCap must not be negative');
  });

  test('when the mandate is enabled without a ceiling then it is refused; both in one PATCH pass', async () => {
    const o = await operator();
    await o.refused({ agentSpendMandateEnabled: true }, 'Set agentMaxMandateAmount before enabling the agent spend mandate');
    await o.refused({ agentSpendMandateEnabled: true, agentMaxMandateAmount: 0 }, 'Set agentMaxMandateAmount before enabling the agent spend mandate');
    const s = await o.set({ agentSpendMandateEnabled: true, agentMaxMandateAmount: '50.25' });
    assert.equal(s.agentSpendMandateEnabled, true);
    assert.equal(s.agentMaxMandateAmount, 50.25);
  });

  test('when the ceiling is set first then the mandate may be enabled later; clearing the ceiling while on is refused', async () => {
    const o = await operator();
    await o.set({ agentMaxMandateAmount: '100' });
    await o.set({ agentSpendMandateEnabled: true });
    await o.refused({ agentMaxMandateAmount: 0 }, 'Turn off agentSpendMandateEnabled before clearing agentMaxMandateAmount');
    await o.refused({ agentMaxMandateAmount: null }, 'Turn off agentSpendMandateEnabled before clearing agentMaxMandateAmount');
    await o.refused({ agentMaxMandateAmount: '-1' }, 'agentMaxMandateAmount must not be negative');
    const off = await o.set({ agentSpendMandateEnabled: false, agentMaxMandateAmount: 0 });
    assert.equal(off.agentSpendMandateEnabled, false, 'turning it off and clearing in one PATCH passes');
    assert.equal(off.agentMaxMandateAmount, null);
    assert.equal((await o.set({ agentSpendMandateEnabled: false })).agentSpendMandateEnabled, false, 'turning off is always allowed');
  });

  test('when the four change then each change is audit-logged with its old and new value; re-sending logs nothing', async () => {
    const o = await operator();
    await o.set({ agentProvisionalDays: 7, agentSignupPerIpCap: 4, agentMaxMandateAmount: '20', agentSpendMandateEnabled: true });
    await o.set({ agentProvisionalDays: 7, agentSignupPerIpCap: 4 });
    await o.set({ agentSignupPerIpCap: 0 });
    // One PATCH's rows share their instant, so compare them as a set.
    // jsonb keeps its own key order on PostgreSQL: compare field, from, to.
    const log = (await o.audit()).map((e) => JSON.stringify([e.action, { field: e.details.field, from: e.details.from, to: e.details.to }])).sort();
    assert.deepEqual(
      log,
      [
        ['AGENT_PROVISIONAL_DAYS_CHANGED', { field: 'agentProvisionalDays', from: 14, to: 7 }],
        ['AGENT_SIGNUP_PER_IP_CAP_CHANGED', { field: 'agentSignupPerIpCap', from: null, to: 4 }],
        ['AGENT_SPEND_MANDATE_ENABLED_CHANGED', { field: 'agentSpendMandateEnabled', from: false, to: true }],
        ['AGENT_MAX_MANDATE_AMOUNT_CHANGED', { field: 'agentMaxMandateAmount', from: null, to: 20 }],
        ['AGENT_SIGNUP_PER_IP_CAP_CHANGED', { field: 'agentSignupPerIpCap', from: 4, to: null }],
      ]
        .map((e) => JSON.stringify(e))
        .sort(),
    );
  });
});
