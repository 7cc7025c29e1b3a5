import { z } from 'zod';
import { decimalInput, decimalOutput } from '../../../platform/http/decimal-schema.js';
import { MAX_CREDIT_AMOUNT } from '../schema.js';

/** Bodies depend on the install's maximum hold (APP_CREDIT_RESERVATION_MAX_HOLD_SECONDS), so they are built per app. */
export function reservationSchemas(maxHoldSeconds: number) {
  const create = z.object({
    customerReferenceId: z.string().min(1).max(255).optional().describe("Required with a tenant key. With a customer key it may be omitted (the key's own customer); another customer's reference is 403."),
    denomination: z.string().trim().min(1).max(32).describe("The credit model's denomination; the hold draws on the customer's active subscription's linked pools in it."),
    amount: decimalInput({ min: 0, exclusiveMin: true, max: MAX_CREDIT_AMOUNT, maxScale: 6, description: 'Estimated credits to hold.' }),
    idempotencyKey: z.string().min(1).max(255).describe('Client key: a repeated key with the same body returns the first reservation (200); with another body 409 idempotency_conflict.'),
    holdSeconds: z.number().int().min(1).max(maxHoldSeconds).optional().describe(`How long the hold lasts before the expiry job releases it; default 300 s (or the maximum, ${maxHoldSeconds} s, if lower).`),
    flowId: z.string().min(1).max(128).optional().describe('Links the hold to a flow: the usage event carrying this flowId captures it (at most one open hold per flow).'),
    metadata: z.record(z.string(), z.unknown()).optional(),
  });
  return { create };
}

export const CaptureSchema = z.object({
  amount: decimalInput({ min: 0, max: MAX_CREDIT_AMOUNT, maxScale: 6, description: 'Actual credits consumed. Below the hold: the rest is released. Above it: the excess is drawn as far as the pools go (never below zero).' }),
});

export const ReservationParamsSchema = z.object({ reservationId: z.uuid() });

export const ReservationSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['HELD', 'CAPTURED', 'RELEASED', 'EXPIRED']),
    customerId: z.uuid(),
    subscriptionId: z.uuid(),
    denomination: z.string(),
    flowId: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
    amountRequested: decimalOutput.describe('Credits asked to hold'),
    amountHeld: decimalOutput.describe('Credits held (less than requested only on soft pools that ran short)'),
    captureRequested: decimalOutput.nullable().describe('Credits the capture asked for'),
    amountCaptured: decimalOutput.nullable().describe('Credits consumed by the capture'),
    uncoveredCredits: decimalOutput.nullable().describe('captureRequested − amountCaptured: the part the pools could not give'),
    eventId: z.uuid().nullable(),
    expiresAt: z.date(),
    settledAt: z.date().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: z.date(),
  })
  .meta({ id: 'CreditReservation' });

export type ReservationCreate = z.output<ReturnType<typeof reservationSchemas>['create']>;
