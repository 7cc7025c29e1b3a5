import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '../../../src/platform/http/json.js';
import { newId } from '../../../src/platform/ids.js';
import { dec } from '../../../src/platform/money.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from './reports-fixtures.js';

/**
 * Outcome report (contract §7.9): spend (the allocation's spendCents, with descendants) over
 * outcomes (with descendants). Expected cents by hand: tokens × USD per million ÷ 10,000
 * (claude-sonnet-4-5: input 3, output 15; gpt-5-mini input 0.25).
 */
describe(`spend outcome report (${backend})`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-11-25T12:00:00Z' });
  });
  after(() => svc.close());

  async function setup() {
    const f = spendFixtures(svc, await createTestAccount(svc));
    const unit = (body: Record<string, unknown>) => f.expectOk(f.api('POST', '/units', body), 201);
    const rule = (body: Record<string, unknown>) => f.expectOk(f.api('POST', '/rules', body), 201);
    const outcome = (body: Record<string, unknown>) => f.expectOk(f.api('POST', '/outcomes', body), 201);
    /** The report with exact decimals (the harness's JSON.parse would make floats). */
    const report = async (query = 'from=2026-09-01&to=2026-09-02') => {
      const res = await f.api('GET', `/reports/outcomes?${query}`);
      assert.equal(res.status, 200, res.text);
      return (parseJson(res.text) as { data: any }).data;
    };
    return { f, unit, rule, outcome, report };
  }

  const text = (v: unknown) => (v === null ? null : dec(v as string).toFixed());
  const figures = (row: any) => [row.prsMerged, row.issuesDone, row.custom, row.outcomes, row.aiAssisted, text(row.spendCents), text(row.personEstimateCents), text(row.costPerOutcomeCents)];

  test('when outcomes are posted and pulled against a unit tree then each unit counts its own and its descendants’ outcomes over its spend', async () => {
    const { f, unit, rule, outcome, report } = await setup();
    await f.expectOk(f.api('PUT', '/settings', { workerNotice: 'AI spend is attributed to you by name.', personLevelEnabled: true }));
    const eng = await unit({ type: 'TEAM', name: 'Eng' });
    const api = await unit({ type: 'PROJECT', name: 'API', parentId: eng.id });
    const web = await unit({ type: 'PROJECT', name: 'Web', parentId: eng.id });
    const ops = await unit({ type: 'TEAM', name: 'Ops' });
    const ada = await unit({ type: 'PERSON', name: 'Ada', email: 'ada@acme.example', parentId: ops.id });
    const idle = await unit({ type: 'TEAM', name: 'Idle' });
    await rule({ spendUnitId: api.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_api' });
    await rule({ spendUnitId: web.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_web' });
    await rule({ spendUnitId: eng.id, provider: 'OPENAI', matchKind: 'ACTOR', matchValue: 'dev@acme.example' });
    const anthropic = await f.connection('ANTHROPIC');
    const openai = await f.connection('OPENAI');
    await f.buckets(anthropic, 'ANTHROPIC', [
      { day: '2026-09-01', model: 'claude-sonnet-4-5', workspace: 'wrkspc_api', u: 1_000_000 }, // 300 → API
      { day: '2026-09-01', model: 'claude-sonnet-4-5', workspace: 'wrkspc_web', u: 2_000_000, o: 100_001 }, // 600 + 150.0015 → Web
      { day: '2026-09-01', model: 'claude-sonnet-4-5', workspace: 'wrkspc_x', u: 1_000_000 }, // 300 unattributed
    ]);
    await f.buckets(openai, 'OPENAI', [{ day: '2026-09-01', model: 'gpt-5-mini', actor: 'dev@acme.example', u: 4_000_000 }]); // 100 → Eng
    // Ada's Claude Code rows: 1,000,000 input tokens → a 300-cent person estimate.
    await f.actorMetrics(anthropic, 'ANTHROPIC', [{ day: '2026-09-01', actor: 'ada@acme.example', tool: 'claude_code', model: 'claude-sonnet-4-5', u: 1_000_000 }]);

    const at = '2026-09-01T10:00:00Z';
    await outcome({ kind: 'PR_MERGED', externalId: 'pr-1', spendUnitId: api.id, aiAssisted: true, occurredAt: at });
    await outcome({ kind: 'PR_MERGED', externalId: 'pr-2', spendUnitId: api.id, aiAssisted: true, occurredAt: '2026-09-01T00:00:00Z' });
    await outcome({ kind: 'ISSUE_DONE', externalId: 'issue-1', spendUnitId: api.id, aiAssisted: false, occurredAt: at });
    await outcome({ kind: 'CUSTOM', externalId: 'custom-1', spendUnitId: eng.id, aiAssisted: true, occurredAt: at });
    await outcome({ kind: 'PR_MERGED', externalId: 'pr-3', actorEmail: 'ADA@acme.example', spendUnitId: idle.id, occurredAt: at }); // the PERSON match wins
    await outcome({ kind: 'PR_MERGED', externalId: 'pr-4', spendUnitId: idle.id, occurredAt: at });
    await outcome({ kind: 'PR_MERGED', externalId: 'pr-5', aiAssisted: true, occurredAt: at }); // unattributed
    await outcome({ kind: 'PR_MERGED', externalId: 'pr-6', spendUnitId: api.id, occurredAt: '2026-09-02T00:00:00Z' }); // at `to`: outside
    await outcome({ kind: 'PR_MERGED', externalId: 'pr-7', spendUnitId: api.id, occurredAt: '2026-08-31T23:59:59Z' }); // before `from`
    // Two pulled pull requests (what a GitHub sync writes), attributed to Web as the source's default unit.
    const sourceId = newId();
    const now = svc.clock.now();
    await svc.ctx.db.insertInto('spend_outcome_sources').values({ id: sourceId, account_id: f.accountId, source: 'GITHUB', label: 'GitHub', token_sealed: 'sealed', scope: 'acme/web', default_spend_unit_id: web.id, status: 'ACTIVE', created_at: now, modified_at: now }).execute();
    for (const n of [7, 8]) {
      await svc.ctx.db.insertInto('spend_outcomes').values({ id: newId(), account_id: f.accountId, source: 'GITHUB', source_id: sourceId, kind: 'PR_MERGED', external_id: `acme/web#${n}`, actor_login: 'octo', spend_unit_id: web.id, occurred_at: new Date(at), created_at: now, modified_at: now }).execute();
    }

    const r = await report();
    assert.deepEqual(Object.keys(r).sort(), ['aiAssistedOutcomes', 'costPerOutcomeCents', 'from', 'recent', 'rows', 'to', 'totalOutcomes', 'totalSpendCents', 'unattributedOutcomes']);
    assert.deepEqual([r.from, r.to], ['2026-09-01', '2026-09-02']);
    const row = (name: string) => r.rows.find((x: any) => x.name === name);
    assert.deepEqual(r.rows.map((x: any) => x.name), ['API', 'Ada', 'Eng', 'Idle', 'Ops', 'Web']);
    assert.deepEqual(Object.keys(row('API')).sort(), ['aiAssisted', 'costPerOutcomeCents', 'custom', 'issuesDone', 'name', 'outcomes', 'parentId', 'personEstimateCents', 'prsMerged', 'spendCents', 'type', 'unitId']);
    //                              prs issues custom outcomes ai  spend       estimate  cost per outcome
    assert.deepEqual(figures(row('API')), [2, 1, 0, 3, 2, '300', '0', '100']);
    // 750.0015 ÷ 2 = 375.00075 → HALF_UP to 4 places.
    assert.deepEqual(figures(row('Web')), [2, 0, 0, 2, 0, '750.0015', '0', '375.0008']);
    // Eng: its own custom outcome plus API's and Web's; 1,150.0015 ÷ 6 = 191.6669166… → 191.6669.
    assert.deepEqual(figures(row('Eng')), [4, 1, 1, 6, 3, '1150.0015', '0', '191.6669']);
    assert.deepEqual(figures(row('Ada')), [1, 0, 0, 1, 0, '300', '300', '300']);
    assert.deepEqual(figures(row('Ops')), [1, 0, 0, 1, 0, '300', '300', '300'], 'a parent counts its PERSON child’s outcomes and estimate');
    assert.deepEqual(figures(row('Idle')), [1, 0, 0, 1, 0, '0', '0', null], 'no spend: no cost per outcome');
    assert.equal(row('API').parentId, eng.id);
    assert.equal(row('API').type, 'PROJECT');
    // Totals: 9 outcomes in the window (8 attributed, 1 not); spend = metered 1,450.0015 (300 of it
    // unattributed) + Ada's 300 estimate; 1,750.0015 ÷ 9 = 194.4446111… → 194.4446.
    assert.deepEqual([r.totalOutcomes, r.aiAssistedOutcomes, r.unattributedOutcomes], [9, 4, 1]);
    assert.deepEqual([text(r.totalSpendCents), text(r.costPerOutcomeCents)], ['1750.0015', '194.4446']);
    // recent: every outcome whatever its date (11), newest first.
    assert.equal(r.recent.length, 11);
    assert.deepEqual(r.recent.slice(0, 1).map((o: any) => o.externalId), ['pr-6']);
    assert.equal(r.recent.at(-1).externalId, 'pr-7');
    const pr3 = r.recent.find((o: any) => o.externalId === 'pr-3');
    assert.deepEqual([pr3.spendUnitId, pr3.unitName, pr3.source], [ada.id, 'Ada', 'MANUAL']);
    assert.ok(r.recent.some((o: any) => o.source === 'GITHUB' && o.externalId === 'acme/web#8'));
  });

  test('when there are no outcomes then every cost per outcome is null; recent keeps only the latest 200 whatever the window', async () => {
    const { f, unit, rule, outcome, report } = await setup();
    const team = await unit({ type: 'TEAM', name: 'Solo' });
    await rule({ spendUnitId: team.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'w' });
    await f.buckets(await f.connection('ANTHROPIC'), 'ANTHROPIC', [{ day: '2026-09-01', model: 'claude-sonnet-4-5', workspace: 'w', u: 1_000_000 }]);
    for (let i = 0; i < 201; i += 1) {
      await outcome({ kind: 'CUSTOM', externalId: `old-${i}`, spendUnitId: team.id, occurredAt: new Date(Date.UTC(2026, 5, 1, 0, i)).toISOString() });
    }
    const r = await report();
    assert.deepEqual(figures(r.rows[0]), [0, 0, 0, 0, 0, '300', '0', null]);
    assert.deepEqual([r.totalOutcomes, r.aiAssistedOutcomes, r.unattributedOutcomes, text(r.totalSpendCents), r.costPerOutcomeCents], [0, 0, 0, '300', null]);
    assert.equal(r.recent.length, 200);
    assert.equal(r.recent[0].externalId, 'old-200');
    assert.equal(r.recent.at(-1).externalId, 'old-1', 'the oldest outcome is left out');
  });

  test('windows: default last 30 days, bad windows refused with 400, another account sees nothing of ours', async () => {
    const { f, unit, outcome, report } = await setup();
    const u = await unit({ type: 'TEAM', name: 'Mine' });
    await outcome({ kind: 'PR_MERGED', externalId: 'today', spendUnitId: u.id });
    await outcome({ kind: 'PR_MERGED', externalId: 'long-ago', spendUnitId: u.id, occurredAt: '2026-10-26T23:59:59Z' });
    const r = await report('');
    assert.deepEqual([r.from, r.to], ['2026-10-27', '2026-11-26']);
    assert.deepEqual([r.totalOutcomes, r.rows[0].outcomes], [1, 1], 'only the outcome inside the default window');
    for (const q of ['from=2026-09-02&to=2026-09-01', 'from=2026-02-30', 'to=yesterday', 'from=2024-01-01&to=2026-01-01']) {
      const res = await f.api('GET', `/reports/outcomes?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.error.code, 'validation_failed');
    }
    const other = spendFixtures(svc, await createTestAccount(svc));
    const foreign = await other.expectOk(other.api('GET', '/reports/outcomes'));
    assert.deepEqual([foreign.rows, foreign.recent, foreign.totalOutcomes, foreign.totalSpendCents, foreign.costPerOutcomeCents], [[], [], 0, 0, null]);
  });
});
