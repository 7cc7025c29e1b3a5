import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { dec } from '../../../platform/money.js';
import { digestLines, emailContent, isRetryableStatus, MAX_DELIVERY_ATTEMPTS, nextAttemptAfter, slackText, webhookBody, webhookHeaders } from './domain.js';

const ALERT = {
  id: '0190a0a0-0000-7000-8000-000000000001',
  unitName: 'Platform',
  kind: 'THRESHOLD',
  period: 'MONTH',
  spentCents: dec('8123.456'),
  limitCents: dec('10000'),
  message: 'Platform is at 81% of its monthly budget: $81.23 of $100.00 this month.',
};

const DIGEST = {
  from: '2026-03-02',
  to: '2026-03-09',
  totalCents: dec('12345.5'),
  previousTotalCents: 10000,
  unattributedCents: dec('0.004'),
  alertsFired: 3,
  rows: [
    { unitId: 'u1', name: 'Platform', cents: dec('10000.005'), previousCents: 9000, monthlySpentCents: 20000, monthlyLimitCents: 50000, bumpReason: 'launch\nweek' },
    { unitId: 'u2', name: 'Data', cents: 2345, previousCents: 1000, monthlySpentCents: 4000, monthlyLimitCents: null, bumpReason: null },
  ],
};

describe('spend deliveries, pure rules (contract §7.6)', () => {
  it('when an alert goes to chat then it is one line: the alert message', () => {
    assert.equal(slackText({ accountId: 'a', type: 'spend.alert', payload: ALERT }), ALERT.message);
    assert.equal(slackText({ accountId: 'a', type: 'spend.alert', payload: { ...ALERT, message: 'two\r\nlines ' } }), 'two lines');
  });

  it('when a digest goes to chat then a few lines: totals in dollars (2 dp, HALF_UP), then one line per unit', () => {
    const text = slackText({ accountId: 'a', type: 'spend.digest', payload: DIGEST });
    assert.deepEqual(text.split('\n'), [
      'AI spend 2026-03-02 to 2026-03-09 (end exclusive): $123.46, previous 7 days $100.00; unattributed $0.00; alerts fired: 3.',
      '• Platform: $100.00 (previous $90.00), month to date $200.00 of $500.00 (bump: launch week)',
      '• Data: $23.45 (previous $10.00), month to date $40.00',
    ]);
  });

  it('when a digest has more than 10 units then the rest are counted, not listed', () => {
    const rows = Array.from({ length: 13 }, (_, i) => ({ name: `U${i}`, cents: 1, previousCents: 0, monthlySpentCents: 1, monthlyLimitCents: null }));
    const lines = digestLines({ ...DIGEST, rows });
    assert.equal(lines.length, 1 + 10 + 1);
    assert.equal(lines.at(-1), '… and 3 more units');
  });

  it('when an alert is e-mailed then the subject names kind and unit and the text is the message', () => {
    assert.deepEqual(emailContent({ accountId: 'a', type: 'spend.alert', payload: ALERT }), { subject: 'Spend alert (THRESHOLD): Platform', text: `${ALERT.message}\n` });
    assert.equal(emailContent({ accountId: 'a', type: 'spend.digest', payload: DIGEST }).subject, 'AI spend digest 2026-03-02 to 2026-03-09');
  });

  it('when the webhook body is built then it is {type, accountId, alert|digest} with exact numbers', () => {
    const body = webhookBody({ accountId: 'acc', type: 'spend.alert', payload: ALERT });
    assert.ok(body.startsWith('{"type":"spend.alert","accountId":"acc","alert":{'));
    assert.ok(body.includes('"spentCents":8123.456'), body);
    assert.ok(webhookBody({ accountId: 'acc', type: 'spend.digest', payload: DIGEST }).includes('"digest":{"from":"2026-03-02"'));
  });

  it('when a secret is set then both signatures are HMAC-SHA256 of the body and of "<ts>.<body>"; without one, none', () => {
    const body = '{"type":"spend.alert"}';
    const signed = webhookHeaders({ type: 'spend.alert', body, secret: 'shh', timestampSeconds: 1773144000, deliveryId: 'd1' });
    const hmac = (data: string) => createHmac('sha256', 'shh').update(data).digest('hex');
    assert.equal(signed['x-service-event'], 'spend.alert');
    assert.equal(signed['x-service-timestamp'], '1773144000');
    assert.equal(signed['x-service-signature'], `sha256=${hmac(body)}`);
    assert.equal(signed['x-service-signature-v2'], `t=1773144000,v1=${hmac(`1773144000.${body}`)}`);
    const unsigned = webhookHeaders({ type: 'spend.alert', body, secret: null, timestampSeconds: 1, deliveryId: 'd1' });
    assert.equal(unsigned['x-service-signature'], undefined);
    assert.equal(unsigned['x-service-signature-v2'], undefined);
    assert.equal(unsigned['x-service-event'], 'spend.alert');
  });

  it('when an attempt fails then the next one is due after 1, 5, 15, 60 minutes, and none after the 5th or a permanent failure', () => {
    const at = new Date('2026-03-10T12:00:00Z');
    const minutesAfter = (n: number) => (nextAttemptAfter(n, at, true)!.getTime() - at.getTime()) / 60_000;
    assert.deepEqual([1, 2, 3, 4].map(minutesAfter), [1, 5, 15, 60]);
    assert.equal(nextAttemptAfter(MAX_DELIVERY_ATTEMPTS, at, true), null);
    assert.equal(nextAttemptAfter(1, at, false), null);
  });

  it('when a receiver answers then 408, 429 and 5xx are retried and other 4xx are final', () => {
    assert.deepEqual([400, 401, 403, 404, 410, 422].map(isRetryableStatus), [false, false, false, false, false, false]);
    assert.deepEqual([408, 429, 500, 502, 503].map(isRetryableStatus), [true, true, true, true, true]);
  });
});
