import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '../../../src/platform/http/json.js';
import { dec } from '../../../src/platform/money.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from './reports-fixtures.js';

/** Unit budgets and bumps (contract §7.5); "now" is 2026-11-25T12:00Z. */
describe('spend budgets and bumps', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-11-25T12:00:00Z' });
  });
  after(() => svc.close());

  async function setup() {
    const f = spendFixtures(svc, await createTestAccount(svc));
    const unit = await f.expectOk(f.api('POST', '/units', { type: 'TEAM', name: 'Backend' }), 201);
    const path = `/units/${unit.id}/budget`;
    const exact = async (res: Promise<{ status: number; text: string }>, status = 200) => {
      const r = await res;
      assert.equal(r.status, status, r.text);
      return (parseJson(r.text) as { data: any }).data;
    };
    return { f, unit, path, exact };
  }

  test('no budget: 404 with the contract message; unknown or foreign unit: 404', async () => {
    const { f, unit, path } = await setup();
    const res = await f.api('GET', path);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.message, `No budget on unit ${unit.id}`);
    assert.equal((await f.api('DELETE', path)).status, 404);
    assert.equal((await f.api('GET', '/units/018f0000-0000-7000-8000-000000000000/budget')).status, 404);
    const other = await setup();
    assert.equal((await other.f.api('PUT', path, { monthlyCents: 100 })).status, 404, "another account cannot budget this unit");
  });

  test('PUT rules and defaults', async () => {
    const { f, path, exact } = await setup();
    const cases: [unknown, string][] = [
      [{}, 'Set a daily or a monthly ceiling (or both)'],
      [{ dailyCents: null, monthlyCents: null }, 'Set a daily or a monthly ceiling (or both)'],
      [{ monthlyCents: -1 }, 'A ceiling cannot be negative'],
      [{ dailyCents: '-0.5', monthlyCents: 100 }, 'A ceiling cannot be negative'],
    ];
    for (const [body, message] of cases) {
      const res = await f.api('PUT', path, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.message, message);
    }
    for (const body of [{ monthlyCents: 100, alertThreshold: 0 }, { monthlyCents: 100, alertThreshold: 101 }, { monthlyCents: 100, monthlyMode: 'SOFT' }, { monthlyCents: 'lots' }]) {
      const res = await f.api('PUT', path, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_failed');
    }
    assert.equal((await f.api('GET', path)).status, 404, 'refused PUTs wrote nothing');
    const b = await exact(f.api('PUT', path, { monthlyCents: '50000.25' }));
    assert.deepEqual(
      [dec(b.monthlyCents).toFixed(), b.dailyCents, b.alertThreshold, b.monthlyMode, dec(b.effectiveMonthlyCents).toFixed()],
      ['50000.25', null, 80, 'ALERT', '50000.25'],
    );
    assert.equal(b.dailyResetsAt, '2026-11-26T00:00:00.000Z');
    assert.equal(b.monthlyResetsAt, '2026-12-01T00:00:00.000Z');
    assert.deepEqual([b.gatewaySpentCents, b.bumpMonthlyCents, b.bumpExpiresAt, b.bumpReason, b.enforcementTarget, b.enforcedAt, b.enforcementError], [null, null, null, null, null, null, null]);
    const replaced = await exact(f.api('PUT', path, { dailyCents: 1000, alertThreshold: 50, monthlyMode: 'BLOCK' }));
    assert.deepEqual([dec(replaced.dailyCents).toFixed(), replaced.monthlyCents, replaced.alertThreshold, replaced.monthlyMode], ['1000', null, 50, 'BLOCK'], 'PUT is a full replace');
  });

  test('spent figures are the unit allocation for the UTC day and month', async () => {
    const { f, unit, path, exact } = await setup();
    await f.expectOk(f.api('POST', '/rules', { spendUnitId: unit.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_be' }), 201);
    const child = await f.expectOk(f.api('POST', '/units', { type: 'PROJECT', name: 'Search', parentId: unit.id }), 201);
    await f.expectOk(f.api('POST', '/rules', { spendUnitId: child.id, provider: 'ANTHROPIC', matchKind: 'API_KEY_ID', matchValue: 'key_search' }), 201);
    const conn = await f.connection('ANTHROPIC');
    await f.buckets(conn, 'ANTHROPIC', [
      { day: '2026-11-25', model: 'claude-sonnet-4-5', workspace: 'wrkspc_be', u: 1_000_000 }, // 300 today
      { day: '2026-11-25', model: 'claude-sonnet-4-5', workspace: 'wrkspc_x', apiKey: 'key_search', u: 500_000 }, // 150 today, child
      { day: '2026-11-03', model: 'claude-sonnet-4-5', workspace: 'wrkspc_be', u: 2_000_000 }, // 600 this month
      { day: '2026-10-31', model: 'claude-sonnet-4-5', workspace: 'wrkspc_be', u: 9_000_000 }, // last month
    ]);
    const b = await exact(f.api('PUT', path, { dailyCents: 1000, monthlyCents: 5000 }));
    assert.equal(dec(b.dailySpentCents).toFixed(), '450');
    assert.equal(dec(b.monthlySpentCents).toFixed(), '1050');
  });

  test('bumps: the contract rules, the effective ceiling while it lasts, end now', async () => {
    const { f, unit, path, exact } = await setup();
    const bump = (body: unknown) => f.api('POST', `${path}/bump`, body);
    const future = '2026-11-25T13:00:00Z'; // within the login's 2-hour life, so the clock can pass it
    let res = await bump({ monthlyCents: 100, expiresAt: future });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.message, 'No budget on Backend to bump — set a monthly ceiling first');
    await exact(f.api('PUT', path, { dailyCents: 100 }));
    res = await bump({ monthlyCents: 100, expiresAt: future });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.message, 'A bump lifts the monthly ceiling; set one first');
    await exact(f.api('PUT', path, { monthlyCents: 50000 }));
    res = await bump({ monthlyCents: 50000, expiresAt: future });
    assert.equal(res.body.error.message, 'A bump must be above the standing ceiling of $500.00 — lower the budget instead');
    res = await bump({ monthlyCents: 60000, expiresAt: '2026-11-25T11:59:59Z' });
    assert.equal(res.body.error.message, "The bump's expiry is already in the past");
    assert.equal((await bump({ monthlyCents: 60000 })).status, 400, 'expiresAt is required');
    const bumped = await exact(bump({ monthlyCents: 60000, expiresAt: future, reason: ' launch week ' }));
    assert.deepEqual([dec(bumped.effectiveMonthlyCents).toFixed(), dec(bumped.bumpMonthlyCents).toFixed(), bumped.bumpExpiresAt, bumped.bumpReason], ['60000', '60000', '2026-11-25T13:00:00.000Z', 'launch week']);
    assert.equal(dec(bumped.monthlyCents).toFixed(), '50000', 'the standing ceiling stays');
    // A PUT that keeps the monthly ceiling below the bump keeps the bump; one at or above it drops it.
    const kept = await exact(f.api('PUT', path, { monthlyCents: 55000 }));
    assert.equal(dec(kept.effectiveMonthlyCents).toFixed(), '60000');
    // After the expiry the standing ceiling is in force again.
    svc.clock.set('2026-11-25T13:00:01Z');
    try {
      const expired = await exact(f.api('GET', path));
      assert.equal(dec(expired.effectiveMonthlyCents).toFixed(), '55000');
    } finally {
      svc.clock.set('2026-11-25T12:00:00Z');
    }
    const ended = await exact(f.api('DELETE', `${path}/bump`));
    assert.deepEqual([ended.bumpMonthlyCents, ended.bumpExpiresAt, ended.bumpReason, dec(ended.effectiveMonthlyCents).toFixed()], [null, null, null, '55000']);
    const dropped = await exact(bump({ monthlyCents: 70000, expiresAt: future }));
    assert.equal(dec(dropped.effectiveMonthlyCents).toFixed(), '70000');
    const replaced = await exact(f.api('PUT', path, { monthlyCents: 80000 }));
    assert.deepEqual([replaced.bumpMonthlyCents, dec(replaced.effectiveMonthlyCents).toFixed()], [null, '80000'], 'a ceiling at or above the bump drops it');
    assert.ok(unit.id);
  });

  test('gatewaySpentCents: null without a LiteLLM rule, else what the proxy counted this month for the rules', async () => {
    const { f, unit, path, exact } = await setup();
    let b = await exact(f.api('PUT', path, { monthlyCents: 10000 }));
    assert.equal(b.gatewaySpentCents, null);
    await f.expectOk(f.api('POST', '/rules', { spendUnitId: unit.id, provider: 'LITELLM', matchKind: 'WORKSPACE_ID', matchValue: 'team-backend' }), 201);
    const conn = await f.connection('LITELLM');
    await f.buckets(conn, 'LITELLM', [
      { day: '2026-11-20', model: 'gpt-4o', workspace: 'team-backend', u: 10, vendorCost: '12.345' },
      { day: '2026-11-21', model: 'gpt-4o', workspace: 'team-backend', actor: 'x', u: 10, vendorCost: '0.005' },
      { day: '2026-11-21', model: 'gpt-4o', workspace: 'team-other', u: 10, vendorCost: '99' },
      { day: '2026-10-30', model: 'gpt-4o', workspace: 'team-backend', u: 10, vendorCost: '99' },
    ]);
    b = await exact(f.api('GET', path));
    assert.equal(dec(b.gatewaySpentCents).toFixed(), '12.35');
  });

  test('delete: the budget goes, and deleting the unit deletes its budget', async () => {
    const { f, unit, path, exact } = await setup();
    await exact(f.api('PUT', path, { monthlyCents: 100 }));
    assert.equal((await f.api('DELETE', path)).status, 200);
    assert.equal((await f.api('GET', path)).status, 404);
    await exact(f.api('PUT', path, { monthlyCents: 100 }));
    await f.expectOk(f.api('DELETE', `/units/${unit.id}`));
    const count = await svc.ctx.db.selectFrom('spend_budgets').select((eb) => eb.fn.countAll<string>().as('n')).where('spend_unit_id', '=', unit.id).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });
});
