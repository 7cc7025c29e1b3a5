import { z } from 'zod';
import { decimalInputCheckedLater, decimalOutput } from '../../../platform/http/decimal-schema.js';
import { pageQuerySchema } from '../../../platform/http/pagination.js';
import { RefParamsSchema } from '../../customers/index.js';

/** Largest threshold and top-up, in credits, and largest monthly cap: the columns' range (numeric(24,6), numeric(20,4)). */
export const MAX_AUTO_TOPUP_CREDITS = '1000000000000';
export const MAX_MONTHLY_AMOUNT = '1000000000000';

export const AutoTopupParamsSchema = RefParamsSchema.extend({ poolId: z.uuid() });
export const AutoTopupAttemptQuerySchema = pageQuerySchema;

/**
 * Every unknown key is refused by name (§2.2: a misspelt field never silently drops a cap). Not
 * `.strict()`: its one issue names the body, not the field.
 */
const unknownKey = z.unknown().refine(() => false, { message: 'Unrecognized key' });

/**
 * The Rule request (api-contract-money.md §2.2): the whole rule every time. Sign and scale are
 * checked by the service with the contract's messages (the money scale is the price's currency's).
 */
export const AutoTopupRuleRequestSchema = z
  .object({
    enabled: z.boolean({ error: (issue) => (issue.input === undefined ? 'Required' : 'must be true or false') }),
    threshold: decimalInputCheckedLater({ min: 0, max: MAX_AUTO_TOPUP_CREDITS, maxScale: 6, description: 'Credits: a draw leaving the available balance strictly below it records a top-up.' }),
    topupCredits: decimalInputCheckedLater({ min: 0, exclusiveMin: true, max: MAX_AUTO_TOPUP_CREDITS, maxScale: 6, description: 'Credits bought per top-up.' }),
    maxMonthlyAmount: decimalInputCheckedLater({ min: 0, exclusiveMin: true, max: MAX_MONTHLY_AMOUNT, maxScale: 4, description: "Money per calendar month (UTC), in the price's currency, at most its minor-unit decimals; null: no monthly cap." })
      .nullable()
      .optional(),
  })
  .catchall(unknownKey);

const attemptFields = {
  id: z.uuid().describe('Also the processor idempotency key of its charge'),
  creditPoolId: z.uuid(),
  status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
  credits: decimalOutput,
  pricePerCredit: decimalOutput,
  amount: decimalOutput,
  currency: z.string(),
  balanceAtTrigger: decimalOutput.describe('Available balance after the triggering draw'),
  triggerTransactionId: z.uuid().describe('The DEDUCTION transaction that recorded it'),
  paymentMethodId: z.string().nullable(),
  paymentIntentId: z.string().nullable(),
  grantId: z.uuid().nullable(),
  failureCode: z.string().nullable(),
  failureMessage: z.string().nullable(),
  counted: z.boolean().describe('Whether this failure counts towards disabling the rule'),
  createdAt: z.date(),
  completedAt: z.date().nullable(),
};

export const AutoTopupAttemptSchema = z.object(attemptFields).meta({ id: 'AutoTopupAttempt' });

export const AutoTopupRuleSchema = z
  .object({
    creditPoolId: z.uuid(),
    customerReferenceId: z.string(),
    enabled: z.boolean(),
    threshold: decimalOutput,
    topupCredits: decimalOutput,
    maxMonthlyAmount: decimalOutput.nullable(),
    currency: z.string().nullable().describe("The current price's currency; null when unpriced"),
    pricePerCredit: decimalOutput.nullable(),
    amountPerTopup: decimalOutput.nullable().describe('What one top-up would charge now; null when unpriced'),
    monthToDateAmount: decimalOutput.describe("This calendar month's SUCCEEDED and PENDING attempts (UTC)"),
    consecutiveFailures: z.number().int(),
    retryAfter: z.date().nullable(),
    disabledReason: z.enum(['MANUAL', 'CONSECUTIVE_FAILURES']).nullable(),
    state: z.enum(['DISABLED', 'PENDING', 'RETRY_BLOCKED', 'NO_PRICE', 'SPEND_CAP_EXCEEDED', 'MONTHLY_CAP_REACHED', 'ARMED']),
    lastAttempt: AutoTopupAttemptSchema.nullable(),
    createdAt: z.date(),
    modifiedAt: z.date(),
  })
  .meta({ id: 'AutoTopupRule' });
