import { z } from 'zod';
import { queryBoolean } from '../../platform/http/query-schema.js';
import { decimalInput, decimalInputCheckedLater, decimalOutput } from '../../platform/http/decimal-schema.js';

/**
 * Largest credit amount one request moves (grant, deduction, allocation, cap, draw limit): 1e12.
 * Pool totals are numeric(24,6) (< 1e18), so a pool holds a million such grants (README "Bounds").
 */
export const MAX_CREDIT_AMOUNT = '1000000000000';
/** Largest unit price of a grant (contract §5): 1,000,000 at 6 dp. */
export const MAX_UNIT_PRICE = '1000000';

const metadata = z.record(z.string(), z.unknown());
const credits = decimalInput({ min: 0, exclusiveMin: true, max: MAX_CREDIT_AMOUNT, maxScale: 6 });
const rolloverPolicy = z.enum(['NONE', 'FULL', 'CAPPED']);
const cap = decimalInput({ min: 0, max: MAX_CREDIT_AMOUNT, maxScale: 6 });
/** A decimal in a query string, handed on as its plain-notation text. */
const queryCredits = (rule: { exclusiveMin: boolean; description: string }) =>
  decimalInput({ min: 0, max: MAX_CREDIT_AMOUNT, maxScale: 6, ...rule }).transform((d) => d.toFixed());

/** What a model and a pool are both created with: a name and denomination, then the wallet's rules. */
const walletName = { name: z.string().trim().min(1).max(150), denomination: z.string().trim().min(1).max(32) };
const walletRules = { hardLimit: z.boolean().optional(), rolloverPolicy: rolloverPolicy.optional(), rolloverCap: cap.nullish(), metadata: metadata.optional() };

export const ModelCreateSchema = z.object({
  ...walletName,
  description: z.string().max(4000).nullish(),
  ...walletRules,
});

export const ModelSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    denomination: z.string(),
    description: z.string().nullable(),
    hardLimit: z.boolean(),
    rolloverPolicy: rolloverPolicy,
    rolloverCap: decimalOutput.nullable(),
    metadata,
    createdAt: z.date(),
    modifiedAt: z.date(),
  })
  .meta({ id: 'CreditModel' });

export const AllocationQuerySchema = z.object({
  creditAmount: queryCredits({ exclusiveMin: true, description: 'Credits granted per period.' }),
  grantExpiresMonths: z.coerce.number().int().min(1).max(1200).optional(),
  hardLimit: queryBoolean.optional(),
});

export const AllocationSchema = z
  .object({
    id: z.uuid(),
    creditModelId: z.uuid(),
    creditModelName: z.string(),
    denomination: z.string(),
    creditAmount: decimalOutput,
    grantExpiresMonths: z.number().int().nullable(),
    hardLimit: z.boolean(),
    createdAt: z.date(),
  })
  .meta({ id: 'PlanCreditAllocation' });

/** A pool's low-balance threshold (api-contract-events.md §E7.1): checked by the service, whose messages name the field. */
const lowBalanceThreshold = decimalInputCheckedLater({
  min: 0,
  exclusiveMin: true,
  max: MAX_CREDIT_AMOUNT,
  maxScale: 6,
  description: 'Below it a committed change records credits.balance_low (once per crossing); null: no such event.',
}).nullable();

export const PoolCreateSchema = z.object({
  ...walletName,
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code').optional(),
  customerId: z.uuid().optional(),
  ...walletRules,
  lowBalanceThreshold: lowBalanceThreshold.optional(),
});

/** PATCH of a pool: only its low-balance threshold; other fields are ignored. */
export const PoolUpdateSchema = z.object({ lowBalanceThreshold });

