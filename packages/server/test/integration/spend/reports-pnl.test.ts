import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { parseJson } from '../../../src/platform/http/json.js';
import { dec } from '../../../src/platform/money.js';
import { backend, createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from './reports-fixtures.js';

/**
 * Feature P&L (contract §7.9): PROJECT units linked to a feature, build cost (allocation totalCents)
 * against the feature's revenue and serving cost from usage events ingested through the Client API.
 * claude-sonnet-4-5: input 3, output 15 per million → cents = tokens × rate ÷ 10,000.
 * Revenue = usageUnits × price_per_unit 0.5, × 100 in cents.
 */
describe(`spend feature P&L (${backend})`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-11-25T12:00:00Z' });
  });
  after(() => svc.close());

  async function setup() {
    const account = await createTestAccount(svc);
    const f = spendFixtures(svc, account);
    const m = monetization(svc, account);
    const unit = (body: Record<string, unknown>) => f.expectOk(f.api('POST', '/units', body), 201);
    const rule = (spendUnitId: string, matchValue: string) => f.expectOk(f.api('POST', '/rules', { spendUnitId, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue }), 201);
    const report = async (query = 'from=2026-11-25&to=2026-11-26') => {
      const res = await f.api('GET', `/reports/pnl?${query}`);
      assert.equal(res.status, 200, res.text);
      return (parseJson(res.text) as { data: any }).data;
    };
    return { f, m, unit, rule, report };
  }

  const text = (v: unknown) => (v === null ? null : dec(v as string).toFixed());
  const figures = (row: any) => [text(row.buildCents), row.outcomes, text(row.revenueCents), text(row.serveCostCents), text(row.serveMarginCents), text(row.netCents), text(row.buildPerOutcomeCents)];

  test('when projects are linked to features then build is set against the feature’s event revenue and serve cost; unlinked projects are listed and left out', async () => {
    const { f, m, unit, rule, report } = await setup();
    const pricing = { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.5 } };
    const chatFeature = await m.feature({ name: 'AI chat', key: 'chat' });
    const searchFeature = await m.feature({ name: 'AI search', key: 'search' });
    const plan = await m.activePlan({ price: 0, features: [{ id: chatFeature.id, value: pricing }, { id: searchFeature.id, value: pricing }] });
    await m.customer('acme');
    await m.subscribe('acme', plan.id);
    const event = async (body: Record<string, unknown>) => assert.equal((await m.event({ customerReferenceId: 'acme', ...body })).status, 201);
    await event({ featureKey: 'chat', usageUnits: 10, costAmount: 1.25, eventIdempotencyKey: 'c1' }); // revenue 5 → 500 cents; cost 125 cents
    await event({ featureKey: 'chat', usageUnits: 4, eventIdempotencyKey: 'c2' }); // revenue 200 cents, no cost
    await event({ featureKey: 'chat', usageUnits: 100, costAmount: 9, eventIdempotencyKey: 'c3', occurredAt: '2026-11-24T23:59:59Z' }); // before the window
    await event({ featureKey: 'search', usageUnits: 2, costAmount: 3.5, eventIdempotencyKey: 's1' }); // revenue 100, cost 350
    // An entitlement check is an ENTITLEMENT_CHECKED event of zero usage: it counts, adding nothing here.
    assert.equal((await m.check('acme', 'chat')).allowed, true);

    const chat = await unit({ type: 'PROJECT', name: 'Chat', featureId: chatFeature.id });
    const infra = await unit({ type: 'PROJECT', name: 'Chat infra', parentId: chat.id });
    const search = await unit({ type: 'PROJECT', name: 'Search', featureId: searchFeature.id });
    const legacy = await unit({ type: 'PROJECT', name: 'Legacy' });
    await unit({ type: 'TEAM', name: 'Platform' });
    await rule(chat.id, 'ws_chat');
    await rule(infra.id, 'ws_infra');
    await rule(search.id, 'ws_search');
    await rule(legacy.id, 'ws_legacy');
    await f.buckets(await f.connection('ANTHROPIC'), 'ANTHROPIC', [
      { day: '2026-11-25', model: 'claude-sonnet-4-5', workspace: 'ws_chat', u: 1_000_000 }, // 300
      { day: '2026-11-25', model: 'claude-sonnet-4-5', workspace: 'ws_infra', u: 500_000 }, // 150
      { day: '2026-11-25', model: 'claude-sonnet-4-5', workspace: 'ws_search', o: 100_000 }, // 150
      { day: '2026-11-25', model: 'claude-sonnet-4-5', workspace: 'ws_legacy', u: 1_000_000 }, // 300
      { day: '2026-11-24', model: 'claude-sonnet-4-5', workspace: 'ws_chat', u: 9_000_000 }, // before the window
    ]);
    await f.expectOk(f.api('POST', '/outcomes', { kind: 'PR_MERGED', externalId: 'pr-1', spendUnitId: chat.id }), 201);
    await f.expectOk(f.api('POST', '/outcomes', { kind: 'ISSUE_DONE', externalId: 'is-1', spendUnitId: infra.id }), 201);
    await f.expectOk(f.api('POST', '/outcomes', { kind: 'PR_MERGED', externalId: 'pr-2', spendUnitId: legacy.id }), 201);

    let r = await report();
    assert.deepEqual(Object.keys(r).sort(), ['from', 'rows', 'to', 'totalBuildCents', 'totalNetCents', 'totalRevenueCents', 'totalServeCostCents', 'unlinkedProjects']);
    assert.deepEqual(r.rows.map((x: any) => x.name), ['Chat', 'Search']);
    const [chatRow, searchRow] = r.rows;
    assert.deepEqual(Object.keys(chatRow).sort(), [
      'buildCents', 'buildPerOutcomeCents', 'featureId', 'featureKey', 'featureName', 'name', 'netCents', 'outcomes', 'revenueCents',
      'serveCostCents', 'serveMarginCents', 'unitId',
    ]);
    assert.deepEqual([chatRow.unitId, chatRow.featureId, chatRow.featureKey, chatRow.featureName], [chat.id, chatFeature.id, 'chat', 'AI chat']);
    //                                 build  outcomes revenue cost   margin  net    build per outcome
    assert.deepEqual(figures(chatRow), ['450', 2, '700', '125', '575', '125', '225'], 'build 300 + its child 150; outcomes with the child’s');
    assert.deepEqual(figures(searchRow), ['150', 0, '100', '350', '-250', '-400', null]);
    assert.deepEqual(r.unlinkedProjects, ['Chat infra', 'Legacy']);
    // Totals: Legacy's 300 and its outcome stay out; build 450 + 150, revenue 700 + 100, cost 125 + 350.
    assert.deepEqual([text(r.totalBuildCents), text(r.totalRevenueCents), text(r.totalServeCostCents), text(r.totalNetCents)], ['600', '800', '475', '-275']);

    // Two projects on one feature: each row shows the feature's figures; the totals count them once.
    await f.expectOk(f.api('PUT', `/units/${legacy.id}`, { type: 'PROJECT', name: 'Legacy', featureId: chatFeature.id }));
    r = await report();
    assert.deepEqual(r.rows.map((x: any) => x.name), ['Chat', 'Legacy', 'Search']);
    assert.deepEqual(figures(r.rows[1]), ['300', 1, '700', '125', '575', '275', '300']);
    assert.deepEqual(r.unlinkedProjects, ['Chat infra']);
    assert.deepEqual([text(r.totalBuildCents), text(r.totalRevenueCents), text(r.totalServeCostCents), text(r.totalNetCents)], ['900', '800', '475', '-575']);

    // A linked project inside another linked project: its build is in the parent's, counted once in the total.
    await f.expectOk(f.api('PUT', `/units/${infra.id}`, { type: 'PROJECT', name: 'Chat infra', parentId: chat.id, featureId: searchFeature.id }));
    r = await report();
    assert.deepEqual(r.unlinkedProjects, []);
    assert.deepEqual(figures(r.rows.find((x: any) => x.name === 'Chat infra')), ['150', 1, '100', '350', '-250', '-400', '150']);
    // The rows' builds sum to 450 + 300 + 150 + 150 = 1,050; Chat infra's 150 is inside Chat's 450.
    assert.equal(text(r.totalBuildCents), '900', 'each cent once: 300 + 150 + 300 + 150');
    assert.deepEqual([text(r.totalRevenueCents), text(r.totalServeCostCents)], ['800', '475'], 'each feature once');

    // The window moves the events and buckets with it.
    r = await report('from=2026-11-24&to=2026-11-25');
    const chatBefore = r.rows.find((x: any) => x.name === 'Chat');
    // 9M × 3 / 10,000 = 2,700 build; one event of 100 units → 5,000 cents revenue, cost 900.
    assert.deepEqual(figures(chatBefore), ['2700', 0, '5000', '900', '4100', '1400', null]);
  });

  test('windows: default last 30 days, bad windows refused, another account’s projects and events stay out', async () => {
    const { f, m, unit, report } = await setup();
    const feature = await m.feature({ name: 'Mine', key: 'mine' });
    await unit({ type: 'PROJECT', name: 'Mine', featureId: feature.id });
    const r = await report('');
    assert.deepEqual([r.from, r.to], ['2026-10-27', '2026-11-26']);
    assert.deepEqual(figures(r.rows[0]), ['0', 0, '0', '0', '0', '0', null]);
    for (const q of ['from=2026-09-02&to=2026-09-01', 'from=2026-02-30', 'to=tomorrow', 'from=2024-01-01&to=2026-01-01']) {
      const res = await f.api('GET', `/reports/pnl?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.error.code, 'validation_failed');
    }
    const other = await setup();
    const foreign = await other.report('');
    assert.deepEqual([foreign.rows, foreign.unlinkedProjects, foreign.totalBuildCents, foreign.totalRevenueCents], [[], [], 0, 0]);
    // A feature of another account cannot be linked.
    const res = await other.f.api('POST', '/units', { type: 'PROJECT', name: 'Theirs', featureId: feature.id });
    assert.equal(res.status, 404, res.text);
  });
});
