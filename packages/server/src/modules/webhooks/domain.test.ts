import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { accepts, endpointAfterAttempt, MAX_ATTEMPTS, newSecret, nextAttemptAfterFailure, secretHint, signatureHeader, signingSecrets } from './domain.js';

test('when a delivery is signed then the official standardwebhooks package verifies it, and a wrong secret or a changed byte fails', () => {
  const secret = newSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const id = '2f6d4c1e-8a3b-4f7e-9c5d-0b1a2e3f4d5c';
  const ts = Math.floor(Date.now() / 1000);
  const body = '{"id":"2f6d4c1e-8a3b-4f7e-9c5d-0b1a2e3f4d5c","type":"webhook.test","amount":49.10}';
  const headers = { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader([secret], id, ts, body) };
  assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  assert.throws(() => new Webhook(newSecret()).verify(body, headers));
  assert.throws(() => new Webhook(secret).verify(body.replace('49.10', '49.11'), headers));
});

test('when a secret was rotated within 24 hours then both sign, the new one first, and either verifies', () => {
  const [current, previous] = [newSecret(), newSecret()];
  const now = new Date('2026-05-01T00:00:00Z');
  const secrets = signingSecrets(current, previous, new Date(now.getTime() + 1000), now);
  assert.deepEqual(secrets, [current, previous]);
  assert.deepEqual(signingSecrets(current, previous, now, now), [current], 'expired at its instant');
  const header = signatureHeader(secrets, 'e1', 100, '{}');
  assert.equal(header.split(' ').length, 2);
  const ts = Math.floor(Date.now() / 1000);
  const h = { 'webhook-id': 'e1', 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader(secrets, 'e1', ts, '{}') };
  assert.deepEqual(new Webhook(previous).verify('{}', h), {});
  assert.deepEqual(new Webhook(current).verify('{}', h), {});
});

test('when attempts fail then the schedule is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, and ends after the tenth', () => {
  const t0 = new Date('2026-05-01T00:00:00Z');
  const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => nextAttemptAfterFailure(i + 1, t0)?.getTime());
  const h = 3_600_000;
  assert.deepEqual(delays.map((d) => (d === undefined ? null : d - t0.getTime())), [5000, 300000, 1800000, 2 * h, 5 * h, 10 * h, 14 * h, 20 * h, 24 * h, null]);
});

test('when an attempt answers then 410 disables at once, five days of failures disable, a success clears the run', () => {
  const now = new Date('2026-05-10T00:00:00Z');
  assert.deepEqual(endpointAfterAttempt({ failingSince: null }, { success: false, status: 410 }, now), { failingSince: now, disable: 'GONE' });
  assert.deepEqual(endpointAfterAttempt({ failingSince: null }, { success: false, status: 500 }, now), { failingSince: now, disable: null });
  const sixDays = new Date(now.getTime() - 6 * 24 * 3_600_000);
  assert.equal(endpointAfterAttempt({ failingSince: sixDays }, { success: false, status: null }, now).disable, 'FAILING');
  assert.equal(endpointAfterAttempt({ failingSince: new Date(now.getTime() - 4 * 24 * 3_600_000) }, { success: false, status: 500 }, now).disable, null);
  assert.deepEqual(endpointAfterAttempt({ failingSince: sixDays }, { success: true, status: 200 }, now), { failingSince: null, disable: null });
});

test('when a filter is empty it takes every type; hints end with the last four characters', () => {
  assert.ok(accepts([], 'invoice.paid'));
  assert.ok(accepts(['invoice.paid'], 'invoice.paid'));
  assert.ok(!accepts(['invoice.paid'], 'invoice.voided'));
  assert.equal(secretHint('whsec_abcdefgh'), 'whsec_\u2026efgh');
});