export const PoolSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    denomination: z.string(),
    currency: z.string().nullable(),
    balance: decimalOutput,
    totalGranted: decimalOutput,
    totalConsumed: decimalOutput,
    totalExpired: decimalOutput,
    totalReversed: decimalOutput,
    totalHeld: decimalOutput.describe('Credits held by open reservations: out of balance, not yet consumed'),
    hardLimit: z.boolean(),
    status: z.enum(['ACTIVE', 'FROZEN', 'DEPLETED', 'ARCHIVED']),
    rolloverPolicy,
    rolloverCap: decimalOutput.nullable(),
    lowBalanceThreshold: decimalOutput.nullable().describe('Below it a committed change records credits.balance_low; null: no such event'),
    customerId: z.uuid().nullable(),
    metadata,
    createdAt: z.date(),
    modifiedAt: z.date(),
  })
  .meta({ id: 'CreditPool' });

export const LinkQuerySchema = z.object({
  drawPriority: z.coerce.number().int().min(0).max(1000).default(0),
  drawLimit: queryCredits({ exclusiveMin: false, description: "Cap on the link's lifetime draws; absent = no cap." }).optional(),
});

export const LinkSchema = z.object({
  creditPoolId: z.uuid(),
  subscriptionId: z.uuid(),
  drawPriority: z.number().int(),
  drawLimit: decimalOutput.nullable(),
  totalDrawn: decimalOutput,
  createdAt: z.date(),
});

export const GrantCreateSchema = z.object({
  creditPoolId: z.uuid(),
  amount: credits,
  grantType: z.enum(['PLAN_INCLUDED', 'PURCHASED', 'PROMOTIONAL', 'REFUND', 'SYSTEM', 'ROLLOVER', 'MANUAL']),
  subscriptionId: z.uuid().optional(),
  invoiceId: z.uuid().optional(),
  unitPrice: decimalInputCheckedLater({ min: 0, exclusiveMin: true, max: MAX_UNIT_PRICE, maxScale: 6, description: 'Price per credit; requires currency to be meaningful.' }).optional(),
  currency: z.string().regex(/^[A-Za-z]{3}$/, 'must be a 3-letter ISO 4217 code').optional(),
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
  description: z.string().max(1000).optional(),
  idempotencyKey: z.string().min(1).max(255).optional(),
  metadata: metadata.optional(),
});

export const GrantSchema = z
  .object({
    id: z.uuid(),
    creditPoolId: z.uuid(),
    subscriptionId: z.uuid().nullable(),
    invoiceId: z.uuid().nullable(),
    grantType: z.string(),
    amount: decimalOutput,
    remaining: decimalOutput,
    unitPrice: decimalOutput.nullable(),
    currency: z.string().nullable(),
    expiresAt: z.date().nullable(),
    description: z.string().nullable(),
    voidedAt: z.date().nullable(),
    metadata,
    createdAt: z.date(),
  })
  .meta({ id: 'CreditGrant' });

export const DeductionSchema = z.object({
  creditPoolId: z.uuid(),
  amount: credits,
  subscriptionId: z.uuid().optional(),
  customerId: z.uuid().optional(),
  eventId: z.uuid().optional(),
  description: z.string().max(1000).optional(),
  idempotencyKey: z.string().min(1).max(255).optional(),
  metadata: metadata.optional(),
});

export const TransactionSchema = z
  .object({
    id: z.uuid(),
    creditPoolId: z.uuid(),
    creditGrantId: z.uuid().nullable(),
    transactionType: z.string(),
    amount: decimalOutput,
    balanceBefore: decimalOutput,
    balanceAfter: decimalOutput,
    description: z.string().nullable(),
    reversedTransactionId: z.uuid().nullable(),
    heldChange: decimalOutput.describe('Change of the pool\'s held credits: + on HOLD, − on CAPTURE and RELEASE, 0 otherwise'),
    reservationId: z.uuid().nullable(),
    metadata,
    createdAt: z.date(),
  })
  .meta({ id: 'CreditTransaction' });

export const AuditSchema = z.object({
  poolsChecked: z.number().int(),
  discrepancies: z.array(z.object({ poolId: z.string(), problem: z.string() })),
});

export type ModelCreate = z.output<typeof ModelCreateSchema>;
export type PoolCreate = z.output<typeof PoolCreateSchema>;
export type PoolUpdate = z.output<typeof PoolUpdateSchema>;
export type GrantCreate = z.output<typeof GrantCreateSchema>;
export type DeductionCreate = z.output<typeof DeductionSchema>;
