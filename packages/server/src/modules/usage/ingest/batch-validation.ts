import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { dec } from '../../../platform/money.js';
import { MAX_BATCH_EVENTS, MAX_EVENT_TOKENS, MAX_EVENT_UNITS, type EventBatchRequest, type EventRequest } from '../schema.js';

/**
 * Validation of POST /events/batch bodies (ADR 0029). zod costs ~25 µs per event, a third of a
 * batch's CPU; most batches are SDK buffers of one plain shape. `fastBatch` validates that shape by
 * hand and gives exactly what `EventBatchRequestSchema` would (same trims, same Decimals, unknown
 * keys stripped); any event outside it (a decimal sent as text or with decimals, costAmount,
 * revenueAmount, context, meta, costUnits, any invalid value) sends the whole body through zod, so
 * every refusal, and its message, is the schema's. `batch-validation.test.ts` holds the two equal.
 */
export function fastBatch(body: unknown): EventBatchRequest | null {
  if (!isPlainObject(body)) return null;
  const events = body.events;
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_BATCH_EVENTS) return null;
  const out: EventRequest[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const event = fastEvent(events[i]);
    if (!event) return null;
    out[i] = event;
  }
  return { events: out };
}

/** The body's validator: the hand path when it applies, else the schema's (fastify-type-provider-zod). */
export const batchValidatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
  const bySchema = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  if (route.httpPart !== 'body') return bySchema;
  return (data: unknown) => {
    const value = fastBatch(data);
    return value ? { value } : bySchema(data);
  };
};

const MAX_UNITS = Number(MAX_EVENT_UNITS);

function fastEvent(e: unknown): EventRequest | null {
  if (!isPlainObject(e)) return null;
  const out: Record<string, unknown> = {};
  for (const key in e) {
    const v = e[key];
    switch (key) {
      case 'eventName':
      case 'featureKey': {
        if (typeof v !== 'string') return null;
        const trimmed = v.trim();
        if (trimmed.length < 1 || trimmed.length > (key === 'eventName' ? 255 : 128)) return null;
        out[key] = trimmed;
        break;
      }
      case 'eventIdempotencyKey':
      case 'customerReferenceId':
        if (typeof v !== 'string' || v.length < 1 || v.length > 255) return null;
        out[key] = v;
        break;
      case 'usageUnits':
        // JSON integers up to 15 digits arrive as numbers (http/json.ts); anything else goes to zod.
        if (v === null) out[key] = null;
        else if (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_UNITS) out[key] = dec(v as number);
        else return null;
        break;
      case 'flowId':
        if (v !== null && (typeof v !== 'string' || v.length > 255 || v.trim() === '')) return null;
        out[key] = v;
        break;
      case 'occurredAt':
        out[key] = v;
        break;
      case 'costInput': {
        const costInput = fastCostInput(v);
        if (!costInput) return null;
        out[key] = costInput;
        break;
      }
      default:
        if (SCHEMA_KEYS.has(key)) return null;
    }
  }
  if (out.eventName === undefined || out.featureKey === undefined) return null;
  return out as EventRequest;
}

/** Keys of the event schema the hand path leaves to zod (other keys are stripped, as zod strips them). */
const SCHEMA_KEYS = new Set(['costAmount', 'revenueAmount', 'context', 'meta']);

function fastCostInput(c: unknown): Record<string, unknown> | null {
  if (!isPlainObject(c)) return null;
  const out: Record<string, unknown> = {};
  for (const key in c) {
    const v = c[key];
    if (key === 'model' || key === 'modelProvider') {
      if (v !== null && (typeof v !== 'string' || v.length > 128)) return null;
    } else if (key === 'inputTokens' || key === 'outputTokens') {
      if (v !== null && !(Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_EVENT_TOKENS)) return null;
    } else if (key === 'costUnits') {
      return null;
    } else {
      continue;
    }
    out[key] = v;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}
