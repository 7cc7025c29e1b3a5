import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../src/webhooks.js';

/**
 * `verifyWebhook` (issue 33 item 6): a delivery signed as the service signs it (Standard Webhooks,
 * `whsec_` secret) verifies and comes back typed, its amounts exact; a wrong secret, a changed byte
 * or a stale timestamp is refused.
 */
const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const body = '{"id":"0190f4c4-0000-7000-8000-000000000001","type":"credits.granted","createdAt":"2026-11-29T08:00:00.000Z","accountId":"0190f4c4-0000-7000-8000-0000000000aa","data":{"object":{"id":"g1","amount":123456789012.123456,"grantType":"MANUAL"},"pool":{"id":"p1","balance":123456789012.123456}}}';

function signed(payload: string, key = secret, at = new Date()) {
  const id = '0190f4c4-0000-7000-8000-000000000001';
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign(id, at, payload) };
}

test('when a delivery is verified then it returns the event typed by its type, amounts as the exact decimal strings sent', () => {
  const event: WebhookEvent = verifyWebhook(body, signed(body), secret);
  assert.equal(event.type, 'credits.granted');
  if (event.type !== 'credits.granted') return;
  assert.equal(event.data.object.amount, '123456789012.123456');
  assert.equal(event.data.pool.balance, '123456789012.123456');
});

test('when the headers come as Fetch Headers, Node arrays or the body as bytes then it verifies the same', () => {
  const headers = signed(body);
  assert.equal(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret).id, headers['webhook-id']);
  const node = { ...headers, 'Webhook-Signature': [headers['webhook-signature']], 'webhook-signature': undefined };
  assert.equal(verifyWebhook(body, node, secret).type, 'credits.granted');
});

test('when two signatures are sent during a rotation then either secret verifies', () => {
  const older = `whsec_${Buffer.from('fedcba9876543210fedcba9876543210').toString('base64')}`;
  const headers = signed(body);
  const both = { ...headers, 'webhook-signature': `${headers['webhook-signature']} ${signed(body, older)['webhook-signature']}` };
  assert.equal(verifyWebhook(body, both, older).type, 'credits.granted');
  assert.equal(verifyWebhook(body, both, secret).type, 'credits.granted');
});

test('when the secret is wrong, a byte changed, a header missing or the timestamp stale then WebhookVerificationError', () => {
  const headers = signed(body);
  const other = `whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`;
  assert.throws(() => verifyWebhook(body, headers, other), WebhookVerificationError);
  assert.throws(() => verifyWebhook(body.replace('123456789012.123456', '123456789012.123457'), headers, secret), WebhookVerificationError);
  assert.throws(() => verifyWebhook(body, { ...headers, 'webhook-id': undefined }, secret), WebhookVerificationError);
  const stale = new Date(Date.now() - 10 * 60_000);
  assert.throws(() => verifyWebhook(body, signed(body, secret, stale), secret), WebhookVerificationError);
});
