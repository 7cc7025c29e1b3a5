import { z } from 'zod';

/** Success envelope: `{success: true, data}`; an operation without payload omits `data`. */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/**
 * The envelope of an operation without payload. It takes the awaited effect, so a handler is one
 * expression: `async (request) => okEmpty(await service.remove(…))` (the value is not sent).
 */
export function okEmpty(_done?: unknown): { success: true } {
  return { success: true };
}

export function envelopeSchema<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

export const emptyEnvelopeSchema = z.object({ success: z.literal(true) });

export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.string().describe('Stable snake_case code; clients branch on it'),
      gate: z.enum(['payment', 'budget', 'scope']).nullable().optional().describe('Client API 402 and gated 403 only: what kind of refusal (all five gate fields are present together)'),
      action: z
        .enum(['complete_checkout', 'nominate_owner', 'wait', 'raise_spend_cap', 'raise_mandate', 'use_own_reference', 'request_scope'])
        .nullable()
        .optional()
        .describe('Gated answers: what clears the gate'),
      url: z.string().nullable().optional().describe('Gated answers: an absolute URL to hand to a human, or null'),
      poll: z.string().nullable().optional().describe('Gated answers: an absolute URL to poll until the gate clears, or null'),
      retry_after: z.number().int().nullable().optional().describe('Gated answers: seconds until the budget window resets (action wait), else null'),
      message: z.string(),
      detail: z.string().optional().describe('On gated answers `errorId=<requestId>`; elsewhere an optional hint'),
      fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
      requestId: z.string().describe('Correlation id, also in the X-Request-Id header and the logs'),
    }),
    data: z.unknown().optional(),
  })
  .meta({ id: 'ErrorEnvelope' });
