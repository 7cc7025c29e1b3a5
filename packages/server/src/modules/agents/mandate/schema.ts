import { z } from 'zod';
import { decimalInputCheckedLater, decimalOutput } from '../../../platform/http/decimal-schema.js';
import { MANDATE_AMOUNT_SCALE, MAX_MANDATE_AMOUNT } from './domain.js';

/**
 * A spend mandate request (signup `spend_mandate`, POST …/spend-mandate; §4.6). The checks with the
 * contract's messages are domain.ts'. Not a named component: its decimal transforms would make an
 * `…Input` variant of it.
 */
export const SpendMandateRequestSchema = z.object({
  max_amount: decimalInputCheckedLater({
    min: 0,
    exclusiveMin: true,
    max: MAX_MANDATE_AMOUNT,
    maxScale: MANDATE_AMOUNT_SCALE,
    description: "Largest off-session spend per period the principal approves, in the account currency; at most the account's agentMaxMandateAmount.",
  }).optional(),
  currency: z.string().max(16).optional().describe('Must be the account currency (case-insensitive)'),
  period: z.string().max(16).optional().describe('day, week or month (default month; case-insensitive)'),
});

/** §4.6 the mandate answer (POST …/spend-mandate, signup's `spend_mandate`). */
export const SpendMandateAnswerSchema = z
  .object({
    status: z.enum(['pending', 'unavailable']),
    setup_url: z.string().nullable().describe('The page the principal approves on, when pending'),
    max_amount: decimalOutput,
    currency: z.string(),
    period: z.enum(['day', 'week', 'month']),
  })
  .meta({ id: 'SpendMandateAnswer' });
