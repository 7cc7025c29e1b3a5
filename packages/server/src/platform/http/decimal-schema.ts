import { z } from 'zod';
import { dec, isDecimal, type Decimal } from '../money.js';

const DECIMAL_STRING = /^-?\d+(\.\d+)?$/;

/**
 * A decimal request field: a JSON number (kept exact by the JSON codec) or a numeric string,
 * turned into a `Decimal`. Documented as a number.
 */
export const decimalInput = z
  .custom<Decimal | number | string>(
    (v) =>
      isDecimal(v) ? v.isFinite() : typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && DECIMAL_STRING.test(v),
    { message: 'must be a number' },
  )
  .transform((v) => dec(v))
  .meta({ type: 'number' });

/** A decimal response field, written as an exact JSON number. */
export const decimalOutput = z.custom<Decimal>((v) => isDecimal(v)).meta({ type: 'number' });
