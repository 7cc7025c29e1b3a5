import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { withTransaction } from '../../../src/platform/db/transaction.js';
import { dec } from '../../../src/platform/money.js';
import { attemptDeliveries, enqueueSpendEvent, purgeOldDeliveries } from '../../../src/modules/spend/deliveries/service.js';
import { insertDeliveries } from '../../../src/modules/spend/deliveries/repo.js';
import { TEST_MESSAGE } from '../../../src/modules/spend/deliveries/routes.js';
import { startResendFake, type ResendFake } from '../../fakes/vendors/resend.js';
import { SLACK_FAKE_TOKEN, startSlackFake, type SlackFake } from '../../fakes/vendors/slack.js';
import { startWebhookReceiver, verifyServiceSignatures, type WebhookReceiver } from '../../fakes/vendors/webhook-receiver.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const SECRET = 'whsec-deliveries-TOP-secret';
const FROM = 'Spend Bot <alerts@acme.example>';
const TIMEOUT_MS = 400;

const ALERT = {
  id: '0190a0a0-0000-7000-8000-0000000000aa',
  spendUnitId: '0190a0a0-0000-7000-8000-0000000000bb',
  unitName: 'Platform',
  kind: 'BREACH',
  period: 'MONTH',
  windowStart: '2026-03-01',
  spentCents: dec('10000.125'),
  limitCents: dec('10000'),
  message: 'Platform is over its monthly budget: $100.00 of $100.00 this month.',
  firedAt: '2026-03-10T12:00:00.000Z',
  ackedAt: null,
  ackedBy: null,
};

