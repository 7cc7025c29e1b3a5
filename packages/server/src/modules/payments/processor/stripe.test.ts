import assert from 'node:assert/strict';
import { test } from 'node:test';
import Stripe from 'stripe';
import { isAlreadyExistsError, isCardError, isInvalidRequestError, isTransientError, processorMessage, verifyWebhookEvent } from './stripe.js';

const secret = 'whsec_unit_test_secret';
const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'customer.created', data: { object: { id: 'cus_1', object: 'customer' } } });
const signed = (timestampSeconds: number, withSecret = secret) =>
  new Stripe('sk_test_unit', { telemetry: false }).webhooks.generateTestHeaderString({ payload: body, secret: withSecret, timestamp: timestampSeconds });

test('when a webhook body is signed with the secret within the tolerance then its event is returned', () => {
  const now = 1_800_000_000;
  const event = verifyWebhookEvent(body, signed(now - 299), secret, 300, now * 1000);
  assert.equal(event.id, 'evt_1');
  assert.equal(event.type, 'customer.created');
});

test('when the signature is of another secret, or older than the tolerance by our clock, then verification throws', () => {
  const now = 1_800_000_000;
  assert.throws(() => verifyWebhookEvent(body, signed(now, 'whsec_other'), secret, 300, now * 1000));
  assert.throws(() => verifyWebhookEvent(body, signed(now - 301), secret, 300, now * 1000));
  assert.throws(() => verifyWebhookEvent(`${body} `, signed(now), secret, 300, now * 1000));
});

test('when the processor refuses then its errors are classified: a card decline, a refused request, an existing object, a passing failure', () => {
  const card = new Stripe.errors.StripeCardError({ message: 'Your card was declined.', code: 'card_declined' });
  const invalid = new Stripe.errors.StripeInvalidRequestError({ message: 'No such price' });
  const exists = new Stripe.errors.StripeInvalidRequestError({ message: 'exists', code: 'resource_already_exists' });
  const down = new Stripe.errors.StripeAPIError({ message: 'boom' });
  const unreachable = new Stripe.errors.StripeConnectionError({ message: 'timeout' });
  const limited = new Stripe.errors.StripeRateLimitError({ message: 'slow down' });
  assert.ok(isCardError(card) && card.code === 'card_declined');
  assert.ok(isInvalidRequestError(invalid) && !isAlreadyExistsError(invalid) && !isTransientError(invalid));
  assert.ok(isAlreadyExistsError(exists));
  assert.ok([down, unreachable, limited].every(isTransientError));
  assert.ok(![card, invalid, new Error('x')].some(isTransientError));
  assert.equal(processorMessage(card), 'Your card was declined.');
  assert.equal(processorMessage(new Error('plain')), 'plain');
  assert.equal(processorMessage('text'), 'text');
});
