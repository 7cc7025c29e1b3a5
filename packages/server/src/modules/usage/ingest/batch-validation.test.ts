import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJson } from '../../../platform/http/json.js';
import { fastBatch } from './batch-validation.js';
import { EventBatchRequestSchema } from '../schema.js';

const event = { eventName: ' msg ', eventIdempotencyKey: 'k-1', customerReferenceId: 'c-1', featureKey: ' chat ', usageUnits: 2, costInput: { model: 'gpt' } };
const batchOf = (...events: unknown[]) => parseJson(JSON.stringify({ events })) as unknown;

test('when every event has the plain shape then the hand path gives exactly what the schema gives', () => {
  const bodies = [
    batchOf(event),
    batchOf({ eventName: 'a', featureKey: 'f' }, { ...event, usageUnits: null, flowId: null, occurredAt: 'not a date', extra: { x: 1 } }),
    batchOf({ ...event, usageUnits: 0, flowId: 'flow-1', costInput: { model: null, modelProvider: 'openai', inputTokens: 10, outputTokens: 0, other: 1 } }),
    batchOf({ ...event, usageUnits: 1_000_000_000, occurredAt: null }, { ...event, costInput: {} }),
    parseJson(JSON.stringify({ events: [event], other: true })),
  ];
  for (const body of bodies) {
    const fast = fastBatch(body);
    assert.ok(fast, JSON.stringify(body));
    assert.deepEqual(fast, EventBatchRequestSchema.parse(body));
  }
});

test('when an event is outside the plain shape or invalid then the hand path declines and the schema decides', () => {
  const declined = [
    batchOf({ ...event, usageUnits: 1.5 }),
    batchOf({ ...event, usageUnits: '2' }),
    batchOf({ ...event, usageUnits: -1 }),
    batchOf({ ...event, usageUnits: 1_000_000_001 }),
    batchOf({ ...event, costAmount: 1 }),
    batchOf({ ...event, meta: { a: 1 } }),
    batchOf({ ...event, context: { flowId: 'x' } }),
    batchOf({ ...event, costInput: { costUnits: 3 } }),
    batchOf({ ...event, costInput: { inputTokens: -1 } }),
    batchOf({ ...event, costInput: null }),
    batchOf({ ...event, eventName: '   ' }),
    batchOf({ ...event, featureKey: 'x'.repeat(129) }),
    batchOf({ ...event, eventIdempotencyKey: '' }),
    batchOf({ ...event, customerReferenceId: null }),
    batchOf({ ...event, flowId: 'x'.repeat(256) }),
    batchOf({ eventName: 'a' }),
    batchOf(event, 'not an event'),
    batchOf(),
    batchOf(...Array.from({ length: 1001 }, () => event)),
    { events: 'x' },
    null,
  ];
  for (const body of declined) assert.equal(fastBatch(body), null, JSON.stringify(body)?.slice(0, 120));
});
