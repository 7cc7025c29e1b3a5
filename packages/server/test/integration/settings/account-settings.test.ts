import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setStripeMode } from '../../../src/modules/settings/index.js';
import { withTransaction } from '../../../src/platform/db/transaction.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';

const PATH = '/api/v1/tanso/account-settings';
const SLUG_MESSAGE = 'Slug must be 2-63 lowercase letters, digits, or hyphens, starting and ending alphanumeric';

const DEFAULTS = {
  stripeMode: 'NONE',
  stripeEnabled: false,
  stripeCheckoutSuccessUrl: null,
  stripeCheckoutCancelUrl: null,
  currency: 'USD',
  defaultCostConfig: null,
  slug: null,
  publicCatalogEnabled: false,
  agentSignupEnabled: false,
  agentSignupDefaultPlanId: null,
  agentSignupHourlyCap: 10,
  agentMaxTopupAmount: null,
  agentProvisionalDays: 14,
  agentSignupPerIpCap: null,
  agentSpendMandateEnabled: false,
  agentMaxMandateAmount: null,
  usageThresholdPercents: [80, 100],
  invoiceNumberPrefix: 'INV',
  legalName: null,
  addressLines: [],
  taxId: null,
  contactEmail: null,
};


describe('account settings (contract §5.1)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  /** A fresh account with helpers for its settings. */
  async function operator() {
    const account = await createTestAccount(svc);
    const m = monetization(svc, account);
    const get = () => svc.http.get(PATH, { auth: account.token });
    const patch = (body: unknown) => svc.http.patch(PATH, { auth: account.token, body });
    const settings = async () => {
      const r = await get();
      assert.equal(r.status, 200, r.text);
      return r.body.data;
    };
    const set = async (body: unknown) => {
      const r = await patch(body);
      assert.equal(r.status, 200, r.text);
      return r.body.data;
    };
    const refused = async (body: unknown, message: string, status = 400) => {
      const r = await patch(body);
      assert.equal(r.status, status, r.text);
      assert.equal(r.body.error.code, status === 400 ? 'validation_failed' : 'conflict');
      assert.equal(r.body.error.message, message);
      return r;
    };
    const audit = async (query = '') => {
      const r = await svc.http.get(`/api/v1/tanso/audit-log${query}`, { auth: account.token });
      assert.equal(r.status, 200, r.text);
      // The settings' own entries; every other operator call is logged too, as `<METHOD> <route>` (ADR 0034).
      return (r.body.data as { id: string; actor: string; action: string; details: any; createdAt: string }[]).filter((e) => !/^[A-Z]+ \//.test(e.action));
    };
    const userId = async () =>
      (await svc.ctx.db.selectFrom('users').select('id').where('username', '=', account.username).executeTakeFirstOrThrow()).id;
    /** An ACTIVE plan at this price (0 = free). */
    const plan = async (price: number | string = 0) => m.activePlan({ price, features: [await m.feature()] });
    return { account, m, get, patch, settings, set, refused, audit, userId, plan };
  }

  test('when a fresh account reads its settings then it gets the defaults and no row is written', async () => {
    const o = await operator();
    assert.deepEqual(await o.settings(), DEFAULTS);
    const rows = await svc.ctx.db.selectFrom('account_settings').selectAll().where('account_id', '=', o.account.accountId).execute();
    assert.equal(rows.length, 0);
  });

  test('when a PATCH sends some fields then only those change and the answer is the settings after', async () => {
    const o = await operator();
    const after1 = await o.set({ currency: 'eur', agentSignupHourlyCap: 25 });
    assert.deepEqual(after1, { ...DEFAULTS, currency: 'EUR', agentSignupHourlyCap: 25 });
    const after2 = await o.set({ stripeCheckoutSuccessUrl: 'https://acme.example/ok' });
    assert.deepEqual(after2, { ...DEFAULTS, currency: 'EUR', agentSignupHourlyCap: 25, stripeCheckoutSuccessUrl: 'https://acme.example/ok' });
    assert.deepEqual(await o.settings(), after2, 'GET shows what PATCH answered');
    assert.deepEqual(await o.set({}), after2, 'an empty PATCH changes nothing');
  });

  test('when a slug is sent then it is trimmed and lower-cased, and a malformed one is refused with the contract message', async () => {
    const o = await operator();
    assert.equal((await o.set({ slug: '  Acme-AI2 ' })).slug, 'acme-ai2');
    for (const bad of ['-ab', 'ab-', 'a_b', 'a b', '', 'x'.repeat(64), 'café']) await o.refused({ slug: bad }, SLUG_MESSAGE);
    // The pattern is the contract's (and the original's) even where its message says otherwise:
    // one character matches, two do not (the optional group is at least 3 long).
    await o.refused({ slug: 'ab' }, SLUG_MESSAGE);
    assert.equal((await o.set({ slug: 'a' })).slug, 'a');
    assert.equal((await o.set({ slug: 'a-b' })).slug, 'a-b');
    assert.equal((await o.set({ slug: 'x'.repeat(63) })).slug, 'x'.repeat(63), '63 characters is the longest');
  });

  test('when two accounts want the same slug then the second gets 409 conflict, whatever its case', async () => {
    const a = await operator();
    const b = await operator();
    await a.set({ slug: 'shared-name' });
    await b.refused({ slug: ' Shared-Name ' }, "Slug 'shared-name' is already used by another account", 409);
    assert.equal((await b.settings()).slug, null, 'the refused account kept no slug');
    assert.equal((await a.set({ slug: 'shared-name' })).slug, 'shared-name', 'setting its own slug again is no conflict');
  });

  test('when the public catalog is turned on then it needs a slug, set now or before; the slug cannot be cleared under it; turning it off is allowed', async () => {
    const o = await operator();
    await o.refused({ publicCatalogEnabled: true }, 'Set a slug before enabling the public catalog');
    await o.refused({ publicCatalogEnabled: true, slug: null }, 'Set a slug before enabling the public catalog');
    assert.deepEqual(await o.settings(), DEFAULTS);
    const on = await o.set({ publicCatalogEnabled: true, slug: 'now-set' });
    assert.deepEqual([on.publicCatalogEnabled, on.slug], [true, 'now-set']);
    await o.refused({ slug: null }, 'Disable the public catalog before clearing the slug');
    assert.equal((await o.set({ slug: 'renamed' })).slug, 'renamed', 'a slug can change while the catalog is on');
    assert.equal((await o.set({ publicCatalogEnabled: false })).publicCatalogEnabled, false);
    assert.equal((await o.set({ slug: null })).slug, null, 'with the catalog off the slug can be cleared');

    const before = await operator();
    await before.set({ slug: 'set-before' });
    assert.equal((await before.set({ publicCatalogEnabled: true })).publicCatalogEnabled, true, 'a slug set earlier is enough');
  });

  test('when the default signup plan is not a plan of this account then it is refused as not found', async () => {
    const o = await operator();
    const other = await operator();
    const theirs = await other.plan(0);
    const unknown = '01890000-0000-7000-8000-000000000000';
    await o.refused({ agentSignupDefaultPlanId: unknown }, `Plan not found on this account: ${unknown}`);
    await o.refused({ agentSignupDefaultPlanId: theirs.id }, `Plan not found on this account: ${theirs.id}`);
    const r = await o.patch({ agentSignupDefaultPlanId: 'not-a-uuid' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, 'validation_failed');
  });

  test('when the default signup plan is DRAFT, ARCHIVED or paid then it is refused; an ACTIVE free plan is taken', async () => {
    const o = await operator();
    const draft = await o.m.expectOk(o.m.admin('POST', '/plans', { key: 'draft-plan', priceAmount: 0, intervalMonths: 1 }), 201);
    await o.refused({ agentSignupDefaultPlanId: draft.id }, 'Agent signup default plan must be ACTIVE');
    const archived = await o.plan(0);
    await o.m.expectOk(o.m.admin('PATCH', `/plans/${archived.id}`, { status: 'ARCHIVED' }));
    await o.refused({ agentSignupDefaultPlanId: archived.id }, 'Agent signup default plan must be ACTIVE');
    const paid = await o.plan('0.01');
    await o.refused({ agentSignupDefaultPlanId: paid.id }, 'Agent signup default plan must be free — paid conversion happens after signup, authenticated');
    const free = await o.plan(0);
    assert.equal((await o.set({ agentSignupDefaultPlanId: free.id.toUpperCase() })).agentSignupDefaultPlanId, free.id);
  });

  test('when agent signup is turned on then it needs a free ACTIVE default plan; the plan cannot be cleared under it; turning it off is allowed', async () => {
    const o = await operator();
    await o.refused({ agentSignupEnabled: true }, 'Set a free default plan before enabling agent signup');
    const free = await o.plan(0);
    const on = await o.set({ agentSignupEnabled: true, agentSignupDefaultPlanId: free.id });
    assert.deepEqual([on.agentSignupEnabled, on.agentSignupDefaultPlanId], [true, free.id]);
    await o.refused({ agentSignupDefaultPlanId: null }, 'Disable agent signup before clearing its default plan');
    assert.equal((await o.set({ agentSignupEnabled: false })).agentSignupEnabled, false);

    await o.m.expectOk(o.m.admin('PATCH', `/plans/${free.id}`, { status: 'ARCHIVED' }));
    await o.refused({ agentSignupEnabled: true }, 'Agent signup default plan must be ACTIVE');
    assert.equal((await o.set({ currency: 'GBP' })).currency, 'GBP', 'a PATCH of other fields is not refused for the stored plan');
    assert.equal((await o.set({ agentSignupDefaultPlanId: null })).agentSignupDefaultPlanId, null, 'with signup off the plan can be cleared');
  });

  test('when agentSignupHourlyCap is below 1, too large or not whole then it is refused', async () => {
    const o = await operator();
    await o.refused({ agentSignupHourlyCap: 0 }, 'agentSignupHourlyCap must be at least 1');
    await o.refused({ agentSignupHourlyCap: -3 }, 'agentSignupHourlyCap must be at least 1');
    await o.refused({ agentSignupHourlyCap: 1_000_001 }, 'agentSignupHourlyCap must be at most 1000000');
    for (const bad of [1.5, '5', null]) {
      const r = await o.patch({ agentSignupHourlyCap: bad });
      assert.equal(r.status, 400, `${bad}: ${r.text}`);
    }
    assert.equal((await o.set({ agentSignupHourlyCap: 1 })).agentSignupHourlyCap, 1);
  });

  test('when agentMaxTopupAmount is set then it is exact; 0 or null clears it; negatives are refused', async () => {
    const o = await operator();
    await o.refused({ agentMaxTopupAmount: -1 }, 'agentMaxTopupAmount must not be negative');
    await o.refused({ agentMaxTopupAmount: '-0.01' }, 'agentMaxTopupAmount must not be negative');
    await o.refused({ agentMaxTopupAmount: '12.34567' }, 'agentMaxTopupAmount allows at most 4 decimals');
    const r = await svc.http.request('PATCH', PATH, {
      auth: o.account.token,
      rawBody: '{"agentMaxTopupAmount": 123456789012.1234}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 200, r.text);
    assert.match(r.text, /"agentMaxTopupAmount":123456789012\.1234[,}]/, 'the decimal is a JSON number, digit for digit');
    assert.equal((await o.set({ agentMaxTopupAmount: 0 })).agentMaxTopupAmount, null, '0 clears the cap');
    const row = await svc.ctx.db.selectFrom('account_settings').select('agent_max_topup_amount').where('account_id', '=', o.account.accountId).executeTakeFirstOrThrow();
    assert.equal(row.agent_max_topup_amount, null, 'stored as null');
    assert.equal((await o.set({ agentMaxTopupAmount: 50 })).agentMaxTopupAmount, 50);
    assert.equal((await o.set({ agentMaxTopupAmount: null })).agentMaxTopupAmount, null, 'null clears it too');
  });

  test('when stripeMode is sent then the three modes and the two aliases are taken (answered as PROCESSOR_INTEGRATION), anything else is refused', async () => {
    const o = await operator();
    for (const alias of ['STRIPE_INTEGRATION', 'FULL_SYNC', 'PROCESSOR_INTEGRATION']) {
      await o.set({ stripeMode: 'NONE' });
      const s = await o.set({ stripeMode: alias });
      assert.deepEqual([s.stripeMode, s.stripeEnabled], ['PROCESSOR_INTEGRATION', true], alias);
    }
    const pass = await o.set({ stripeMode: 'PAYMENT_PASS_THROUGH' });
    assert.deepEqual([pass.stripeMode, pass.stripeEnabled], ['PAYMENT_PASS_THROUGH', true]);
    for (const bad of ['STRIPE_DRIVEN', 'none', 'CHEQUE', '']) {
      await o.refused({ stripeMode: bad }, `Invalid stripeMode: ${bad}. Valid values: NONE, PAYMENT_PASS_THROUGH, PROCESSOR_INTEGRATION`);
    }
    const none = await o.set({ stripeMode: 'NONE' });
    assert.deepEqual([none.stripeMode, none.stripeEnabled], ['NONE', false]);
  });

  test('when the currency is not an ISO 4217 code then it is refused; a known one is upper-cased', async () => {
    const o = await operator();
    await o.refused({ currency: 'xyz' }, 'Invalid currency code: XYZ');
    await o.refused({ currency: 'DOLLARS' }, 'Invalid currency code: DOLLARS');
    assert.equal((await o.set({ currency: ' jpy ' })).currency, 'JPY');
  });

  test('when a checkout URL is not an absolute http(s) URL then it is refused; null clears it', async () => {
    const o = await operator();
    for (const bad of ['ftp://acme.example/x', 'acme.example/ok', '/relative', 'javascript:alert(1)', 'https://', ' https://acme.example']) {
      await o.refused({ stripeCheckoutCancelUrl: bad }, 'stripeCheckoutCancelUrl must be an absolute http or https URL');
    }
    await o.refused({ stripeCheckoutSuccessUrl: 'mailto:x@y.z' }, 'stripeCheckoutSuccessUrl must be an absolute http or https URL');
    const tooLong = await o.patch({ stripeCheckoutSuccessUrl: `https://acme.example/${'a'.repeat(2100)}` });
    assert.equal(tooLong.status, 400);
    const set = await o.set({ stripeCheckoutSuccessUrl: 'https://acme.example/ok?s={CHECKOUT_SESSION_ID}', stripeCheckoutCancelUrl: 'http://localhost:3000/cancel' });
    assert.deepEqual([set.stripeCheckoutSuccessUrl, set.stripeCheckoutCancelUrl], ['https://acme.example/ok?s={CHECKOUT_SESSION_ID}', 'http://localhost:3000/cancel']);
    const cleared = await o.set({ stripeCheckoutSuccessUrl: null });
    assert.deepEqual([cleared.stripeCheckoutSuccessUrl, cleared.stripeCheckoutCancelUrl], [null, 'http://localhost:3000/cancel']);
  });

  test('when a default cost config is sent then it is stored exactly and replaced whole; negatives are refused; all-null or null clears it', async () => {
    const o = await operator();
    const r = await svc.http.request('PATCH', PATH, {
      auth: o.account.token,
      rawBody: '{"defaultCostConfig":{"modelCosts":{"gpt-4.1":{"input":0.000002000000000000000001,"output":0.000008}},"defaultInputCostPerUnit":0.000001,"costUnit":"token"}}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 200, r.text);
    assert.match(r.text, /"input":0\.000002000000000000000001[,}]/, 'a 24-place rate survives digit for digit');
    assert.deepEqual(JSON.parse(JSON.stringify(r.body.data.defaultCostConfig, (_k, v) => (typeof v === 'number' ? String(v) : v))), {
      modelCosts: { 'gpt-4.1': { input: '0.000002', output: '0.000008' } },
      defaultInputCostPerUnit: '0.000001',
      defaultOutputCostPerUnit: null,
      costUnit: 'token',
    });
    const text = (await o.get()).text;
    assert.match(text, /"input":0\.000002000000000000000001[,}]/, 'and reads back exactly');

    await o.refused({ defaultCostConfig: { modelCosts: { m: { input: -1 } } } }, 'Model input cost rates must be non-negative');
    await o.refused({ defaultCostConfig: { modelCosts: { m: { output: -1 } } } }, 'Model output cost rates must be non-negative');
    await o.refused({ defaultCostConfig: { defaultInputCostPerUnit: -0.5 } }, 'Default input cost per unit must be non-negative');
    await o.refused({ defaultCostConfig: { defaultOutputCostPerUnit: -0.5 } }, 'Default output cost per unit must be non-negative');
    assert.equal((await o.settings()).defaultCostConfig.costUnit, 'token', 'refused configs changed nothing');

    const replaced = await o.set({ defaultCostConfig: { defaultOutputCostPerUnit: 2 } });
    assert.deepEqual(replaced.defaultCostConfig, { modelCosts: null, defaultInputCostPerUnit: null, defaultOutputCostPerUnit: 2, costUnit: null });
    assert.equal((await o.set({ defaultCostConfig: { modelCosts: null, defaultInputCostPerUnit: null, defaultOutputCostPerUnit: null, costUnit: null } })).defaultCostConfig, null);
    await o.set({ defaultCostConfig: { costUnit: 'token' } });
    assert.equal((await o.set({ defaultCostConfig: null })).defaultCostConfig, null);
    assert.equal((await o.set({ defaultCostConfig: {} })).defaultCostConfig, null, 'an empty config clears it too');
  });

  test('when a PATCH is refused then nothing it sent is written, not even the first row', async () => {
    const o = await operator();
    await o.refused({ currency: 'EUR', stripeMode: 'PAYMENT_PASS_THROUGH', slug: 'fine-slug', publicCatalogEnabled: true, agentSignupEnabled: true }, 'Set a free default plan before enabling agent signup');
    await o.refused({ currency: 'EUR', slug: 'bad slug' }, SLUG_MESSAGE);
    assert.deepEqual(await o.settings(), DEFAULTS);
    const rows = await svc.ctx.db.selectFrom('account_settings').selectAll().where('account_id', '=', o.account.accountId).execute();
    assert.equal(rows.length, 0, 'the row written before the rules ran was rolled back');
    assert.deepEqual(await o.audit(), [], 'no audit row either');

    await o.set({ slug: 'taken-later', stripeMode: 'PAYMENT_PASS_THROUGH' });
    const other = await operator();
    await other.set({ slug: 'other-slug' });
    await other.refused({ stripeMode: 'PROCESSOR_INTEGRATION', currency: 'EUR', slug: 'taken-later' }, "Slug 'taken-later' is already used by another account", 409);
    assert.deepEqual(await other.settings(), { ...DEFAULTS, slug: 'other-slug' }, 'a 409 rolls back the other fields');
    assert.deepEqual((await other.audit()).map((e) => e.action), ['SLUG_CHANGED'], 'and their audit rows');
  });

  test('when stripeMode changes then each change is audit-logged with the operator as actor; resending the same mode logs nothing', async () => {
    const o = await operator();
    const actor = `user:${await o.userId()}`;
    await o.set({ stripeMode: 'PAYMENT_PASS_THROUGH' });
    svc.clock.advanceMs(60_000);
    await o.set({ stripeMode: 'PAYMENT_PASS_THROUGH' });
    await o.set({ stripeMode: 'FULL_SYNC' });
    svc.clock.advanceMs(60_000);
    await o.set({ stripeMode: 'STRIPE_INTEGRATION' });
    await o.set({ stripeMode: 'NONE' });
    const log = await o.audit();
    assert.deepEqual(
      log.map((e) => [e.actor, e.action, e.details]),
      [
        [actor, 'STRIPE_MODE_CHANGED', { field: 'stripeMode', from: 'PROCESSOR_INTEGRATION', to: 'NONE' }],
        [actor, 'STRIPE_MODE_CHANGED', { field: 'stripeMode', from: 'PAYMENT_PASS_THROUGH', to: 'PROCESSOR_INTEGRATION' }],
        [actor, 'STRIPE_MODE_CHANGED', { field: 'stripeMode', from: 'NONE', to: 'PAYMENT_PASS_THROUGH' }],
      ],
      'newest first',
    );
    assert.match(log[0]!.createdAt, /Z$/);
  });

  test('when the surfaces and the cap change then each change is audit-logged with its old and new value', async () => {
    const o = await operator();
    const free = await o.plan(0);
    await o.set({ slug: 'audited', publicCatalogEnabled: true, agentSignupDefaultPlanId: free.id, agentSignupEnabled: true, agentMaxTopupAmount: '25.5', currency: 'EUR', agentSignupHourlyCap: 3 });
    const log = await o.audit();
    assert.deepEqual(
      log.map((e) => [e.action, e.details]).sort(),
      [
        ['AGENT_MAX_TOPUP_AMOUNT_CHANGED', { field: 'agentMaxTopupAmount', from: null, to: 25.5 }],
        ['AGENT_SIGNUP_DEFAULT_PLAN_CHANGED', { field: 'agentSignupDefaultPlanId', from: null, to: free.id }],
        ['AGENT_SIGNUP_ENABLED_CHANGED', { field: 'agentSignupEnabled', from: false, to: true }],
        ['PUBLIC_CATALOG_ENABLED_CHANGED', { field: 'publicCatalogEnabled', from: false, to: true }],
        ['SLUG_CHANGED', { field: 'slug', from: null, to: 'audited' }],
      ],
      'currency and the hourly cap are not audited',
    );
    svc.clock.advanceMs(60_000);
    await o.set({ agentMaxTopupAmount: 0 });
    const [latest] = await o.audit('?limit=1');
    assert.deepEqual([latest!.action, latest!.details], ['AGENT_MAX_TOPUP_AMOUNT_CHANGED', { field: 'agentMaxTopupAmount', from: 25.5, to: null }]);
    assert.equal((await o.audit('?limit=1')).length, 1);
  });

  test('when the audit log is read with a limit out of range then it is 400; another account sees none of it', async () => {
    const o = await operator();
    await o.set({ stripeMode: 'PAYMENT_PASS_THROUGH' });
    for (const bad of ['0', '201', 'ten', '-1']) {
      const r = await svc.http.get(`/api/v1/tanso/audit-log?limit=${bad}`, { auth: o.account.token });
      assert.equal(r.status, 400, `${bad}: ${r.text}`);
    }
    assert.equal((await o.audit('?limit=200')).length, 1);
    const other = await operator();
    assert.deepEqual(await other.audit(), []);
  });

  test('when the payments side sets the mode through setStripeMode then it is audit-logged in the same transaction', async () => {
    const o = await operator();
    await o.set({ stripeMode: 'PROCESSOR_INTEGRATION' });
    const actor = `user:${await o.userId()}`;
    svc.clock.advanceMs(60_000);
    const after = await withTransaction(svc.ctx.db, (tx) => setStripeMode(tx, o.account.accountId, 'NONE', actor, svc.clock.now()));
    assert.equal(after.stripeMode, 'NONE');
    await withTransaction(svc.ctx.db, (tx) => setStripeMode(tx, o.account.accountId, 'NONE', actor, svc.clock.now()));
    const log = await o.audit();
    assert.deepEqual(log.map((e) => e.details.to), ['NONE', 'PROCESSOR_INTEGRATION'], 'one row per change, none for a no-op');
    await assert.rejects(
      withTransaction(svc.ctx.db, async (tx) => {
        await setStripeMode(tx, o.account.accountId, 'PAYMENT_PASS_THROUGH', actor, svc.clock.now());
        throw new Error('the caller fails later');
      }),
    );
    assert.equal((await o.settings()).stripeMode, 'NONE', 'the caller rolling back undoes the mode');
    assert.equal((await o.audit()).length, 2, 'and its audit row');
  });

  test('when a tenant key or no credential calls the settings routes then it is 401', async () => {
    const o = await operator();
    for (const [method, path] of [['GET', PATH], ['PATCH', PATH], ['GET', '/api/v1/tanso/audit-log']] as const) {
      const withKey = await svc.http.request(method, path, { auth: o.account.apiKey, ...(method === 'PATCH' ? { body: { currency: 'EUR' } } : {}) });
      assert.equal(withKey.status, 401, `${method} ${path} with a tenant key`);
      assert.equal(withKey.body.error.code, 'unauthorized');
      const anonymous = await svc.http.request(method, path);
      assert.equal(anonymous.status, 401, `${method} ${path} without credentials`);
    }
    assert.equal((await o.settings()).currency, 'USD');
  });

  test('when the first PATCHes of a fresh account race, each setting one field, then every field holds its value and there is one row', async () => {
    const o = await operator();
    const bodies = [
      { currency: 'EUR' },
      { slug: 'first-race' },
      { agentSignupHourlyCap: 7 },
      { agentMaxTopupAmount: 12 },
      { stripeMode: 'PAYMENT_PASS_THROUGH' },
      { stripeCheckoutSuccessUrl: 'https://acme.example/ok' },
      { stripeCheckoutCancelUrl: 'https://acme.example/cancel' },
      { defaultCostConfig: { costUnit: 'token' } },
    ];
    const results = await Promise.all(bodies.map((body) => o.patch(body)));
    for (const r of results) assert.equal(r.status, 200, r.text);
    const s = await o.settings();
    assert.deepEqual(
      [s.currency, s.slug, s.agentSignupHourlyCap, s.agentMaxTopupAmount, s.stripeMode, s.stripeCheckoutSuccessUrl, s.stripeCheckoutCancelUrl, s.defaultCostConfig?.costUnit],
      bodies.map((b) => (Object.values(b)[0] as { costUnit?: string }).costUnit ?? Object.values(b)[0]),
      'no update was lost',
    );
    const rows = await svc.ctx.db.selectFrom('account_settings').selectAll().where('account_id', '=', o.account.accountId).execute();
    assert.equal(rows.length, 1);
    assert.deepEqual((await o.audit()).map((e) => e.action).sort(), ['AGENT_MAX_TOPUP_AMOUNT_CHANGED', 'SLUG_CHANGED', 'STRIPE_MODE_CHANGED']);
  });

  test('when PATCHes race to turn the catalog on and to clear the slug then at most one wins and the result is never a catalog without a slug', async () => {
    const o = await operator();
    for (let round = 0; round < (backend === 'postgres' ? 6 : 2); round++) {
      await o.set({ publicCatalogEnabled: false });
      await o.set({ slug: `race-${round}` });
      const [on, clear] = await Promise.all([o.patch({ publicCatalogEnabled: true }), o.patch({ slug: null })]);
      const s = await o.settings();
      assert.ok(!(s.publicCatalogEnabled && s.slug === null), `round ${round}: ${JSON.stringify(s)}`);
      assert.equal([on.status, clear.status].filter((x) => x === 200).length, 1, `round ${round}: exactly one applies (${on.text} / ${clear.text})`);
    }
  });
});
