import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { enforceUnitBudget } from '../../../src/modules/spend/gateway/service.js';
import { parseJson } from '../../../src/platform/http/json.js';
import { dec } from '../../../src/platform/money.js';
import { LITELLM_FAKE_KEY, startLiteLlmFake, type LiteLlmFake } from '../../fakes/vendors/litellm.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from './reports-fixtures.js';

/**
 * Gateway enforcement of spend budgets on the LiteLLM proxy (contract §7.5 "Gateway enforcement",
 * vendor-apis.md §5.4), through HTTP against the loopback proxy fake. "Now" is 2026-11-25T12:00Z.
 */
describe('spend gateway enforcement (LiteLLM budget push)', () => {
  const NOW = '2026-11-25T12:00:00Z';
  let svc: TestService;
  let proxy: LiteLlmFake;
  before(async () => {
    proxy = await startLiteLlmFake();
    svc = await startTestService({
      now: NOW,
      env: { APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true', APP_SPEND_GATEWAY_TIMEOUT_MS: '1000', APP_SPEND_VENDOR_TIMEOUT_MS: '5000' },
    });
  });
  after(async () => {
    await svc.close();
    await proxy.close();
  });
  beforeEach(() => {
    proxy.reset();
    svc.clock.set(NOW);
  });

  /** An account with a LITELLM connection to the fake and a unit "Backend" with a rule per `rules`. */
  async function setup(options: { connect?: boolean; rules?: { matchKind: string; matchValue: string; priority?: number }[] } = {}) {
    const account = await createTestAccount(svc);
    const f = spendFixtures(svc, account);
    if (options.connect ?? true) {
      await f.expectOk(f.api('POST', '/connections', { provider: 'LITELLM', label: 'proxy', adminKey: LITELLM_FAKE_KEY, scope: proxy.url }), 201);
    }
    const unit = await f.expectOk(f.api('POST', '/units', { type: 'TEAM', name: 'Backend' }), 201);
    for (const rule of options.rules ?? [{ matchKind: 'WORKSPACE_ID', matchValue: 'team-backend' }]) {
      await f.expectOk(f.api('POST', '/rules', { spendUnitId: unit.id, provider: 'LITELLM', ...rule }), 201);
    }
    const path = `/units/${unit.id}/budget`;
    /** The answer's data read exactly (decimal fields as Decimal). */
    const exact = async (res: Promise<{ status: number; text: string }>, status = 200) => {
      const r = await res;
      assert.equal(r.status, status, r.text);
      return (parseJson(r.text) as { data: any }).data;
    };
    return { account, f, unit, path, exact };
  }

  const updates = (path = '/team/update') => proxy.requests.filter((r) => r.method === 'POST' && r.path === path).map((r) => r.body);
  const enforcement = (b: any) => [b.enforcementTarget, b.enforcedAt, b.enforcementError];

  test('BLOCK pushes the monthly ceiling as exact dollars with budget_duration 1mo, and records where and when', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, path, exact } = await setup();
    const b = await exact(f.api('PUT', path, { monthlyCents: 12345, dailyCents: 500, monthlyMode: 'BLOCK' }));
    assert.deepEqual(updates(), ['{"team_id":"team-backend","max_budget":123.45,"budget_duration":"1mo"}'], '12345 cents = $123.45, one push');
    assert.equal(proxy.requests.find((r) => r.path === '/team/update')!.headers['authorization'], `Bearer ${LITELLM_FAKE_KEY}`);
    assert.deepEqual(enforcement(b), ['litellm:team:team-backend', '2026-11-25T12:00:00.000Z', null]);
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), '123.45');

    // Fractional cents stay exact: 12345.678 cents = $123.45678 (no float, no rounding).
    await exact(f.api('PUT', path, { monthlyCents: '12345.678', monthlyMode: 'BLOCK' }));
    assert.equal(updates().at(-1), '{"team_id":"team-backend","max_budget":123.45678,"budget_duration":"1mo"}');
    // A BLOCK budget with only a daily ceiling has no monthly ceiling to enforce: null.
    const daily = await exact(f.api('PUT', path, { dailyCents: 100, monthlyMode: 'BLOCK' }));
    assert.equal(updates().at(-1), '{"team_id":"team-backend","max_budget":null}');
    assert.deepEqual(enforcement(daily), [null, null, null]);
  });

  test('ALERT pushes max_budget null; switching BLOCK → ALERT lifts the ceiling and clears the enforcement fields', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, path, exact } = await setup();
    const alert = await exact(f.api('PUT', path, { monthlyCents: 10000 }));
    assert.deepEqual(updates(), ['{"team_id":"team-backend","max_budget":null}'], 'ALERT (the default) pushes null');
    assert.deepEqual(enforcement(alert), [null, null, null]);
    await exact(f.api('PUT', path, { monthlyCents: 10000, monthlyMode: 'BLOCK' }));
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), '100');
    const switched = await exact(f.api('PUT', path, { monthlyCents: 10000, monthlyMode: 'ALERT' }));
    assert.equal(updates().at(-1), '{"team_id":"team-backend","max_budget":null}');
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget, null);
    assert.deepEqual(enforcement(switched), [null, null, null]);
  });

  test('DELETE pushes max_budget null first, then deletes; a refused push keeps the budget (502)', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, path, exact } = await setup();
    await exact(f.api('PUT', path, { monthlyCents: 20000, monthlyMode: 'BLOCK' }));
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), '200');

    proxy.failNext(1, { status: 400, path: '/team/update', message: 'Budget updates are paused' });
    const refused = await f.api('DELETE', path);
    assert.equal(refused.status, 502, refused.text);
    assert.equal(refused.body.error.code, 'vendor_error');
    assert.equal(refused.body.error.message, 'The budget was kept: LiteLLM refused to lift its ceiling (Budget updates are paused)');
    const kept = await exact(f.api('GET', path));
    assert.deepEqual([dec(kept.monthlyCents).toFixed(), kept.enforcementTarget, kept.enforcementError], ['20000', null, 'Budget updates are paused']);
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), '200', 'the proxy still holds the ceiling, so the budget stayed');

    const pushesBefore = updates().length;
    assert.equal((await f.api('DELETE', path)).status, 200);
    assert.equal(updates().length, pushesBefore + 1);
    assert.equal(updates().at(-1), '{"team_id":"team-backend","max_budget":null}');
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget, null);
    assert.equal((await f.api('GET', path)).status, 404);
  });

  test('DELETE of an ALERT budget the proxy holds nothing for does not call the proxy', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, path, exact } = await setup();
    await exact(f.api('PUT', path, { monthlyCents: 100 }));
    const pushes = updates().length;
    proxy.failNext(5, { status: 503 });
    assert.equal((await f.api('DELETE', path)).status, 200, 'a proxy outage does not hold an ALERT budget hostage');
    assert.equal(updates().length, pushes);
  });

  test('bump pushes the bump amount while it lasts; end-bump re-pushes the standing ceiling', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, path, exact } = await setup();
    await exact(f.api('PUT', path, { monthlyCents: 50000, monthlyMode: 'BLOCK' }));
    assert.equal(updates().at(-1), '{"team_id":"team-backend","max_budget":500,"budget_duration":"1mo"}');
    const bumped = await exact(f.api('POST', `${path}/bump`, { monthlyCents: '60000.5', expiresAt: '2026-11-25T13:00:00Z', reason: 'launch' }));
    assert.equal(updates().at(-1), '{"team_id":"team-backend","max_budget":600.005,"budget_duration":"1mo"}', 'the bump, exactly');
    assert.deepEqual(enforcement(bumped), ['litellm:team:team-backend', '2026-11-25T12:00:00.000Z', null]);
    svc.clock.set('2026-11-25T12:10:00Z');
    const ended = await exact(f.api('DELETE', `${path}/bump`));
    assert.equal(updates().at(-1), '{"team_id":"team-backend","max_budget":500,"budget_duration":"1mo"}');
    assert.equal(ended.enforcedAt, '2026-11-25T12:10:00.000Z');
    assert.equal(updates().length, 3);
  });

  test('an expired bump: POST /budgets/evaluate drops it and re-pushes the standing ceiling', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, unit, path, exact } = await setup();
    await exact(f.api('PUT', path, { monthlyCents: 30000, monthlyMode: 'BLOCK' }));
    await exact(f.api('POST', `${path}/bump`, { monthlyCents: 45000, expiresAt: '2026-11-25T13:00:00Z' }));
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), '450');

    await f.expectOk(f.api('POST', '/budgets/evaluate'));
    assert.equal(updates().length, 2, 'a bump still running is not re-pushed');
    svc.clock.set('2026-11-25T13:00:01Z');
    await f.expectOk(f.api('POST', '/budgets/evaluate'));
    assert.equal(updates().at(-1), '{"team_id":"team-backend","max_budget":300,"budget_duration":"1mo"}');
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), '300');
    const b = await exact(f.api('GET', path));
    assert.deepEqual([b.bumpMonthlyCents, ...enforcement(b)], [null, 'litellm:team:team-backend', '2026-11-25T13:00:01.000Z', null]);
    assert.ok(unit.id);
  });

  test('enforceUnitBudget (the evaluation\'s seam) pushes the effective ceiling as of now, the bump no longer counting once expired', async () => {
    proxy.addTarget('team', 'team-backend');
    const { account, f, unit, path, exact } = await setup();
    await exact(f.api('PUT', path, { monthlyCents: 30000, monthlyMode: 'BLOCK' }));
    await exact(f.api('POST', `${path}/bump`, { monthlyCents: 45000, expiresAt: '2026-11-25T13:00:00Z' }));
    svc.clock.set('2026-11-25T13:00:01Z');
    await enforceUnitBudget(svc.ctx, account.accountId, unit.id);
    assert.equal(updates().at(-1), '{"team_id":"team-backend","max_budget":300,"budget_duration":"1mo"}');
    const row = await svc.ctx.db.selectFrom('spend_budgets').selectAll().where('spend_unit_id', '=', unit.id).executeTakeFirstOrThrow();
    assert.deepEqual([row.enforcement_target, row.enforced_at?.toISOString(), row.enforcement_error], ['litellm:team:team-backend', '2026-11-25T13:00:01.000Z', null]);
  });

  test('a refused push keeps the budget with enforcementError and no target; the next successful push clears the error', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, path, exact } = await setup();
    proxy.acceptMonths = false; // a proxy that refuses the month duration (INFERRED in the doc)
    const refused = await exact(f.api('PUT', path, { monthlyCents: 12345, monthlyMode: 'BLOCK' }));
    assert.deepEqual([dec(refused.monthlyCents).toFixed(), refused.monthlyMode], ['12345', 'BLOCK'], 'the budget is saved');
    assert.deepEqual(enforcement(refused), [null, null, 'Invalid budget_duration']);
    assert.equal((await exact(f.api('GET', path))).enforcementError, 'Invalid budget_duration');

    proxy.acceptMonths = true;
    proxy.failNext(2, { status: 500, path: '/team/update' }); // the push and its one retry
    const down = await exact(f.api('PUT', path, { monthlyCents: 12345, monthlyMode: 'BLOCK' }));
    assert.deepEqual(enforcement(down), [null, null, 'Internal Server Error (500)']);

    proxy.failNext(2, { status: 200, path: '/team/update', delayMs: 1500 }); // slower than the 1 s gateway timeout
    const slow = await exact(f.api('PUT', path, { monthlyCents: 12345, monthlyMode: 'BLOCK' }));
    assert.deepEqual(enforcement(slow), [null, null, 'LiteLLM did not answer within 1000 ms']);

    const fixed = await exact(f.api('PUT', path, { monthlyCents: 12345, monthlyMode: 'BLOCK' }));
    assert.deepEqual(enforcement(fixed), ['litellm:team:team-backend', '2026-11-25T12:00:00.000Z', null]);
  });

  test('an evaluation tries a failed push again: the proxy back, the error clears', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, path, exact } = await setup();
    proxy.failNext(2, { status: 503, path: '/team/update' });
    const down = await exact(f.api('PUT', path, { monthlyCents: 2500, monthlyMode: 'BLOCK' }));
    assert.deepEqual(enforcement(down), [null, null, 'Internal Server Error (503)']);
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget, null);
    svc.clock.set('2026-11-25T12:30:00Z');
    await f.expectOk(f.api('POST', '/budgets/evaluate'));
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), '25');
    assert.deepEqual(enforcement(await exact(f.api('GET', path))), ['litellm:team:team-backend', '2026-11-25T12:30:00.000Z', null]);
    const pushes = updates().length;
    await f.expectOk(f.api('POST', '/budgets/evaluate'));
    assert.equal(updates().length, pushes, 'an enforced budget is not pushed again by the evaluation');
  });

  test('an unknown team on the proxy is the proxy\'s own message', async () => {
    const { f, path, exact } = await setup({ rules: [{ matchKind: 'WORKSPACE_ID', matchValue: 'team-nowhere' }] });
    const b = await exact(f.api('PUT', path, { monthlyCents: 100, monthlyMode: 'BLOCK' }));
    assert.deepEqual(enforcement(b), [null, null, 'Team not found, passed team_id=team-nowhere']);
  });

  test('several LiteLLM rules: each target is pushed (team, key, user routes); enforcementTarget is the first rule\'s', async () => {
    proxy.addTarget('team', 'team-backend');
    proxy.addTarget('key', 'hash-ci');
    proxy.addTarget('user', 'dana@example.com');
    const { f, path, exact } = await setup({
      rules: [
        { matchKind: 'WORKSPACE_ID', matchValue: 'team-backend', priority: 50 },
        { matchKind: 'API_KEY_ID', matchValue: 'hash-ci', priority: 10 },
        { matchKind: 'ACTOR', matchValue: 'dana@example.com', priority: 100 },
      ],
    });
    const b = await exact(f.api('PUT', path, { monthlyCents: 7000, monthlyMode: 'BLOCK' }));
    assert.deepEqual(updates('/key/update'), ['{"key":"hash-ci","max_budget":70,"budget_duration":"1mo"}']);
    assert.deepEqual(updates('/team/update'), ['{"team_id":"team-backend","max_budget":70,"budget_duration":"1mo"}']);
    assert.deepEqual(updates('/user/update'), ['{"user_id":"dana@example.com","max_budget":70,"budget_duration":"1mo"}']);
    assert.deepEqual(enforcement(b), ['litellm:key:hash-ci', '2026-11-25T12:00:00.000Z', null], 'priority 10 rule first');

    proxy.failNext(1, { status: 400, path: '/user/update', message: 'User budgets need a database' });
    const partial = await exact(f.api('PUT', path, { monthlyCents: 8000, monthlyMode: 'BLOCK' }));
    assert.deepEqual(enforcement(partial), [null, '2026-11-25T12:00:00.000Z', 'litellm:user:dana@example.com: User budgets need a database']);
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), '80', 'the other targets were still pushed');
  });

  test('no LiteLLM rule: no push, enforcement fields and gatewaySpentCents null; a rule without a connection records why', async () => {
    const { f, unit, path, exact } = await setup({ rules: [] });
    await f.expectOk(f.api('POST', '/rules', { spendUnitId: unit.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'team-backend' }), 201);
    const b = await exact(f.api('PUT', path, { monthlyCents: 12345, monthlyMode: 'BLOCK' }));
    assert.equal(proxy.requests.filter((r) => r.path !== '/spend/logs/v2').length, 0, 'nothing but the connection probe reached the proxy');
    assert.deepEqual([...enforcement(b), b.gatewaySpentCents], [null, null, null, null]);

    const other = await setup({ connect: false });
    const unconnected = await other.exact(other.f.api('PUT', other.path, { monthlyCents: 100, monthlyMode: 'BLOCK' }));
    assert.deepEqual(enforcement(unconnected), [null, null, 'No LiteLLM connection to enforce this BLOCK budget at: connect the proxy under Spend connections']);
    const alert = await other.exact(other.f.api('PUT', other.path, { monthlyCents: 100 }));
    assert.deepEqual(enforcement(alert), [null, null, null], 'an ALERT budget has nothing to enforce');
  });

  test('gatewaySpentCents: the proxy\'s own monthly counter while enforced, else (or when the proxy fails) the synced spend logs', async () => {
    proxy.addTarget('team', 'team-backend', { spend: '4.567' });
    const { account, f, path, exact } = await setup();
    const [conn] = await svc.ctx.db.selectFrom('spend_connections').select('id').where('account_id', '=', account.accountId).execute();
    await f.buckets(conn!.id, 'LITELLM', [
      { day: '2026-11-20', model: 'gpt-4o', workspace: 'team-backend', u: 10, vendorCost: '12.345' },
      { day: '2026-11-21', model: 'gpt-4o', workspace: 'team-other', u: 10, vendorCost: '99' },
      { day: '2026-10-31', model: 'gpt-4o', workspace: 'team-backend', u: 10, vendorCost: '99' },
    ]);
    const alert = await exact(f.api('PUT', path, { monthlyCents: 10000 }));
    assert.equal(dec(alert.gatewaySpentCents).toFixed(), '12.345', 'ALERT: the synced logs of November for team-backend');
    assert.equal(proxy.requests.filter((r) => r.path === '/team/info').length, 0, 'no read-back while nothing is enforced');

    const block = await exact(f.api('PUT', path, { monthlyCents: 10000, monthlyMode: 'BLOCK' }));
    assert.equal(dec(block.gatewaySpentCents).toFixed(), '456.7', 'BLOCK: /team/info spend $4.567 = 456.7 cents');
    proxy.setSpend('team', 'team-backend', '5.01');
    assert.equal(dec((await exact(f.api('GET', path))).gatewaySpentCents).toFixed(), '501');

    proxy.failNext(1, { status: 503, path: '/team/info' });
    const fallback = await exact(f.api('GET', path));
    assert.equal(dec(fallback.gatewaySpentCents).toFixed(), '12.345', 'a proxy failure falls back to the synced figure; GET still 200');
  });

  test('rules: a new LiteLLM rule gets the ceiling; deleting one lifts it there first (502, rule kept, on refusal)', async () => {
    proxy.addTarget('team', 'team-backend');
    proxy.addTarget('key', 'hash-ci');
    const { f, unit, path, exact } = await setup();
    await exact(f.api('PUT', path, { monthlyCents: 9000, monthlyMode: 'BLOCK' }));
    const keyRule = await f.expectOk(f.api('POST', '/rules', { spendUnitId: unit.id, provider: 'LITELLM', matchKind: 'API_KEY_ID', matchValue: 'hash-ci', priority: 1 }), 201);
    assert.deepEqual(updates('/key/update'), ['{"key":"hash-ci","max_budget":90,"budget_duration":"1mo"}'], 'the new rule\'s key got the ceiling');
    assert.equal((await exact(f.api('GET', path))).enforcementTarget, 'litellm:key:hash-ci', 'priority 1 is now the first target');

    proxy.failNext(1, { status: 400, path: '/key/update', message: 'Key is locked' });
    const refused = await f.api('DELETE', `/rules/${keyRule.id}`);
    assert.equal(refused.status, 502, refused.text);
    assert.equal(refused.body.error.message, 'The rule was kept: LiteLLM refused to lift its ceiling (litellm:key:hash-ci: Key is locked)');
    assert.equal((await f.api('GET', '/rules')).body.data.length, 2);

    await f.expectOk(f.api('DELETE', `/rules/${keyRule.id}`));
    assert.equal(updates('/key/update').at(-1), '{"key":"hash-ci","max_budget":null}');
    assert.equal(proxy.target('key', 'hash-ci')!.maxBudget, null);
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), '90', 'the remaining target keeps its ceiling');
    assert.equal((await exact(f.api('GET', path))).enforcementTarget, 'litellm:team:team-backend');
  });

  test('deleting a unit with an enforced budget lifts its ceilings first (502, unit kept, on refusal)', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, unit, path, exact } = await setup();
    await exact(f.api('PUT', path, { monthlyCents: 9000, monthlyMode: 'BLOCK' }));
    proxy.failNext(1, { status: 400, path: '/team/update', message: 'Team is locked' });
    const refused = await f.api('DELETE', `/units/${unit.id}`);
    assert.equal(refused.status, 502, refused.text);
    assert.equal(refused.body.error.message, 'The unit was kept: LiteLLM refused to lift its ceiling (Team is locked)');
    assert.equal((await exact(f.api('GET', path))).enforcementError, 'Team is locked');
    await f.expectOk(f.api('DELETE', `/units/${unit.id}`));
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget, null);
    assert.equal((await f.api('GET', '/units')).body.data.length, 0);
  });

  test('the gateway itself: connecting the proxy enforces waiting BLOCK budgets; deleting it records that none is left', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, path, exact } = await setup({ connect: false });
    const waiting = await exact(f.api('PUT', path, { monthlyCents: 4200, monthlyMode: 'BLOCK' }));
    assert.equal(waiting.enforcementError, 'No LiteLLM connection to enforce this BLOCK budget at: connect the proxy under Spend connections');
    const conn = await f.expectOk(f.api('POST', '/connections', { provider: 'LITELLM', label: 'proxy', adminKey: LITELLM_FAKE_KEY, scope: proxy.url }), 201);
    assert.deepEqual(updates(), ['{"team_id":"team-backend","max_budget":42,"budget_duration":"1mo"}']);
    assert.deepEqual(enforcement(await exact(f.api('GET', path))), ['litellm:team:team-backend', '2026-11-25T12:00:00.000Z', null]);
    await f.expectOk(f.api('DELETE', `/connections/${conn.id}`));
    const orphaned = await exact(f.api('GET', path));
    assert.deepEqual([orphaned.enforcementTarget, orphaned.enforcementError], [null, 'No LiteLLM connection to enforce this BLOCK budget at: connect the proxy under Spend connections']);
    assert.equal(updates().length, 1, 'the deleted proxy is not called');
  });

  test('concurrent budget writes leave the proxy holding what the row holds', async () => {
    proxy.addTarget('team', 'team-backend');
    const { f, path, exact } = await setup();
    const amounts = [1000, 2000, 3000, 4000, 5000];
    await Promise.all(amounts.map((cents) => exact(f.api('PUT', path, { monthlyCents: cents, monthlyMode: 'BLOCK' }))));
    const stored = await exact(f.api('GET', path));
    assert.equal(proxy.target('team', 'team-backend')!.maxBudget!.toFixed(), dec(stored.monthlyCents).div(100).toFixed());
    assert.equal(stored.enforcementTarget, 'litellm:team:team-backend');
  });
});
