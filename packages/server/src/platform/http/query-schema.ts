import { z } from 'zod';

/**
 * A boolean query parameter: exactly `true` or `false` (z.stringbool would also take yes/no/on/off
 * and 1/0 silently). Documented as a boolean.
 */
export const queryBoolean = z
  .custom<'true' | 'false'>((v) => v === 'true' || v === 'false', { message: 'must be true or false' })
  .transform((v) => v === 'true')
  .meta({ type: 'boolean' });
