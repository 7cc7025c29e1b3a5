import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { newId } from '../../../src/platform/ids.js';
import { startResendFake, type ResendFake } from '../../fakes/vendors/resend.js';
import { startSlackFake, type SlackFake } from '../../fakes/vendors/slack.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../fakes/vendors/webhook-receiver.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';
import { spendFixtures } from './reports-fixtures.js';

/**
 * The weekly digest (contract §7.5 "Digest", §7.6), through HTTP. "Now" is Wednesday
 * 2026-11-25T12:00Z: the week is [11-18, 11-25), the week before [11-11, 11-18), the month
 * [11-01, 12-01). Spend is claude-sonnet-4-5 uncached input: 1,000,000 tokens = 300 cents.
 */
const NOW = '2026-11-25T12:00:00Z';
const SECRET = 'whsec-digest';

describe('spend weekly digest', () => {
  let svc: TestService;
  let slack: SlackFake;
  let resend: ResendFake;
  let receiver: WebhookReceiver;

  before(async () => {
    [slack, resend] = await Promise.all([startSlackFake(), startResendFake()]);
    receiver = await startWebhookReceiver({ secret: SECRET, nowSeconds: () => Math.floor(svc.clock.now().getTime() / 1000) });
    svc = await startTestService({
      now: NOW,
      env: {
        APP_SPEND_SLACK_WEBHOOK_BASE: `${slack.url}/`,
        APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true',
        APP_RESEND_BASE_URL: resend.url,
        APP_RESEND_API_KEY: resend.key,
        APP_SPEND_ALERT_FROM: 'Spend <alerts@acme.example>',
      },
    });
  });
  after(async () => {
    await svc.close();
    await Promise.all([slack.close(), resend.close(), receiver.close()]);
  });
  beforeEach(() => {
    svc.clock.set(NOW);
    slack.reset();
    resend.reset();
    receiver.reset();
  });

  /** Backend (with its child project Search), Data, and spend whose figures the tests work out by hand. */
  async function seeded(service = svc) {
    const account = await createTestAccount(service);
    const f = spendFixtures(service, account);
    const unit = (body: unknown) => f.expectOk(f.api('POST', '/units', body), 201);
    const rule = (spendUnitId: string, matchKind: string, matchValue: string) => f.expectOk(f.api('POST', '/rules', { spendUnitId, provider: 'ANTHROPIC', matchKind, matchValue }), 201);
    const backend = await unit({ type: 'TEAM', name: 'Backend' });
    const search = await unit({ type: 'PROJECT', name: 'Search', parentId: backend.id });
    const data = await unit({ type: 'TEAM', name: 'Data' });
    await rule(backend.id, 'WORKSPACE_ID', 'wrkspc_be');
    await rule(search.id, 'API_KEY_ID', 'key_search');
    await rule(data.id, 'WORKSPACE_ID', 'wrkspc_data');
    const conn = await f.connection('ANTHROPIC');
    const rows: [string, string, string, number][] = [
      ['2026-11-20', 'wrkspc_be', '', 600],
      ['2026-11-12', 'wrkspc_be', '', 300],
      ['2026-11-17', 'wrkspc_be', '', 150], // the week before (its last day)
      ['2026-11-25', 'wrkspc_be', '', 900], // today: month to date only
      ['2026-11-10', 'wrkspc_be', '', 3000], // month to date only
      ['2026-11-21', 'wrkspc_other', 'key_search', 300],
      ['2026-11-24', 'wrkspc_data', '', 1200],
      ['2026-11-18', 'wrkspc_data', '', 30], // the week's first day
      ['2026-11-19', 'wrkspc_x', '', 90], // unattributed
      ['2026-11-11', 'wrkspc_x', '', 60], // unattributed, the week before
    ];
    await f.buckets(conn, 'ANTHROPIC', rows.map(([day, workspace, apiKey, cents]) => ({ day, model: 'claude-sonnet-4-5', workspace, apiKey, u: (cents * 10_000) / 3 })));
    await f.expectOk(f.api('PUT', `/units/${backend.id}/budget`, { monthlyCents: 10000 }));
    await f.expectOk(f.api('POST', `/units/${backend.id}/budget/bump`, { monthlyCents: 20000, expiresAt: '2026-11-25T13:00:00Z', reason: 'launch week' }));
    await f.expectOk(f.api('PUT', `/units/${data.id}/budget`, { dailyCents: 500 }));
    // Alerts fired in [11-18T00:00, 11-25T00:00) count; the ones just outside do not.
    const firedAt = ['2026-11-18T00:00:00Z', '2026-11-24T23:59:59Z', '2026-11-17T23:59:59Z', '2026-11-25T00:00:00Z'];
    await service.ctx.db
      .insertInto('spend_alerts')
      .values(firedAt.map((at, i) => ({ id: newId(), account_id: account.accountId, spend_unit_id: data.id, unit_name: 'Data', kind: 'SPIKE' as const, period: 'DAY' as const, window_start: at.slice(0, 10), spent_cents: String(600 + i), limit_cents: null, message: 'x', fired_at: new Date(at) })))
      .execute();
    return { account, f, backend, search, data };
  }

  /** The digest worked out by hand from `seeded`. */
  function expected(s: Awaited<ReturnType<typeof seeded>>) {
    return {
      from: '2026-11-18',
      to: '2026-11-25',
      totalCents: 2220, // 600 + 300 + 1230 + 90
      previousTotalCents: 510, // 300 + 150 + 60
      unattributedCents: 90,
      alertsFired: 2,
      rows: [
        { unitId: s.data.id, name: 'Data', cents: 1230, previousCents: 0, monthlySpentCents: 1230, monthlyLimitCents: null, bumpReason: null },
        // 600 own + 300 of its child Search; month: 600 + 300 + 150 + 900 + 3000 + 300
        { unitId: s.backend.id, name: 'Backend', cents: 900, previousCents: 450, monthlySpentCents: 5250, monthlyLimitCents: 20000, bumpReason: 'launch week' },
        { unitId: s.search.id, name: 'Search', cents: 300, previousCents: 0, monthlySpentCents: 300, monthlyLimitCents: null, bumpReason: null },
      ],
    };
  }

  test('the preview: the last 7 full days against the 7 before, per unit, month to date against the ceiling in force, alerts fired, unattributed; no delivery', async () => {
    const s = await seeded();
    const digest = await s.f.expectOk(s.f.api('GET', '/digest'));
    assert.deepEqual(digest, expected(s));
    assert.equal('delivery' in digest, false);
    assert.equal(slack.requests.length + receiver.requests.length + resend.requests.length, 0, 'a preview sends nothing');

    // Once the bump has expired the standing ceiling is in force, without the bump's reason.
    svc.clock.set('2026-11-25T13:00:01Z');
    const later = await s.f.expectOk(s.f.api('GET', '/digest'));
    assert.deepEqual(later.rows[1], { ...expected(s).rows[1], monthlyLimitCents: 10000, bumpReason: null });
  });

  test('send: every configured channel gets the digest now and the answer carries each outcome', async () => {
    const s = await seeded();
    await s.f.expectOk(s.f.api('PUT', '/settings', { slackWebhookUrl: slack.hookUrl(), webhookUrl: receiver.hookUrl, webhookSecret: SECRET, alertEmails: 'fin@acme.example' }));
    const sent = await s.f.expectOk(s.f.api('POST', '/digest/send'));
    assert.deepEqual(sent, { ...expected(s), delivery: { slack: 'SENT', webhook: 'SENT', email: 'SENT' } });

    assert.equal(receiver.received.length, 1);
    const hook = receiver.received[0]!;
    assert.deepEqual([hook.event, hook.body.type, hook.body.accountId, hook.check?.v1], ['spend.digest', 'spend.digest', s.account.accountId, true]);
    assert.deepEqual(hook.body.digest, expected(s), 'the webhook carries the Digest as GET /digest shows it');
    assert.equal(slack.messages.length, 1);
    assert.deepEqual(slack.messages[0]!.split('\n'), [
      'AI spend 2026-11-18 to 2026-11-25 (end exclusive): $22.20, previous 7 days $5.10; unattributed $0.90; alerts fired: 2.',
      '• Data: $12.30 (previous $0.00), month to date $12.30',
      '• Backend: $9.00 (previous $4.50), month to date $52.50 of $200.00 (bump: launch week)',
      '• Search: $3.00 (previous $0.00), month to date $3.00',
    ]);
    assert.deepEqual(resend.outbox.map((e) => [e.to, e.subject]), [[['fin@acme.example'], 'AI spend digest 2026-11-18 to 2026-11-25']]);
  });

  test('send: a failing channel is FAILED, an unconfigured one NOT_CONFIGURED, and nothing is retried behind the caller', async () => {
    const s = await seeded();
    await s.f.expectOk(s.f.api('PUT', '/settings', { slackWebhookUrl: slack.hookUrl() }));
    slack.failNext(1, { status: 500 });
    const sent = await s.f.expectOk(s.f.api('POST', '/digest/send'));
    assert.deepEqual(sent.delivery, { slack: 'FAILED', webhook: 'NOT_CONFIGURED', email: 'NOT_CONFIGURED' });
    svc.clock.advanceMs(60 * 60_000);
    await svc.scheduler.run('spend-delivery-retry');
    assert.equal(slack.messages.length, 0, 'the failure was final');
  });

  test('send: e-mail recipients without an e-mail provider key is FAILED', async () => {
    const bare = await startTestService({ now: NOW, env: { APP_SPEND_ALERT_FROM: 'Spend <alerts@acme.example>' } });
    try {
      const s = await seeded(bare);
      await s.f.expectOk(s.f.api('PUT', '/settings', { alertEmails: 'fin@acme.example' }));
      const sent = await s.f.expectOk(s.f.api('POST', '/digest/send'));
      assert.deepEqual(sent.delivery, { slack: 'NOT_CONFIGURED', webhook: 'NOT_CONFIGURED', email: 'FAILED' });
      assert.equal(resend.requests.length, 0);
      const [row] = await bare.ctx.db.selectFrom('spend_deliveries').selectAll().where('account_id', '=', s.account.accountId).execute();
      assert.equal(row!.last_error, 'No e-mail provider key is configured (APP_RESEND_API_KEY)');
    } finally {
      await bare.close();
    }
  });

  test('the Monday 08:00 job sends the digest of accounts that turned it on, and only theirs', async () => {
    const on = await seeded();
    const off = await seeded();
    await on.f.expectOk(on.f.api('PUT', '/settings', { slackWebhookUrl: slack.hookUrl(), digestEnabled: true }));
    await off.f.expectOk(off.f.api('PUT', '/settings', { slackWebhookUrl: slack.hookUrl(), digestEnabled: false }));
    svc.clock.set('2026-11-30T08:00:00Z');
    const outcome = await svc.scheduler.run('spend-weekly-digest');
    assert.deepEqual([outcome.status, outcome.slot.toISOString()], ['ran', '2026-11-30T08:00:00.000Z']);
    assert.equal(slack.messages.length, 1);
    // [11-23, 11-30): Backend 900 + Data 1200; the week before [11-16, 11-23): 600 + 150 + 300 + 30 + 90 = 1170;
    // the alerts fired at 11-24T23:59:59 and 11-25T00:00 are in it.
    assert.equal(slack.messages[0]!.split('\n')[0], 'AI spend 2026-11-23 to 2026-11-30 (end exclusive): $21.00, previous 7 days $11.70; unattributed $0.00; alerts fired: 2.');
    const rows = async (accountId: string) => svc.ctx.db.selectFrom('spend_deliveries').select(['event_type', 'channel', 'status']).where('account_id', '=', accountId).execute();
    assert.deepEqual(await rows(on.account.accountId), [{ event_type: 'spend.digest', channel: 'SLACK', status: 'SENT' }]);
    assert.deepEqual(await rows(off.account.accountId), []);
    assert.equal((await svc.scheduler.run('spend-weekly-digest')).status, 'skipped', 'one run per slot');
  });
});
