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
      message: z.string(),
      detail: z.string().optional(),
      fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
      requestId: z.string().describe('Correlation id, also in the X-Request-Id header and the logs'),
    }),
    data: z.unknown().optional(),
  })
  .meta({ id: 'ErrorEnvelope' });
