import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProcessorSubscription } from './stripe.js';
import { licensedItem, toExternalState } from './subscriptions.js';

const item = (id: string, usageType: 'licensed' | 'metered', start = 1_700_000_000, end = 1_702_592_000) =>
  ({ id, price: { id: `price_${id}`, recurring: { usage_type: usageType } }, current_period_start: start, current_period_end: end });
const subscription = (fields: Record<string, unknown>) => ({ id: 'sub_1', status: 'active', cancel_at_period_end: false, ended_at: null, items: { data: [] }, ...fields }) as unknown as ProcessorSubscription;

test('when a subscription has metered items then its licensed item bills the base price, whatever its position', () => {
  assert.equal(licensedItem(subscription({ items: { data: [item('m', 'metered'), item('l', 'licensed')] } }))?.id, 'l');
  assert.equal(licensedItem(subscription({ items: { data: [item('m', 'metered')] } }))?.id, 'm');
  assert.equal(licensedItem(subscription({ items: { data: [] } })), undefined);
});

test('when the processor states a subscription then its state in billing terms takes the period from the licensed item', () => {
  const state = toExternalState(subscription({ status: 'past_due', cancel_at_period_end: true, items: { data: [item('l', 'licensed')] } }));
  assert.deepEqual(state, { status: 'active', period: { start: new Date(1_700_000_000_000), end: new Date(1_702_592_000_000) }, cancelAtPeriodEnd: true, endedAt: null });
  assert.equal(toExternalState(subscription({ status: 'incomplete_expired', ended_at: 1_700_000_100 })).status, 'ended');
  assert.deepEqual(toExternalState(subscription({ status: 'incomplete_expired', ended_at: 1_700_000_100 })).endedAt, new Date(1_700_000_100_000));
  assert.equal(toExternalState(subscription({ status: 'incomplete' })).status, 'pending');
  assert.equal(toExternalState(subscription({ items: { data: [item('l', 'licensed', 5, 5)] } })).period, null);
});
