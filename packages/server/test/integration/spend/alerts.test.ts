import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ANTHROPIC_FAKE_KEY, startAnthropicFake, type AnthropicFake } from '../../fakes/vendors/anthropic.js';
import { startResendFake, type ResendFake } from '../../fakes/vendors/resend.js';
import { startSlackFake, type SlackFake } from '../../fakes/vendors/slack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../fakes/vendors/webhook-receiver.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from './reports-fixtures.js';

/**
 * Budget evaluation and alerts (contract §7.5), through HTTP. Spend is seeded as usage buckets of
 * claude-sonnet-4-5 uncached input ($3 per million tokens): 1,000,000 tokens = 300 cents.
 * "Now" is 2026-11-25T12:00Z unless a test moves it: November has 30 days, 24.5 of them elapsed.
 */
const NOW = '2026-11-25T12:00:00Z';
const SECRET = 'whsec-alerts-secret';

describe('spend budget evaluation and alerts', () => {
  let svc: TestService;
  let slack: SlackFake;
  let resend: ResendFake;
  let receiver: WebhookReceiver;
  let anthropic: AnthropicFake;

  before(async () => {
    [slack, resend, anthropic] = await Promise.all([startSlackFake(), startResendFake(), startAnthropicFake()]);
    receiver = await startWebhookReceiver({ secret: SECRET, nowSeconds: () => Math.floor(svc.clock.now().getTime() / 1000) });
    svc = await startTestService({
      now: NOW,
      env: {
        APP_SPEND_SLACK_WEBHOOK_BASE: `${slack.url}/`,
        APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true',
        APP_RESEND_BASE_URL: resend.url,
        APP_RESEND_API_KEY: resend.key,
        APP_SPEND_ALERT_FROM: 'Spend <alerts@acme.example>',
        APP_SPEND_ANTHROPIC_BASE_URL: anthropic.url,
        APP_SPEND_VENDOR_MAX_RETRIES: '0',
      },
    });
  });
  after(async () => {
    await svc.close();
    await Promise.all([slack.close(), resend.close(), receiver.close(), anthropic.close()]);
  });
  beforeEach(() => {
    svc.clock.set(NOW);
    slack.reset();
    resend.reset();
    receiver.reset();
    receiver.setSecret(SECRET);
  });

  /** A fresh account with one unit, its ANTHROPIC workspace rule, and a login that can be renewed after moving the clock. */
  async function setup(name = 'Backend', workspace = 'wrkspc_be') {
    const account = await createTestAccount(svc);
    const f = spendFixtures(svc, account);
    const unit = await f.expectOk(f.api('POST', '/units', { type: 'TEAM', name }), 201);
    await f.expectOk(f.api('POST', '/rules', { spendUnitId: unit.id, provider: 'ANTHROPIC', matchKind: 'WORKSPACE_ID', matchValue: workspace }), 201);
    const conn = await f.connection('ANTHROPIC');
    /** Buckets of `workspace`: [day, cents] with cents a multiple of 3 (tokens = cents × 10,000 / 3); each call's rows under an actor of its own, so a day can be added to. */
    let call = 0;
    const spend = (rows: [string, number][]) => {
      call += 1;
      return f.buckets(conn, 'ANTHROPIC', rows.map(([day, cents]) => ({ day, model: 'claude-sonnet-4-5', workspace, actor: `seed-${call}`, u: (cents * 10_000) / 3 })));
    };
    const relogin = async () => {
      const login = await svc.http.post('/public/v1/login', { body: { username: account.username, password: account.password } });
      assert.equal(login.status, 200, login.text);
      account.token = login.body.data.token;
    };
    const evaluate = async () => (await f.expectOk(f.api('POST', '/budgets/evaluate'))) as any[];
    const alerts = async (query = '') => (await f.expectOk(f.api('GET', `/alerts${query}`))) as any[];
    return { account, f, unit, spend, relogin, evaluate, alerts, budget: (body: unknown) => f.expectOk(f.api('PUT', `/units/${unit.id}/budget`, body)) };
  }

  const brief = (a: any) => [a.kind, a.period, a.windowStart, a.spentCents, a.limitCents, a.message];

  test('when a daily ceiling is crossed then THRESHOLD and BREACH fire once each per day, with hand-computed figures, and again on a new day', async () => {
    const s = await setup();
    await s.budget({ dailyCents: 1000, monthlyCents: 100000 });
    // Today 900 (90% of $10.00); the trailing week 11-18…11-24 holds 4200 (avg 600, so 900 is no spike);
    // 11-17 is outside it. Month: 900 + 4200 + 3000 = 8100 of 100000, pace 8100 × 30 / 24.5 = 9918: nothing.
    await s.spend([['2026-11-25', 900], ['2026-11-20', 4200], ['2026-11-03', 3000], ['2026-11-17', 30000]]);
    const first = await s.evaluate();
    assert.deepEqual(first.map(brief), [['THRESHOLD', 'DAY', '2026-11-25', 900, 1000, 'Backend is at 90% of its daily budget: $9.00 of $10.00 today.']]);
    assert.deepEqual([first[0].spendUnitId, first[0].unitName, first[0].firedAt, first[0].ackedAt, first[0].ackedBy], [s.unit.id, 'Backend', '2026-11-25T12:00:00.000Z', null, null]);
    assert.deepEqual(await s.evaluate(), [], 'not again in the same window');

    // 300 more today: 1200 ≥ 1000 breaches; 1200 is not > 2 × 600, so still no spike.
    await s.spend([['2026-11-25', 300]]);
    svc.clock.set('2026-11-25T12:10:00Z');
    assert.deepEqual((await s.evaluate()).map(brief), [['BREACH', 'DAY', '2026-11-25', 1200, 1000, 'Backend is over its daily budget: $12.00 of $10.00 today.']]);
    assert.deepEqual(await s.evaluate(), []);

    // A new day is a new window: 900 again is 90% again.
    svc.clock.set('2026-11-26T12:00:00Z');
    await s.relogin();
    await s.spend([['2026-11-26', 900]]);
    assert.deepEqual((await s.evaluate()).map(brief), [['THRESHOLD', 'DAY', '2026-11-26', 900, 1000, 'Backend is at 90% of its daily budget: $9.00 of $10.00 today.']]);
    assert.deepEqual(await s.evaluate(), []);
    const listed = await s.alerts();
    assert.deepEqual(listed.map((a) => [a.kind, a.windowStart]), [['THRESHOLD', '2026-11-26'], ['BREACH', '2026-11-25'], ['THRESHOLD', '2026-11-25']], 'newest first');
  });

  test('when the monthly ceiling is approached then THRESHOLD and PROJECTED fire; a bump lifts the ceiling while it lasts; after it expires the evaluation drops it and BREACH fires with the BLOCK sentence', async () => {
    const s = await setup('Ops', 'wrkspc_ops');
    await s.budget({ monthlyCents: 10000, monthlyMode: 'BLOCK' });
    // 9000 of 10000 this month: 90%; pace 9000 × 30 / 24.5 = 11020.41 > 10000.
    await s.spend([['2026-11-03', 9000]]);
    assert.deepEqual((await s.evaluate()).map(brief), [
      ['THRESHOLD', 'MONTH', '2026-11-01', 9000, 10000, 'Ops is at 90% of its monthly budget: $90.00 of $100.00 this month.'],
      ['PROJECTED', 'MONTH', '2026-11-01', 9000, 10000, 'Ops is on pace for $110.20 this month against a $100.00 budget ($90.00 so far).'],
    ]);

    await s.f.expectOk(s.f.api('POST', `/units/${s.unit.id}/budget/bump`, { monthlyCents: 20000, expiresAt: '2026-11-25T13:00:00Z', reason: 'launch' }));
    await s.spend([['2026-11-10', 1500]]);
    // 10500 of the bumped 20000: 52%, no breach.
    assert.deepEqual(await s.evaluate(), []);

    svc.clock.set('2026-11-25T13:00:01Z');
    const fired = await s.evaluate();
    assert.deepEqual(fired.map(brief), [
      ['BREACH', 'MONTH', '2026-11-01', 10500, 10000, 'Ops is over its monthly budget: $105.00 of $100.00 this month. The budget is set to BLOCK, but no gateway enforces it, so requests are not blocked.'],
    ]);
    const budget = await s.f.expectOk(s.f.api('GET', `/units/${s.unit.id}/budget`));
    assert.deepEqual([budget.bumpMonthlyCents, budget.bumpExpiresAt, budget.bumpReason, budget.effectiveMonthlyCents], [null, null, null, 10000], 'the expired bump was dropped');
  });

  test('when today spikes then SPIKE (period DAY, no limit) fires for a unit without a budget, against the 7 full days before today', async () => {
    const s = await setup('Search', 'wrkspc_search');
    // Today 600 ≥ 500; the week 11-18…11-24 holds 300 (avg 42.857…, shown $0.43); 11-17 (3000) is outside it.
    await s.spend([['2026-11-25', 600], ['2026-11-18', 300], ['2026-11-17', 3000]]);
    const fired = await s.evaluate();
    assert.deepEqual(fired.map(brief), [['SPIKE', 'DAY', '2026-11-25', 600, null, 'Search has spent $6.00 today, against a trailing-week average of $0.43 a day.']]);
    assert.deepEqual(await s.evaluate(), []);
  });

  test('when evaluations run at once then each alert fires once across them', async () => {
    const s = await setup();
    await s.budget({ dailyCents: 1000, monthlyCents: 2000 });
    await s.spend([['2026-11-25', 1200]]); // daily BREACH, monthly THRESHOLD (60% < 80%: no), SPIKE (1200 > 0)
    const runs = await Promise.all(Array.from({ length: 6 }, () => s.evaluate()));
    const fired = runs.flat().map((a) => `${a.kind}/${a.period}`).sort();
    assert.deepEqual(fired, ['BREACH/DAY', 'SPIKE/DAY']);
    const stored = await svc.ctx.db.selectFrom('spend_alerts').select(['kind', 'period']).where('account_id', '=', s.account.accountId).orderBy('kind').execute();
    assert.deepEqual(stored, [{ kind: 'BREACH', period: 'DAY' }, { kind: 'SPIKE', period: 'DAY' }]);
  });

  test('ack: records the acting user once, a second ack changes nothing; unknown or foreign ids are 404; unackedOnly lists only the unacknowledged', async () => {
    const s = await setup();
    await s.budget({ dailyCents: 1000 });
    await s.spend([['2026-11-25', 1200]]);
    const [breach, spike] = await s.evaluate();
    assert.deepEqual([breach.kind, spike.kind], ['BREACH', 'SPIKE']);
    svc.clock.set('2026-11-25T12:05:00Z');
    const acked = await s.f.expectOk(s.f.api('POST', `/alerts/${breach.id}/ack`));
    assert.deepEqual([acked.id, acked.ackedAt, acked.ackedBy], [breach.id, '2026-11-25T12:05:00.000Z', s.account.username]);
    svc.clock.set('2026-11-25T12:09:00Z');
    const again = await s.f.expectOk(s.f.api('POST', `/alerts/${breach.id}/ack`));
    assert.deepEqual(again, acked, 'idempotent: the first acknowledgement stays');

    assert.deepEqual((await s.alerts('?unackedOnly=true')).map((a) => a.id), [spike.id]);
    assert.deepEqual((await s.alerts('?unackedOnly=false')).map((a) => a.id).sort(), [breach.id, spike.id].sort());
    for (const bad of ['?unackedOnly=yes', '?unackedOnly=1', '?unackedOnly=']) {
      const res = await s.f.api('GET', `/alerts${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error.code, 'validation_failed');
    }
    assert.equal((await s.f.api('POST', '/alerts/018f0000-0000-7000-8000-000000000000/ack')).status, 404);
    assert.equal((await s.f.api('POST', '/alerts/not-a-uuid/ack')).status, 400);
    const other = await setup();
    assert.equal((await other.f.api('POST', `/alerts/${spike.id}/ack`)).status, 404, "another account's alert is not found");
    assert.deepEqual(await other.alerts(), [], 'and not listed');
    assert.equal((await svc.http.post('/api/v1/spend/budgets/evaluate', { headers: { 'x-api-key': s.account.apiKey } })).status, 401, 'JWT only');
  });

  test('when an alert fires then Slack, the webhook and Resend each get it once; a failing channel is retried and never re-fires the alert', async () => {
    const s = await setup('Data', 'wrkspc_data');
    const put = await s.f.api('PUT', '/settings', { slackWebhookUrl: slack.hookUrl(), webhookUrl: receiver.hookUrl, webhookSecret: SECRET, alertEmails: 'fin@acme.example' });
    assert.equal(put.status, 200, put.text);
    await s.budget({ dailyCents: 1000 });
    await s.spend([['2026-11-25', 900], ['2026-11-24', 2100]]); // 90% of the day; the week's average 300, and 900 > 2 × 300: SPIKE too
    slack.failNext(1, { status: 500 });
    const fired = await s.evaluate();
    assert.deepEqual(fired.map((a) => a.kind), ['THRESHOLD', 'SPIKE']);
    const [threshold, spike] = fired;
    assert.equal(slack.messages.length, 1, 'one Slack post failed');
    assert.deepEqual(receiver.received.map((d) => [d.event, d.body.type, d.body.accountId, d.body.alert.id, d.check?.v1]), [
      ['spend.alert', 'spend.alert', s.account.accountId, threshold.id, true],
      ['spend.alert', 'spend.alert', s.account.accountId, spike.id, true],
    ]);
    assert.deepEqual(receiver.received[0]!.body.alert, threshold, 'the webhook carries the Alert as GET /alerts shows it');
    assert.deepEqual(resend.outbox.map((e) => [e.to, e.subject, e.text]).sort(), [
      [['fin@acme.example'], 'Spend alert (SPIKE): Data', `${spike.message}\n`],
      [['fin@acme.example'], 'Spend alert (THRESHOLD): Data', `${threshold.message}\n`],
    ]);

    assert.deepEqual(await s.evaluate(), [], 'the failed delivery re-fires nothing');
    svc.clock.advanceMs(60_000);
    await svc.scheduler.run('spend-delivery-retry');
    assert.deepEqual(slack.messages.sort(), [spike.message, threshold.message].sort(), 'the retry job delivered the failed Slack row');
    assert.equal(receiver.received.length, 2);
    assert.equal(resend.outbox.length, 2);
    assert.deepEqual(await s.evaluate(), []);
    assert.equal((await s.alerts()).length, 2);
  });

  test('when the minute-30 job runs then every account with units is evaluated', async () => {
    const a = await setup('Alpha', 'wrkspc_alpha');
    const b = await setup('Beta', 'wrkspc_beta');
    await a.budget({ dailyCents: 100 });
    await a.spend([['2026-11-25', 150]]);
    await b.spend([['2026-11-25', 900]]);
    svc.clock.set('2026-11-25T13:30:00Z');
    const outcome = await svc.scheduler.run('spend-budget-check');
    assert.equal(outcome.status, 'ran');
    assert.equal(outcome.slot.toISOString(), '2026-11-25T13:30:00.000Z');
    assert.deepEqual((await a.alerts()).map((x) => [x.kind, x.message]), [['BREACH', 'Alpha is over its daily budget: $1.50 of $1.00 today.']]);
    assert.deepEqual((await b.alerts()).map((x) => [x.kind, x.message]), [['SPIKE', 'Beta has spent $9.00 today, against a trailing-week average of $0.00 a day.']]);
    assert.equal((await svc.scheduler.run('spend-budget-check')).status, 'skipped', 'one run per slot');
  });

  test('when a sync succeeds then a budget evaluation follows it; a failing evaluation never fails the sync', async () => {
    const s = await setup('Synced', 'wrkspc_synced');
    await s.budget({ dailyCents: 1000 });
    anthropic.addUsage({ day: '2026-11-25', model: 'claude-sonnet-4-5-20250929', workspaceId: 'wrkspc_synced', uncachedInputTokens: 4_000_000 }); // 1200 cents
    const conn = await s.f.expectOk(s.f.api('POST', '/connections', { provider: 'ANTHROPIC', label: 'Org', adminKey: ANTHROPIC_FAKE_KEY }), 201);
    assert.equal((await s.f.api('POST', `/connections/${conn.id}/sync?from=2026-11-25&to=2026-11-26`)).status, 200);
    assert.deepEqual((await s.alerts()).map((a) => [a.kind, a.spentCents]), [['SPIKE', 1200], ['BREACH', 1200]], 'newest first: SPIKE was recorded after BREACH');

    // An evaluation that fails (every new alert refused by a constraint added for the test): the sync still succeeds.
    await sql`alter table spend_alerts add constraint spend_alerts_test_refuse check (spent_cents < 0) not valid`.execute(svc.ctx.db);
    try {
      svc.clock.set('2026-11-26T12:00:00Z');
      await s.relogin();
      anthropic.addUsage({ day: '2026-11-26', model: 'claude-sonnet-4-5-20250929', workspaceId: 'wrkspc_synced', uncachedInputTokens: 4_000_000 });
      const sync = await s.f.api('POST', `/connections/${conn.id}/sync?from=2026-11-26&to=2026-11-27`);
      assert.equal(sync.status, 200, sync.text);
      assert.match(svc.logs(), /the budget evaluation after the sync failed/);
    } finally {
      await svc.ctx.db.schema.alterTable('spend_alerts').dropConstraint('spend_alerts_test_refuse').execute();
    }
  });
});
