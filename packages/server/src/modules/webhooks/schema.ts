import { z } from 'zod';
import { EVENT_TYPES } from '../../platform/events/outbox.js';
import { pageQuerySchema } from '../../platform/http/pagination.js';

/** Request and response shapes of the webhook routes (api-contract-events.md §E2–§E4). */

export const EndpointRequestSchema = z
  .object({
    url: z.string().max(2048, 'The URL must be at most 2048 characters').describe('http(s) URL that passes the outbound-URL guard'),
    description: z.string().max(255, 'The description must be at most 255 characters').nullable(),
    eventTypes: z.array(z.string().max(100)).nullable().describe('[] or null: every type, including types added later'),
    enabled: z.boolean({ error: 'Expected a boolean' }),
  })
  .partial();

export const EndpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string().nullable(),
    eventTypes: z.array(z.string()),
    enabled: z.boolean(),
    disabledReason: z.enum(['MANUAL', 'FAILING', 'GONE']).nullable(),
    disabledAt: z.date().nullable(),
    failingSince: z.date().nullable(),
    secretHint: z.string(),
    previousSecretExpiresAt: z.date().nullable(),
    createdAt: z.date(),
    modifiedAt: z.date(),
    secret: z.string().optional().describe('whsec_…: shown on create and rotate only'),
  })
  .meta({ id: 'WebhookEndpoint' });

export const DeliverySchema = z
  .object({
    id: z.uuid(),
    endpointId: z.uuid(),
    eventId: z.uuid(),
    eventType: z.string(),
    status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
    attemptCount: z.number().int(),
    nextAttemptAt: z.date().nullable(),
    lastAttemptAt: z.date().nullable(),
    lastResponseStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    resend: z.boolean(),
    createdAt: z.date(),
  })
  .meta({ id: 'WebhookDelivery' });

export const AttemptSchema = z.object({
  number: z.number().int(),
  startedAt: z.date(),
  durationMs: z.number().int(),
  responseStatus: z.number().int().nullable(),
  responseBody: z.string().nullable(),
  error: z.enum(['timeout', 'connection_failed', 'url_refused']).nullable(),
  success: z.boolean(),
});

export const DeliveryWithAttemptsSchema = DeliverySchema.extend({ attempts: z.array(AttemptSchema) });

export const EventSchema = z
  .object({ id: z.uuid(), type: z.string(), createdAt: z.string(), accountId: z.uuid(), data: z.record(z.string(), z.unknown()) })
  .meta({ id: 'WebhookEvent', description: 'The payload itself, as every attempt sends it' });

const timestamp = z.coerce.date();
export const EventQuerySchema = pageQuerySchema.extend({ type: z.enum(EVENT_TYPES).optional(), since: timestamp.optional(), until: timestamp.optional() });
export const DeliveryQuerySchema = pageQuerySchema.extend({
  endpointId: z.uuid().optional(),
  eventId: z.uuid().optional(),
  eventType: z.enum(EVENT_TYPES).optional(),
  status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']).optional(),
  since: timestamp.optional(),
  until: timestamp.optional(),
});

/** A path id: checked as a UUID by the route (a malformed one is a plain 404, §E2.1). */
export const PathIdSchema = z.string().max(100);
