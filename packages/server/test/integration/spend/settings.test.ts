import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

const PATH = '/api/v1/spend/settings';
const DEFAULTS = {
  personLevelEnabled: false,
  workerNotice: null,
  slackConfigured: false,
  webhookConfigured: false,
  webhookSigned: false,
  alertEmails: null,
  digestEnabled: false,
};

describe('spend settings (contract §7.3)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  async function operator() {
    const account = await createTestAccount(svc);
    return {
      account,
      get: () => svc.http.get(PATH, { auth: account.token }),
      put: (body: unknown) => svc.http.put(PATH, { auth: account.token, body }),
    };
  }

  test('when nothing was saved then GET answers the defaults', async () => {
    const o = await operator();
    const res = await o.get();
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, DEFAULTS);
  });

  test('when every field is set then secrets are sealed at rest and shown only as configured', async () => {
    const o = await operator();
    const res = await o.put({
      workerNotice: ' Spend is attributed by name. ',
      personLevelEnabled: true,
      slackWebhookUrl: 'https://hooks.slack.com/services/T0/B0/secret-slack',
      webhookUrl: 'https://93.184.216.34/hooks/spend',
      webhookSecret: 'whsec-very-secret',
      alertEmails: 'a@x.com , b@y.com,',
      digestEnabled: true,
    });
    assert.equal(res.status, 200, res.text);
    const expected = { personLevelEnabled: true, workerNotice: 'Spend is attributed by name.', slackConfigured: true, webhookConfigured: true, webhookSigned: true, alertEmails: 'a@x.com, b@y.com', digestEnabled: true };
    assert.deepEqual(res.body.data, expected);
    assert.deepEqual((await o.get()).body.data, expected);
    const row = await svc.ctx.db.selectFrom('spend_settings').selectAll().where('account_id', '=', o.account.accountId).executeTakeFirstOrThrow();
    for (const sealed of [row.slack_webhook_url_sealed, row.webhook_url_sealed, row.webhook_secret_sealed]) {
      assert.ok(sealed);
      assert.ok(!/secret-slack|93\.184|whsec/.test(sealed), 'stored sealed, not in plain');
    }
    assert.ok(!res.text.includes('secret-slack') && !res.text.includes('whsec'));
  });

  test('when a field is null or absent then it is left alone; "" removes a secret', async () => {
    const o = await operator();
    await o.put({ slackWebhookUrl: 'https://hooks.slack.com/services/x', webhookSecret: 's', digestEnabled: true });
    const kept = await o.put({ slackWebhookUrl: null, digestEnabled: null });
    assert.equal(kept.body.data.slackConfigured, true);
    assert.equal(kept.body.data.webhookSigned, true);
    assert.equal(kept.body.data.digestEnabled, true);
    const removed = await o.put({ slackWebhookUrl: '', webhookSecret: '' });
    assert.equal(removed.body.data.slackConfigured, false);
    assert.equal(removed.body.data.webhookSigned, false);
    assert.equal(removed.body.data.digestEnabled, true);
  });

  test('when a rule is broken then 400 validation_failed with the contract message and nothing changes', async () => {
    const o = await operator();
    const cases: [unknown, string | RegExp][] = [
      [{ personLevelEnabled: true }, 'Write the worker notice before enabling person-level attribution — staff should know spend is attributed to them by name'],
      [{ slackWebhookUrl: 'https://example.com/hook' }, 'That is not a Slack incoming webhook URL (expected https://hooks.slack.com/…)'],
      [{ alertEmails: 'a@x.com, nobody' }, 'Not an email address: nobody'],
      [{ digestEnabled: 'yes' }, /^Validation failed: digestEnabled/],
      [{ workerNotice: 'x'.repeat(10_001) }, /^Validation failed: workerNotice/],
    ];
    for (const [body, message] of cases) {
      const res = await o.put({ ...(body as object), digestEnabled: (body as { digestEnabled?: unknown }).digestEnabled ?? true });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_failed');
      if (typeof message === 'string') assert.equal(res.body.error.message, message);
      else assert.match(res.body.error.message, message);
    }
    assert.deepEqual((await o.get()).body.data, DEFAULTS);
  });

  test('when the webhook URL fails the outbound-URL guard then 400 validation_failed naming the reason', async () => {
    const o = await operator();
    const cases: [string, RegExp][] = [
      ['ftp://93.184.216.34/x', /scheme ftp is not allowed/],
      ['https://user:pw@93.184.216.34/', /credentials/],
      ['http://127.0.0.1:8080/hook', /127\.0\.0\.1 is a loopback address/],
      ['http://localhost:8080/hook', /localhost resolves to .* loopback address/],
      ['http://[::1]/hook', /loopback/],
      ['http://[::ffff:127.0.0.1]/hook', /loopback/],
      ['http://169.254.169.254/latest/meta-data', /link-local/],
      ['http://[fe80::1]/', /link-local/],
      ['http://0.0.0.0/', /unspecified/],
      ['not a url', /not a valid URL/],
    ];
    for (const [webhookUrl, reason] of cases) {
      const res = await o.put({ webhookUrl });
      assert.equal(res.status, 400, webhookUrl);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.match(res.body.error.message, /^Validation failed: webhookUrl: outbound URL refused: /);
      assert.match(res.body.error.message, reason, webhookUrl);
    }
    assert.equal((await o.get()).body.data.webhookConfigured, false);
  });

  test('when a tenant key calls then 401 (console JWT only)', async () => {
    const o = await operator();
    const res = await svc.http.get(PATH, { auth: o.account.apiKey });
    assert.equal(res.status, 401);
  });
});

describe('spend settings: outbound policy from the environment', () => {
  test('when private ranges are off then a private webhook is refused; loopback allowed only with the switch', async () => {
    const svc = await startTestService({ env: { APP_SPEND_OUTBOUND_ALLOW_PRIVATE: 'false', APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    try {
      const account = await createTestAccount(svc);
      const lan = await svc.http.put(PATH, { auth: account.token, body: { webhookUrl: 'http://10.1.2.3/hook' } });
      assert.equal(lan.status, 400);
      assert.match(lan.body.error.message, /10\.1\.2\.3 is a private address \(APP_SPEND_OUTBOUND_ALLOW_PRIVATE=false\)/);
      const loop = await svc.http.put(PATH, { auth: account.token, body: { webhookUrl: 'http://127.0.0.1:9/hook' } });
      assert.equal(loop.status, 200, loop.text);
      assert.equal(loop.body.data.webhookConfigured, true);
    } finally {
      await svc.close();
    }
  });

  test('when private ranges are allowed (default) then a private webhook is accepted', async () => {
    const svc = await startTestService();
    try {
      const account = await createTestAccount(svc);
      const lan = await svc.http.put(PATH, { auth: account.token, body: { webhookUrl: 'http://192.168.1.20/hook' } });
      assert.equal(lan.status, 200, lan.text);
    } finally {
      await svc.close();
    }
  });

  test('when the build module is off then 404 module_disabled', async () => {
    const svc = await startTestService({ env: { APP_MODULES_BUILD_ENABLED: 'false' } });
    try {
      const account = await createTestAccount(svc);
      const res = await svc.http.get(PATH, { auth: account.token });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'module_disabled');
    } finally {
      await svc.close();
    }
  });
});
