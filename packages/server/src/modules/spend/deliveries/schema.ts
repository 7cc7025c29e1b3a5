import { z } from 'zod';

const ChannelOutcomeSchema = z.enum(['SENT', 'FAILED', 'NOT_CONFIGURED']);

/** Each channel's outcome (contract §7.1 "digest delivery"): the digest's `delivery`, the test message's answer. */
export const DeliveryOutcomesSchema = z
  .object({ slack: ChannelOutcomeSchema, webhook: ChannelOutcomeSchema, email: ChannelOutcomeSchema })
  .meta({ id: 'SpendDeliveryOutcomes' });

export const SpendDeliverySchema = z
  .object({
    id: z.uuid(),
    type: z.enum(['spend.alert', 'spend.digest', 'spend.test']),
    channel: z.enum(['SLACK', 'WEBHOOK', 'EMAIL']),
    status: z.enum(['PENDING', 'SENT', 'FAILED']).describe('FAILED with a nextAttemptAt is retried then; without one it gave up'),
    attempts: z.number().int(),
    lastError: z.string().nullable().describe('Why the last attempt failed (never a URL, token or key)'),
    nextAttemptAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    sentAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'SpendDelivery' });

export const DeliveryListQuerySchema = z.object({
  status: z.enum(['PENDING', 'SENT', 'FAILED']).optional().describe('Only deliveries in this status'),
});