describe('spend deliveries: chat, webhook, e-mail (contract §7.6)', () => {
  let svc: TestService;
  let slack: SlackFake;
  let resend: ResendFake;
  let receiver: WebhookReceiver;
  const nowSeconds = () => Math.floor(svc.clock.now().getTime() / 1000);

  before(async () => {
    slack = await startSlackFake();
    resend = await startResendFake();
    receiver = await startWebhookReceiver({ secret: SECRET, nowSeconds });
    svc = await startTestService({
      env: {
        APP_SPEND_SLACK_WEBHOOK_BASE: `${slack.url}/`,
        APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true',
        APP_RESEND_BASE_URL: resend.url,
        APP_RESEND_API_KEY: resend.key,
        APP_SPEND_ALERT_FROM: FROM,
        APP_SPEND_DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
      },
    });
  });
  after(async () => {
    await svc.close();
    await Promise.all([slack.close(), resend.close(), receiver.close()]);
  });
  beforeEach(() => {
    slack.reset();
    resend.reset();
    receiver.reset();
    receiver.setSecret(SECRET);
  });

  /** An account with every channel configured (or those given). */
  async function operator(settings: Record<string, unknown> = { slackWebhookUrl: slack.hookUrl(), webhookUrl: receiver.hookUrl, webhookSecret: SECRET, alertEmails: 'fin@acme.example, cto@acme.example' }) {
    const account = await createTestAccount(svc);
    const put = await svc.http.put('/api/v1/spend/settings', { auth: account.token, body: settings });
    assert.equal(put.status, 200, put.text);
    return {
      account,
      sendTest: () => svc.http.post('/api/v1/spend/deliveries/test', { auth: account.token }),
      deliveries: async () => {
        const res = await svc.http.get('/api/v1/spend/deliveries', { auth: account.token });
        assert.equal(res.status, 200, res.text);
        return res.body.data as { id: string; type: string; channel: string; status: string; attempts: number; lastError: string | null; nextAttemptAt: string | null }[];
      },
      /** The alert code's call, stood in for by a test: enqueue inside a transaction. */
      enqueueAlert: (options: { rollback?: boolean } = {}) =>
        withTransaction(svc.ctx.db, async (tx) => {
          const ids = await enqueueSpendEvent(svc.ctx, tx, { accountId: account.accountId, type: 'spend.alert', payload: ALERT }, svc.app.log);
          if (options.rollback) throw new Error('rolled back on purpose');
          return ids;
        }),
    };
  }

  const byChannel = <T extends { channel: string }>(rows: T[]) => Object.fromEntries(rows.map((r) => [r.channel, r])) as Record<'SLACK' | 'WEBHOOK' | 'EMAIL', T>;

  test('when every channel is configured then the test message reaches each, signed, and each outcome is SENT', async () => {
    const o = await operator();
    const res = await o.sendTest();
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, { slack: 'SENT', webhook: 'SENT', email: 'SENT' });
    assert.deepEqual(slack.messages, [TEST_MESSAGE]);
    assert.equal(slack.requests[0]!.headers['content-type'], 'application/json');
    assert.equal(receiver.received.length, 1);
    const hook = receiver.received[0]!;
    assert.equal(hook.event, 'spend.test');
    assert.deepEqual(hook.check, { v1: true, v2: true, fresh: true });
    assert.equal(hook.body.type, 'spend.test');
    assert.equal(hook.body.accountId, o.account.accountId);
    assert.equal(hook.body.test.message, TEST_MESSAGE);
    assert.equal(resend.outbox.length, 1);
    assert.deepEqual({ from: resend.outbox[0]!.from, to: resend.outbox[0]!.to }, { from: FROM, to: ['fin@acme.example', 'cto@acme.example'] });
    assert.equal(resend.requests[0]!.headers['authorization'], `Bearer ${resend.key}`);
    const rows = await o.deliveries();
    assert.equal(rows.length, 3);
    for (const row of rows) assert.deepEqual([row.type, row.status, row.attempts, row.lastError, row.nextAttemptAt], ['spend.test', 'SENT', 1, null, null]);
  });

  test('when nothing is configured then every outcome is NOT_CONFIGURED, nothing is sent and nothing recorded', async () => {
    const o = await operator({ digestEnabled: false });
    const res = await o.sendTest();
    assert.deepEqual(res.body.data, { slack: 'NOT_CONFIGURED', webhook: 'NOT_CONFIGURED', email: 'NOT_CONFIGURED' });
    assert.equal(slack.requests.length + receiver.requests.length + resend.requests.length, 0);
    assert.deepEqual(await o.deliveries(), []);
    assert.deepEqual(await o.enqueueAlert(), []);
    assert.equal(slack.requests.length + receiver.requests.length + resend.requests.length, 0);
  });

  test('when one channel fails then only that channel is FAILED, with a reason, and the others are SENT', async () => {
    const o = await operator();
    slack.failNext(1, { status: 404 });
    assert.deepEqual((await o.sendTest()).body.data, { slack: 'FAILED', webhook: 'SENT', email: 'SENT' });
    receiver.failNext(1, 500);
    assert.deepEqual((await o.sendTest()).body.data, { slack: 'SENT', webhook: 'FAILED', email: 'SENT' });
    resend.failNext(1, { status: 422, message: 'Invalid `from` field.' });
    assert.deepEqual((await o.sendTest()).body.data, { slack: 'SENT', webhook: 'SENT', email: 'FAILED' });
    receiver.failNext(1, 200, TIMEOUT_MS * 3);
    const started = Date.now();
    assert.deepEqual((await o.sendTest()).body.data, { slack: 'SENT', webhook: 'FAILED', email: 'SENT' });
    assert.ok(Date.now() - started < TIMEOUT_MS * 3, 'the slow receiver was abandoned at the timeout');
    const failed = (await o.deliveries()).filter((r) => r.status === 'FAILED').map((r) => [r.channel, r.lastError, r.nextAttemptAt]);
    assert.deepEqual(failed, [
      ['WEBHOOK', `The webhook did not answer within ${TIMEOUT_MS} ms`, null],
      ['EMAIL', 'Resend answered HTTP 422 validation_error: Invalid `from` field.', null],
      ['WEBHOOK', 'The webhook answered HTTP 500', null],
      ['SLACK', 'Slack answered HTTP 404 channel_not_found', null],
    ]);
  });

  test('when an alert is enqueued inside a transaction then after commit every channel gets it: one chat line, the signed {type, accountId, alert} body, an e-mail', async () => {
    const o = await operator();
    const ids = await o.enqueueAlert();
    assert.equal(ids.length, 3);
    assert.deepEqual(slack.messages, [ALERT.message]);
    const hook = receiver.received[0]!;
    assert.equal(hook.event, 'spend.alert');
    assert.deepEqual(hook.check, { v1: true, v2: true, fresh: true });
    assert.deepEqual(Object.keys(hook.body), ['type', 'accountId', 'alert']);
    assert.equal(hook.body.alert.message, ALERT.message);
    assert.ok(hook.request.body.includes('"spentCents":10000.125'), 'amounts exact in the body');
    assert.equal(hook.request.headers['x-service-delivery'], byChannel(await o.deliveries()).WEBHOOK.id);
    assert.deepEqual({ subject: resend.outbox[0]!.subject, text: resend.outbox[0]!.text }, { subject: 'Spend alert (BREACH): Platform', text: `${ALERT.message}\n` });
    for (const row of await o.deliveries()) assert.deepEqual([row.type, row.status, row.attempts], ['spend.alert', 'SENT', 1]);
  });

  test('when the enqueueing transaction rolls back then nothing is sent and no row remains', async () => {
    const o = await operator();
    await assert.rejects(o.enqueueAlert({ rollback: true }), /rolled back on purpose/);
    assert.equal(slack.requests.length + receiver.requests.length + resend.requests.length, 0);
    assert.deepEqual(await o.deliveries(), []);
  });

  test('when a receiver checks the signatures then a tampered body, a wrong secret or a stale timestamp fails verification', async () => {
    const o = await operator();
    await o.enqueueAlert();
    const { request } = receiver.received[0]!;
    const now = nowSeconds();
    assert.deepEqual(verifyServiceSignatures(request.body, request.headers, SECRET, { nowSeconds: now }), { v1: true, v2: true, fresh: true });
    assert.deepEqual(verifyServiceSignatures(request.body.replace('Platform', 'Platfork'), request.headers, SECRET, { nowSeconds: now }), { v1: false, v2: false, fresh: false });
    assert.deepEqual(verifyServiceSignatures(request.body, request.headers, 'other-secret', { nowSeconds: now }), { v1: false, v2: false, fresh: false });
    assert.deepEqual(verifyServiceSignatures(request.body, request.headers, SECRET, { nowSeconds: now + 301 }), { v1: true, v2: true, fresh: false });
    assert.equal(request.headers['x-service-timestamp'], String(now));
  });

  test('when no secret is stored then the webhook is sent unsigned, with its event and timestamp', async () => {
    const o = await operator({ webhookUrl: receiver.hookUrl });
    receiver.setSecret(null);
    assert.deepEqual((await o.sendTest()).body.data, { slack: 'NOT_CONFIGURED', webhook: 'SENT', email: 'NOT_CONFIGURED' });
    const { headers } = receiver.received[0]!.request;
    assert.equal(headers['x-service-event'], 'spend.test');
    assert.match(String(headers['x-service-timestamp']), /^\d+$/);
    assert.equal(headers['x-service-signature'], undefined);
    assert.equal(headers['x-service-signature-v2'], undefined);
  });

  test('when a delivery keeps failing then the retry job tries it with backoff, at most 5 attempts in all, and the other channels are sent once', async () => {
    const o = await operator();
    receiver.failNext(100, 503);
    await o.enqueueAlert();
    // Read from the table: the JWT does not outlive the day this test moves the clock through.
    const webhookRow = async () => {
      const r = await svc.ctx.db.selectFrom('spend_deliveries').selectAll().where('account_id', '=', o.account.accountId).where('channel', '=', 'WEBHOOK').executeTakeFirstOrThrow();
      return { status: r.status, attempts: r.attempts, lastError: r.last_error, nextAttemptAt: r.next_attempt_at?.toISOString() ?? null };
    };
    let row = await webhookRow();
    assert.deepEqual([row.status, row.attempts, row.lastError], ['FAILED', 1, 'The webhook answered HTTP 503']);
    assert.equal(row.nextAttemptAt, new Date(svc.clock.now().getTime() + 60_000).toISOString());

    // Not due yet: the job sends nothing.
    svc.clock.advanceMs(30_000);
    await svc.scheduler.run('spend-delivery-retry');
    assert.equal(receiver.received.length, 1);

    for (const waitMinutes of [1, 5, 15, 60]) {
      svc.clock.advanceMs(waitMinutes * 60_000);
      assert.equal((await svc.scheduler.run('spend-delivery-retry')).status, 'ran');
    }
    row = await webhookRow();
    assert.deepEqual([row.status, row.attempts, row.nextAttemptAt], ['FAILED', 5, null]);
    assert.equal(receiver.received.length, 5);
    const ids = new Set(receiver.received.map((d) => d.request.headers['x-service-delivery']));
    assert.equal(ids.size, 1, 'every attempt carries the same delivery id');

    svc.clock.advanceMs(24 * 3_600_000);
    await svc.scheduler.run('spend-delivery-retry');
    assert.equal(receiver.received.length, 5, 'no sixth attempt');
    assert.equal(slack.messages.length, 1);
    assert.equal(resend.outbox.length, 1);
    const others = await svc.ctx.db.selectFrom('spend_deliveries').select(['channel', 'status', 'attempts']).where('account_id', '=', o.account.accountId).where('channel', '<>', 'WEBHOOK').orderBy('channel').execute();
    assert.deepEqual(others, [{ channel: 'EMAIL', status: 'SENT', attempts: 1 }, { channel: 'SLACK', status: 'SENT', attempts: 1 }]);
  });

  test('when a failure is temporary then the retry succeeds and the row is SENT; a lost e-mail answer is retried under the same Idempotency-Key', async () => {
    const o = await operator();
    receiver.failNext(1, 500);
    resend.failNext(1, { status: 429 });
    slack.failNext(1, { status: 500 });
    await o.enqueueAlert();
    assert.deepEqual(Object.values(byChannel(await o.deliveries())).map((r) => r.status), ['FAILED', 'FAILED', 'FAILED']);
    svc.clock.advanceMs(60_000);
    await svc.scheduler.run('spend-delivery-retry');
    for (const row of await o.deliveries()) assert.deepEqual([row.channel, row.status, row.attempts, row.lastError], [row.channel, 'SENT', 2, null]);
    assert.deepEqual(slack.messages, [ALERT.message]);
    assert.equal(receiver.received.length, 2);
    assert.equal(resend.outbox.length, 1);
    const keys = resend.requests.map((r) => r.headers['idempotency-key']);
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1]);
  });

  test('when Slack refuses for good (revoked hook, 4xx) then the row is FAILED without a retry', async () => {
    const o = await operator();
    slack.revoke(SLACK_FAKE_TOKEN);
    await o.enqueueAlert();
    const row = byChannel(await o.deliveries()).SLACK;
    assert.deepEqual([row.status, row.attempts, row.lastError, row.nextAttemptAt], ['FAILED', 1, 'Slack answered HTTP 403 invalid_token', null]);
    svc.clock.advanceMs(3_600_000);
    await svc.scheduler.run('spend-delivery-retry');
    assert.equal(slack.requests.length, 1);
  });

  test('when a channel is removed before the retry then the row fails as no longer configured and nothing is sent to it', async () => {
    const o = await operator();
    receiver.failNext(1, 500);
    await o.enqueueAlert();
    const put = await svc.http.put('/api/v1/spend/settings', { auth: o.account.token, body: { webhookUrl: '' } });
    assert.equal(put.status, 200);
    svc.clock.advanceMs(60_000);
    await svc.scheduler.run('spend-delivery-retry');
    const row = byChannel(await o.deliveries()).WEBHOOK;
    assert.deepEqual([row.status, row.attempts, row.lastError, row.nextAttemptAt], ['FAILED', 2, 'The webhook channel is no longer configured', null]);
    assert.equal(receiver.received.length, 1);
  });

  test('when two nodes attempt the same rows at once then each channel is sent once', async () => {
    const o = await operator();
    const rows = await insertDeliveries(svc.ctx.db, { accountId: o.account.accountId, type: 'spend.alert', payload: ALERT, channels: ['SLACK', 'WEBHOOK', 'EMAIL'], now: svc.clock.now() });
    const ids = rows.map((r) => r.id);
    const [a, b] = await Promise.all([attemptDeliveries(svc.ctx, ids, svc.app.log), attemptDeliveries(svc.ctx, ids, svc.app.log)]);
    assert.equal(a.size + b.size, 3);
    assert.equal(slack.messages.length, 1);
    assert.equal(receiver.received.length, 1);
    assert.equal(resend.outbox.length, 1);
  });

  test('when a node died before its after-commit attempt then the retry job sends the PENDING rows', async () => {
    const o = await operator();
    // Committed without the after-commit callback: as if the process stopped right after COMMIT.
    await insertDeliveries(svc.ctx.db, { accountId: o.account.accountId, type: 'spend.alert', payload: ALERT, channels: ['SLACK', 'WEBHOOK', 'EMAIL'], now: svc.clock.now() });
    assert.deepEqual((await o.deliveries()).map((r) => r.status), ['PENDING', 'PENDING', 'PENDING']);
    svc.clock.advanceMs(60_000);
    await svc.scheduler.run('spend-delivery-retry');
    for (const row of await o.deliveries()) assert.deepEqual([row.status, row.attempts], ['SENT', 1]);
    assert.deepEqual(slack.messages, [ALERT.message]);
    assert.equal(receiver.received.length, 1);
    assert.equal(resend.outbox.length, 1);
  });

  test('when a digest is enqueued then chat gets a few lines, the webhook {type, accountId, digest} signed, the e-mail the same lines', async () => {
    const o = await operator();
    const digest = {
      from: '2026-03-02', to: '2026-03-09', totalCents: dec('12345.5'), previousTotalCents: 10000, unattributedCents: 150, alertsFired: 2,
      rows: [{ unitId: ALERT.spendUnitId, name: 'Platform', cents: dec('12195.5'), previousCents: 10000, monthlySpentCents: 20000, monthlyLimitCents: 50000, bumpReason: null }],
    };
    await withTransaction(svc.ctx.db, (tx) => enqueueSpendEvent(svc.ctx, tx, { accountId: o.account.accountId, type: 'spend.digest', payload: digest }, svc.app.log));
    const lines = [
      'AI spend 2026-03-02 to 2026-03-09 (end exclusive): $123.46, previous 7 days $100.00; unattributed $1.50; alerts fired: 2.',
      '• Platform: $121.96 (previous $100.00), month to date $200.00 of $500.00',
    ];
    assert.deepEqual(slack.messages, [lines.join('\n')]);
    const hook = receiver.received[0]!;
    assert.equal(hook.event, 'spend.digest');
    assert.deepEqual(hook.check, { v1: true, v2: true, fresh: true });
    assert.deepEqual(Object.keys(hook.body), ['type', 'accountId', 'digest']);
    assert.ok(hook.request.body.includes('"totalCents":12345.5'));
    assert.deepEqual({ subject: resend.outbox[0]!.subject, text: resend.outbox[0]!.text }, { subject: 'AI spend digest 2026-03-02 to 2026-03-09', text: `${lines.join('\n')}\n` });
  });

  test('when the daily purge runs then finished deliveries older than 30 days go and recent or still-due ones stay', async () => {
    const o = await operator();
    const at = (daysAgo: number) => new Date(svc.clock.now().getTime() - daysAgo * 86_400_000);
    const insert = (daysAgo: number) => insertDeliveries(svc.ctx.db, { accountId: o.account.accountId, type: 'spend.alert', payload: ALERT, channels: ['SLACK'], now: at(daysAgo) });
    const [oldSent] = await insert(31);
    const [oldDue] = await insert(31);
    const [recentSent] = await insert(29);
    await svc.ctx.db.updateTable('spend_deliveries').set({ status: 'SENT', next_attempt_at: null }).where('id', 'in', [oldSent!.id, recentSent!.id]).execute();
    assert.ok((await purgeOldDeliveries(svc.ctx)) >= 1);
    const left = (await o.deliveries()).map((r) => r.id).sort();
    assert.deepEqual(left, [oldDue!.id, recentSent!.id].sort());
  });

  test('when another account sends then its deliveries are not listed here', async () => {
    const o = await operator();
    const other = await operator();
    await other.sendTest();
    assert.deepEqual(await o.deliveries(), []);
    assert.equal((await other.deliveries()).length, 3);
  });

  test('when a tenant key calls then 401 (console JWT only)', async () => {
    const o = await operator();
    assert.equal((await svc.http.post('/api/v1/spend/deliveries/test', { auth: o.account.apiKey })).status, 401);
    assert.equal((await svc.http.get('/api/v1/spend/deliveries', { auth: o.account.apiKey })).status, 401);
  });

  test('when deliveries succeed and fail then the log names them without any hook URL, token, secret or key', async () => {
    const o = await operator();
    slack.failNext(1, { status: 500 });
    receiver.failNext(1, 500);
    resend.failNext(1, { status: 500 });
    await o.enqueueAlert();
    await o.sendTest();
    const logs = svc.logs();
    assert.match(logs, /spend delivery failed/);
    assert.match(logs, /spend delivery sent/);
    for (const secret of [SLACK_FAKE_TOKEN, slack.hookUrl(), '/services/T000FAKE', SECRET, resend.key, receiver.hookUrl, '/hooks/spend']) {
      assert.ok(!logs.includes(secret), `the log does not contain ${secret}`);
    }
  });
});

