import { z } from 'zod';
import { decimalInputCheckedLater, decimalOutput } from '../../../platform/http/decimal-schema.js';
import { RefParamsSchema } from '../../customers/index.js';
import { CustomerIdParamsSchema } from './schema.js';

/** Budget limits: 0 up to 1e12 with at most 6 places (credits and money alike); the service states the messages. */
const LIMIT_RULE = { min: '0', max: '1000000000000', maxScale: 6 };

/**
 * `period` is checked by the service so that its messages are the contract's (missing: "must not
 * be null"; another value: the list of valid values), like the limits' "must not be negative".
 */
export const BudgetPutSchema = z
  .object({
    period: z.unknown().optional().meta({ type: 'string', enum: ['DAY', 'WEEK', 'MONTH', 'TOTAL'] }).describe('Required. DAY, WEEK (7 days), MONTH (same day and time each month) or TOTAL (never resets); windows tile from when the period was set'),
    creditLimit: decimalInputCheckedLater(LIMIT_RULE).nullish().describe('Credits the key may draw per window; omitted or null = unlimited; 0 = none'),
    amountLimit: decimalInputCheckedLater(LIMIT_RULE).nullish().describe('Money (account currency) the key may charge per window; omitted or null = unlimited; 0 = none'),
    alertThreshold: z.unknown().optional().meta({ type: 'integer', minimum: 0, maximum: 99 }).describe('Percent of the tightest axis at which the key is marked alerting; 0 = never; omitted: unchanged, or 80 on a key without a budget'),
  });

/** `{keyId}` as text: a value that is not a UUID is 404 `API key not found` like an unknown one (§2.1). */
const budgetKeyId = z.string().min(1).max(64);
export const BudgetParamsSchema = RefParamsSchema.extend({ keyId: budgetKeyId });
/** The Admin API twin's: the customer by internal id (§2.1). */
export const AdminBudgetParamsSchema = CustomerIdParamsSchema.extend({ keyId: budgetKeyId });

export const KeyBudgetSchema = z
  .object({
    keyId: z.uuid(),
    period: z.enum(['DAY', 'WEEK', 'MONTH', 'TOTAL']).nullable().describe('null when no budget is set'),
    creditLimit: decimalOutput.nullable().describe('null = unlimited'),
    creditsSpent: decimalOutput.describe('In the current window'),
    creditsRemaining: decimalOutput.nullable().describe('max(0, limit − spent); null when unlimited'),
    amountLimit: decimalOutput.nullable().describe('null = unlimited'),
    amountSpent: decimalOutput.describe('In the current window, reservations of charges in flight included'),
    amountRemaining: decimalOutput.nullable(),
    windowStart: z.date().nullable(),
    resetsAt: z.date().nullable().describe('End of the current window; null for TOTAL and when no budget'),
    percentUsed: z.number().int().nullable().describe('floor(100 × spent ÷ limit) of the axis nearest its limit'),
    alertThreshold: z.number().int().nullable().describe('null = no alerting'),
    alerting: z.boolean(),
    alertingSince: z.date().nullable(),
  })
  .meta({ id: 'KeyBudget' });
