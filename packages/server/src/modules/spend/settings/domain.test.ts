import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../platform/errors/app-error.js';
import { applySpendSettingsPatch, DEFAULT_SPEND_SETTINGS, normaliseAlertEmails, WORKER_NOTICE_REQUIRED } from './domain.js';

const SLACK = 'https://hooks.slack.com/';
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'validation_failed');
    return err.message;
  }
  assert.fail('expected a refusal');
};

describe('spend settings rules (contract §7.3)', () => {
  it('when a field is absent or null then it is left alone', () => {
    const current = { ...DEFAULT_SPEND_SETTINGS, workerNotice: 'n', digestEnabled: true };
    assert.deepEqual(applySpendSettingsPatch(current, { workerNotice: null }, SLACK), current);
  });
  it('when person-level attribution is turned on without a worker notice then it is refused', () => {
    assert.equal(refusal(() => applySpendSettingsPatch(DEFAULT_SPEND_SETTINGS, { personLevelEnabled: true }, SLACK)), WORKER_NOTICE_REQUIRED);
    assert.equal(refusal(() => applySpendSettingsPatch(DEFAULT_SPEND_SETTINGS, { personLevelEnabled: true, workerNotice: '  ' }, SLACK)), WORKER_NOTICE_REQUIRED);
    assert.equal(applySpendSettingsPatch(DEFAULT_SPEND_SETTINGS, { personLevelEnabled: true, workerNotice: 'We attribute spend.' }, SLACK).personLevelEnabled, true);
  });
  it('when the notice is blanked while person-level attribution is on then it is refused', () => {
    const on = { ...DEFAULT_SPEND_SETTINGS, personLevelEnabled: true, workerNotice: 'n' };
    assert.equal(refusal(() => applySpendSettingsPatch(on, { workerNotice: '' }, SLACK)), WORKER_NOTICE_REQUIRED);
  });
  it('when the Slack URL does not start with the Slack base then it is refused', () => {
    assert.equal(
      refusal(() => applySpendSettingsPatch(DEFAULT_SPEND_SETTINGS, { slackWebhookUrl: 'https://example.com/hook' }, SLACK)),
      'That is not a Slack incoming webhook URL (expected https://hooks.slack.com/…)',
    );
    assert.equal(applySpendSettingsPatch(DEFAULT_SPEND_SETTINGS, { slackWebhookUrl: 'https://hooks.slack.com/services/T/B/x' }, SLACK).slackWebhookUrl, 'https://hooks.slack.com/services/T/B/x');
  });
  it('when a secret is "" then it is removed', () => {
    const set = { ...DEFAULT_SPEND_SETTINGS, slackWebhookUrl: 'https://hooks.slack.com/x', webhookUrl: 'https://a.example/', webhookSecret: 's' };
    assert.deepEqual(applySpendSettingsPatch(set, { slackWebhookUrl: '', webhookUrl: '', webhookSecret: '' }, SLACK), DEFAULT_SPEND_SETTINGS);
  });
  it('when alert e-mails are given then they are trimmed, joined with ", " and de-duplicated', () => {
    assert.equal(normaliseAlertEmails(' a@x.com ,b@y.com,, A@X.com '), 'a@x.com, b@y.com');
    assert.equal(normaliseAlertEmails(' , '), null);
    assert.equal(refusal(() => normaliseAlertEmails('a@x.com, bob')), 'Not an email address: bob');
  });
});
