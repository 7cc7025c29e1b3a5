import { z } from 'zod';
import { dec, isDecimal, type Decimal } from '../money.js';

const DECIMAL_STRING = /^-?\d+(\.\d+)?$/;

/** The rule a decimal request field states and enforces. */
export type DecimalRule = {
  /** Smallest value accepted (inclusive, or exclusive with `exclusiveMin`). */
  min: number | string;
  exclusiveMin?: boolean;
  /** Largest value accepted (inclusive). Every decimal input has one: the column and the arithmetic downstream must hold it. */
  max: number | string;
  /** Most decimal places accepted; more are refused (never silently rounded) unless `roundsTo` is set. */
  maxScale: number;
  /**
   * The value is rounded (HALF_UP) to this many places downstream, so more places are accepted up
   * to `maxScale` (e.g. event cost and revenue: the contract rounds them to 6 dp).
   */
  roundsTo?: number;
  description?: string;
};

/** Plain-notation text of a bound for messages and descriptions ("1000000", not "1e6"). */
const show = (v: number | string) => dec(v).toFixed();

/**
 * A decimal request field: a JSON number (kept exact by the JSON codec) or a numeric string, turned
 * into a `Decimal`. Refuses NaN, infinities and exponent monsters (1e309), values outside
 * [min, max] and more decimal places than `maxScale`, each with its own message. The generated JSON
 * schema states the bounds (`minimum`/`exclusiveMinimum`, `maximum`) and the scale in the
 * description; `multipleOf` is not used because validators compute it in binary floats.
 */
export function decimalInput(rule: DecimalRule) {
  const min = dec(rule.min);
  const max = dec(rule.max);
  const scaleText =
    rule.roundsTo === undefined
      ? `At most ${rule.maxScale} decimal places.`
      : `Rounded HALF_UP to ${rule.roundsTo} decimal places; at most ${rule.maxScale} accepted.`;
  return decimalLike()
    .superRefine((d, ctx) => {
      const problem = !d.isFinite()
        ? 'must be a number'
        : rule.exclusiveMin
          ? d.lte(min) && (min.isZero() ? 'must be positive' : `must be greater than ${show(rule.min)}`)
          : d.lt(min) && (min.isZero() ? 'must not be negative' : `must be at least ${show(rule.min)}`);
      const message =
        problem ||
        (d.gt(max) ? `exceeds maximum ${show(rule.max)}` : d.decimalPlaces() > rule.maxScale ? `allows at most ${rule.maxScale} decimals` : null);
      if (message) ctx.addIssue({ code: 'custom', message, input: d });
    })
    .meta(boundsMeta(rule, scaleText));
}

/**
 * The JSON schema of a decimal field whose rule is checked elsewhere (e.g. tariff batches, whose
 * messages must read `Entry <i>: …`): states the same bounds, refuses only non-numbers here.
 */
export function decimalInputCheckedLater(rule: DecimalRule) {
  return decimalLike().meta(boundsMeta(rule, `At most ${rule.maxScale} decimal places.`));
}

/** A finite JSON number (exact, from the codec) or a numeric string of at most 100 characters, as a `Decimal`. */
function decimalLike() {
  return z
    .custom<Decimal | number | string>(
      (v) =>
        isDecimal(v) ? v.isFinite() : typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && v.length <= 100 && DECIMAL_STRING.test(v),
      { message: 'must be a number' },
    )
    .transform((v) => dec(v));
}

/** What the OpenAPI document states about a decimal field (documentation only: no arithmetic). */
function boundsMeta(rule: DecimalRule, scaleText: string) {
  return {
    type: 'number' as const,
    ...(rule.exclusiveMin ? { exclusiveMinimum: Number(rule.min) } : { minimum: Number(rule.min) }),
    maximum: Number(rule.max),
    description: [rule.description, scaleText].filter(Boolean).join(' '),
  };
}

/** A decimal response field, written as an exact JSON number. */
export const decimalOutput = z.custom<Decimal>((v) => isDecimal(v)).meta({ type: 'number' });
