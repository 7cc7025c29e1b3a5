import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseJson } from '../../../src/platform/http/json.js';
import { dec, type Decimal } from '../../../src/platform/money.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from './reports-fixtures.js';

/**
 * Allocation report (contract §7.9, issue 15 item 2). Buckets are written with SQL (what a sync
 * writes); expected cents are worked by hand: tokens × USD per million ÷ 10,000.
 * claude-sonnet-4-5 input $3/M → 1,000,000 tokens = 300 cents; gpt-5-mini input $0.25/M.
 */
describe('spend allocation report', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-11-25T12:00:00Z' });
  });
  after(() => svc.close());

  async function setup() {
    const account = await createTestAccount(svc);
    const f = spendFixtures(svc, account);
    const unit = (body: Record<string, unknown>) => f.expectOk(f.api('POST', '/units', body), 201);
    const rule = (body: Record<string, unknown>) => f.expectOk(f.api('POST', '/rules', body), 201);
    /** The report with exact decimals (the test harness's JSON.parse would make floats). */
    const report = async (query = 'from=2026-09-01&to=2026-09-02') => {
      const res = await f.api('GET', `/reports/allocation?${query}`);
      assert.equal(res.status, 200, res.text);
      return (parseJson(res.text) as { data: any }).data;
    };
    return { f, unit, rule, report };
  }

  const cents = (row: { ownCents: Decimal; totalCents: Decimal; personEstimateCents: Decimal; spendCents: Decimal }) =>
    [row.ownCents, row.totalCents, row.personEstimateCents, row.spendCents].map((d) => dec(d).toFixed());
  const rowOf = (r: any, name: string) => r.rows.find((x: any) => x.name === name);

  test('first matching rule by priority wins, totals roll up the tree, the rest is unattributed', async () => {
    const { f, unit, rule, report } = await setup();
    const eng = await unit({ type: 'TEAM', name: 'Engineering' });
    const backend = await unit({ type: 'TEAM', name: 'Backend', parentId: eng.id });
    const api = await unit({ type: 'PROJECT', name: 'API', parentId: backend.id });
    await rule({ spendUnitId: backend.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_a' });
    const keyRule = await rule({ spendUnitId: api.id, provider: 'ANTHROPIC', matchKind: 'API_KEY_ID', matchValue: 'key_1', priority: 10 });
    await rule({ spendUnitId: eng.id, provider: 'OPENAI', matchKind: 'ACTOR', matchValue: 'dev@acme.example' });
    // A rule for another provider with the same value never matches Anthropic buckets.
    await rule({ spendUnitId: eng.id, provider: 'OPENAI', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_b' });
    const anthropic = await f.connection('ANTHROPIC');
    const openai = await f.connection('OPENAI');
    await f.buckets(anthropic, 'ANTHROPIC', [
      { day: '2026-09-01', model: 'claude-sonnet-4-5', workspace: 'wrkspc_a', apiKey: 'key_1', u: 1_000_000 }, // 300 → API (priority 10)
      { day: '2026-09-01', model: 'claude-sonnet-4-5', workspace: 'wrkspc_a', apiKey: 'key_2', u: 2_000_000 }, // 600 → Backend
      { day: '2026-09-01', model: 'claude-sonnet-4-5', workspace: 'wrkspc_b', apiKey: 'key_3', u: 1_000_000 }, // 300 → unattributed
      { day: '2026-09-01', model: 'acme-unpriced-model', workspace: 'wrkspc_a', apiKey: 'key_1', u: 5_000_000 }, // unpriced: nothing
      { day: '2026-09-02', model: 'claude-sonnet-4-5', workspace: 'wrkspc_a', apiKey: 'key_1', u: 9_000_000 }, // outside [from, to)
    ]);
    await f.buckets(openai, 'OPENAI', [{ day: '2026-09-01', model: 'gpt-5-mini', actor: 'dev@acme.example', u: 4_000_000 }]); // 100 → Engineering

    let r = await report();
    assert.deepEqual(Object.keys(r).sort(), ['from', 'personLevelEnabled', 'rows', 'to', 'totalMeteredCents', 'unattributedCents']);
    assert.deepEqual(r.rows.map((x: any) => x.name), ['API', 'Backend', 'Engineering']);
    assert.deepEqual(cents(rowOf(r, 'API')), ['300', '300', '0', '300']);
    assert.deepEqual(cents(rowOf(r, 'Backend')), ['600', '900', '0', '900']);
    assert.deepEqual(cents(rowOf(r, 'Engineering')), ['100', '1000', '0', '1000']);
    assert.equal(rowOf(r, 'API').parentId, backend.id);
    assert.equal(dec(r.unattributedCents).toFixed(), '300');
    assert.equal(dec(r.totalMeteredCents).toFixed(), '1300');
    assert.equal(r.personLevelEnabled, false);

    // Rules apply at report time: deleting the key rule re-allocates history to the workspace rule.
    await f.expectOk(f.api('DELETE', `/rules/${keyRule.id}`));
    r = await report();
    assert.deepEqual(cents(rowOf(r, 'API')), ['0', '0', '0', '0']);
    assert.deepEqual(cents(rowOf(r, 'Backend')), ['900', '900', '0', '900']);
    assert.equal(dec(r.totalMeteredCents).toFixed(), '1300');

    // Deleting a unit moves its children up; its buckets become unattributed.
    await f.expectOk(f.api('DELETE', `/units/${backend.id}`));
    r = await report();
    assert.equal(rowOf(r, 'API').parentId, eng.id);
    assert.equal(dec(r.unattributedCents).toFixed(), '1200');
  });

  test('equal priorities: the older rule wins', async () => {
    const { f, unit, rule, report } = await setup();
    const first = await unit({ type: 'TEAM', name: 'First' });
    const second = await unit({ type: 'TEAM', name: 'Second' });
    await rule({ spendUnitId: first.id, provider: 'ANTHROPIC', matchKind: 'API_KEY_ID', matchValue: 'key_1' });
    await rule({ spendUnitId: second.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_a' });
    const conn = await f.connection('ANTHROPIC');
    await f.buckets(conn, 'ANTHROPIC', [{ day: '2026-09-01', model: 'claude-sonnet-4-5', workspace: 'wrkspc_a', apiKey: 'key_1', u: 1_000_000 }]);
    const r = await report();
    assert.deepEqual(cents(rowOf(r, 'First')), ['300', '300', '0', '300']);
    assert.deepEqual(cents(rowOf(r, 'Second')), ['0', '0', '0', '0']);
  });

  test('a book row without an output rate: a cell’s (model, day, batch) group with output tokens adds nothing, even its buckets without output', async () => {
    const { f, unit, rule, report } = await setup();
    // A seeded-style row with an input rate ($1/M) and no output rate (the operator API requires both).
    await svc.ctx.db
      .insertInto('spend_price_seed')
      .values({ provider: 'ANTHROPIC', model: 'acme-output-free', effective_from: '2026-01-01', input_per_mtok: '1', output_per_mtok: null, cache_read_per_mtok: null, cache_write_5m_per_mtok: null, cache_write_1h_per_mtok: null, source: 'PACKAGE' })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const p = await unit({ type: 'TEAM', name: 'P' });
    const q = await unit({ type: 'TEAM', name: 'Q' });
    await rule({ spendUnitId: p.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_p' });
    await rule({ spendUnitId: q.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: 'wrkspc_q' });
    const one = await f.connection('ANTHROPIC');
    const two = await f.connection('ANTHROPIC');
    // P's group holds two buckets (two connections): 1M input alone would be 100 cents, but the group
    // also has 10 output tokens, which no rate prices, so the whole group is unpriced (as in the usage report).
    await f.buckets(one, 'ANTHROPIC', [{ day: '2026-09-01', model: 'acme-output-free', workspace: 'wrkspc_p', u: 1_000_000 }]);
    await f.buckets(two, 'ANTHROPIC', [
      { day: '2026-09-01', model: 'acme-output-free', workspace: 'wrkspc_p', u: 1_000_000, o: 10 },
      { day: '2026-09-01', model: 'acme-output-free', workspace: 'wrkspc_q', u: 2_000_000 }, // 200 cents
    ]);
    const r = await report();
    assert.deepEqual(cents(rowOf(r, 'P')), ['0', '0', '0', '0']);
    assert.deepEqual(cents(rowOf(r, 'Q')), ['200', '200', '0', '200']);
    assert.deepEqual([dec(r.unattributedCents).toFixed(), dec(r.totalMeteredCents).toFixed()], ['0', '200']);
  });

  test('PERSON units get nothing while person level is off; with it on they get their rules and estimates', async () => {
    const { f, unit, rule, report } = await setup();
    const team = await unit({ type: 'TEAM', name: 'Platform' });
    await f.expectOk(f.api('PUT', '/settings', { workerNotice: 'AI spend is attributed to you by name.', personLevelEnabled: true }));
    const ada = await unit({ type: 'PERSON', name: 'Ada', email: 'Ada@acme.example', parentId: team.id });
    await rule({ spendUnitId: ada.id, provider: 'OPENAI', matchKind: 'ACTOR', matchValue: 'ada@acme.example', priority: 1 });
    await rule({ spendUnitId: team.id, provider: 'OPENAI', matchKind: 'ACTOR', matchValue: 'ada@acme.example', priority: 2 });
    const openai = await f.connection('OPENAI');
    const anthropic = await f.connection('ANTHROPIC');
    const cursor = await f.connection('CURSOR');
    await f.buckets(openai, 'OPENAI', [{ day: '2026-09-01', model: 'gpt-5-mini', actor: 'ada@acme.example', u: 4_000_000 }]); // 100
    // Claude Code per-person rows: 1,000,000 input tokens of claude-sonnet-4-5 → 300 cents estimate;
    // an activity row (no tokens, no cost) adds nothing; Cursor's per-person rows are already buckets.
    await f.actorMetrics(anthropic, 'ANTHROPIC', [
      { day: '2026-09-01', actor: 'ada@acme.example', tool: 'claude_code', model: 'claude-sonnet-4-5', u: 1_000_000, o: 0, cr: 0, cw: 0, vendorCost: '280' },
      { day: '2026-09-01', actor: 'ada@acme.example', tool: 'claude_code' },
    ]);
    await f.actorMetrics(cursor, 'CURSOR', [{ day: '2026-09-01', actor: 'ada@acme.example', model: 'gpt-5-mini', u: 4_000_000, vendorCost: '90' }]);

    let r = await report();
    assert.equal(r.personLevelEnabled, true);
    assert.deepEqual(cents(rowOf(r, 'Ada')), ['100', '100', '300', '400']);
    assert.deepEqual(cents(rowOf(r, 'Platform')), ['0', '100', '300', '400']);

    await f.expectOk(f.api('PUT', '/settings', { personLevelEnabled: false }));
    r = await report();
    assert.equal(r.personLevelEnabled, false);
    assert.deepEqual(cents(rowOf(r, 'Ada')), ['0', '0', '0', '0'], 'the PERSON rule is skipped, no estimate');
    assert.deepEqual(cents(rowOf(r, 'Platform')), ['100', '100', '0', '100'], 'the next rule catches the bucket');
  });

  test('invariant over random data: Σ ownCents + unattributedCents = totalMeteredCents = the usage report, exactly', async () => {
    const { f, unit, report } = await setup();
    let seed = 20261125;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const units: { id: string }[] = [];
    for (let i = 0; i < 12; i += 1) {
      const parent = units.length > 0 && rand(3) > 0 ? units[rand(units.length)]!.id : null;
      units.push(await unit({ type: rand(2) ? 'TEAM' : 'PROJECT', name: `U${i}`, parentId: parent }));
    }
    const providers = ['ANTHROPIC', 'OPENAI'] as const;
    const kinds = ['WORKSPACE_ID', 'API_KEY_ID', 'ACTOR'] as const;
    for (let i = 0; i < 30; i += 1) {
      await f.api('POST', '/rules', { spendUnitId: units[rand(units.length)]!.id, provider: providers[rand(2)], matchKind: kinds[rand(3)], matchValue: `v${rand(6)}`, priority: rand(4) });
    }
    const models = { ANTHROPIC: ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1', 'unpriced-x'], OPENAI: ['gpt-5-mini', 'gpt-4o', 'o3', 'unpriced-y'] };
    for (const provider of providers) {
      const conn = await f.connection(provider);
      const rows = [];
      for (let i = 0; i < 200; i += 1) {
        rows.push({
          day: `2026-09-0${1 + rand(3)}`,
          model: models[provider][rand(4)]!,
          workspace: `v${rand(6)}`,
          apiKey: `v${rand(6)}-${i}`.slice(0, rand(2) ? 2 : 8),
          actor: `v${rand(6)}`,
          u: rand(3_000_001),
          cr: rand(1_000_001),
          cw5: rand(100_001),
          o: rand(500_001),
        });
      }
      // Distinct keys per row: the bucket key includes the api key.
      await f.buckets(conn, provider, rows.map((b, i) => ({ ...b, apiKey: `${b.apiKey}#${i}` })));
    }
    const r = await report('from=2026-09-01&to=2026-09-04');
    const own = r.rows.reduce((sum: Decimal, x: any) => sum.plus(dec(x.ownCents)), dec(0));
    assert.equal(own.plus(dec(r.unattributedCents)).toFixed(), dec(r.totalMeteredCents).toFixed());
    const usage = await f.api('GET', '/reports/usage?from=2026-09-01&to=2026-09-04');
    const metered = (parseJson(usage.text) as any).data.totals.meteredCostCents;
    assert.equal(dec(r.totalMeteredCents).toFixed(), dec(metered).toFixed(), 'allocation prices buckets exactly as the usage report does');
    assert.ok(dec(r.totalMeteredCents).gt(0));
    for (const x of r.rows) {
      const children = r.rows.filter((c: any) => c.parentId === x.unitId);
      const expected = children.reduce((sum: Decimal, c: any) => sum.plus(dec(c.totalCents)), dec(x.ownCents));
      assert.equal(dec(x.totalCents).toFixed(), expected.toFixed(), `${x.name}: total = own + children's totals`);
    }
  });

  test('windows: default last 30 days, bad windows refused, another account sees nothing', async () => {
    const { f, report } = await setup();
    const r = await report('');
    assert.deepEqual([r.from, r.to], ['2026-10-27', '2026-11-26']);
    for (const q of ['from=2026-09-02&to=2026-09-01', 'from=2026-02-30', 'from=2024-01-01&to=2026-01-01']) {
      const res = await f.api('GET', `/reports/allocation?${q}`);
      assert.equal(res.status, 400, q);
    }
  });
});