describe('spend deliveries without an e-mail key, loopback refused at connection time', () => {
  let svc: TestService;
  let slack: SlackFake;
  let receiver: WebhookReceiver;

  before(async () => {
    slack = await startSlackFake();
    receiver = await startWebhookReceiver();
    svc = await startTestService({ env: { APP_SPEND_SLACK_WEBHOOK_BASE: `${slack.url}/`, APP_SPEND_ALERT_FROM: FROM } });
  });
  after(async () => {
    await svc.close();
    await Promise.all([slack.close(), receiver.close()]);
  });

  test('when recipients are set but no e-mail key is configured then e-mail is FAILED and the other channels are unaffected', async () => {
    const account = await createTestAccount(svc);
    await svc.http.put('/api/v1/spend/settings', { auth: account.token, body: { slackWebhookUrl: slack.hookUrl(), alertEmails: 'fin@acme.example' } });
    const res = await svc.http.post('/api/v1/spend/deliveries/test', { auth: account.token });
    assert.deepEqual(res.body.data, { slack: 'SENT', webhook: 'NOT_CONFIGURED', email: 'FAILED' });
    const rows = (await svc.http.get('/api/v1/spend/deliveries?status=FAILED', { auth: account.token })).body.data;
    assert.deepEqual(rows.map((r: { channel: string; lastError: string }) => [r.channel, r.lastError]), [['EMAIL', 'No e-mail provider key is configured (APP_RESEND_API_KEY)']]);
  });

  test('when a stored webhook URL now reaches a loopback address then the connection is refused and nothing arrives', async () => {
    // Saved while it passed the guard (a public address then): stored directly, as the guard now refuses it on save.
    const account = await createTestAccount(svc);
    const sealed = svc.ctx.secrets.seal(receiver.hookUrl, `spend_settings:${account.accountId}:webhook_url`);
    const now = svc.clock.now();
    await svc.ctx.db.insertInto('spend_settings').values({ account_id: account.accountId, webhook_url_sealed: sealed, created_at: now, modified_at: now }).execute();
    const res = await svc.http.post('/api/v1/spend/deliveries/test', { auth: account.token });
    assert.deepEqual(res.body.data, { slack: 'NOT_CONFIGURED', webhook: 'FAILED', email: 'NOT_CONFIGURED' });
    assert.equal(receiver.requests.length, 0);
    const [row] = (await svc.http.get('/api/v1/spend/deliveries', { auth: account.token })).body.data;
    assert.equal(row.lastError, 'Refused to connect to 127.0.0.1: 127.0.0.1 is a loopback address');
  });
});
