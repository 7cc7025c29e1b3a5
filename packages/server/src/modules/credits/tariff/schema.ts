import { z } from 'zod';
import { decimalInputCheckedLater, decimalOutput } from '../../../platform/http/decimal-schema.js';

/** Largest batch accepted in one publish (one transaction, one multi-row insert). */
const MAX_BATCH_ENTRIES = 1000;

const timestampInput = z.iso
  // A missing value keeps zod's default message, which the error handler reports as "is required".
  .datetime({ offset: true, error: (issue) => (issue.input === undefined ? undefined : 'must be an ISO-8601 timestamp such as 2026-09-01T00:00:00Z') })
  .transform((s) => new Date(s));

// Per-entry rules (UUID, positive, ≤ 1,000,000, ≤ 6 decimals, required denomination, currency) are
// checked in domain.ts rather than here, so their messages read `Entry <i>: …` as the contract says.
export const WeightPublishSchema = z.object({
  effectiveFrom: timestampInput.describe('Shared by every row of the batch; strictly in the future'),
  entries: z
    .array(
      z.object({
        featureId: z.string().max(64).meta({ format: 'uuid', description: 'UUID of a feature of this account (checked per entry: `Entry <i>: …`)' }),
        model: z.string().max(128).nullish().describe('Exact model string (trimmed, case-sensitive); blank or absent = feature default'),
        creditsPerUnit: decimalInputCheckedLater({ min: 0, exclusiveMin: true, max: 1_000_000, maxScale: 6, description: 'Credits drawn per usage unit (checked per entry: `Entry <i>: …`).' }),
      }),
    )
    .min(1)
    .max(MAX_BATCH_ENTRIES),
});

export const PricePublishSchema = z.object({
  effectiveFrom: timestampInput.describe('Shared by every row of the batch; strictly in the future'),
  entries: z
    .array(
      z.object({
        denomination: z.string().max(255).nullish().describe('Denomination of a credit model of this account'),
        pricePerCredit: decimalInputCheckedLater({ min: 0, exclusiveMin: true, max: 1_000_000, maxScale: 6, description: 'Price of one credit in `currency` (checked per entry: `Entry <i>: …`).' }),
        currency: z.string().max(16).nullish().describe('ISO 4217, upper-cased; default USD'),
      }),
    )
    .min(1)
    .max(MAX_BATCH_ENTRIES),
});

const status = z.enum(['CURRENT', 'SCHEDULED', 'SUPERSEDED']).describe('SUPERSEDED appears only in history');
/** Every tariff row (a weight or a price) ends with when it takes effect, who published it, and its status. */
const scheduled = { effectiveFrom: z.date(), createdBy: z.string().nullable(), createdAt: z.date(), status };

export const WeightSchema = z
  .object({
    id: z.uuid(),
    featureId: z.uuid(),
    featureKey: z.string(),
    model: z.string().nullable(),
    creditsPerUnit: decimalOutput,
    ...scheduled,
  })
  .meta({ id: 'CreditWeight' });

export const PriceSchema = z
  .object({
    id: z.uuid(),
    denomination: z.string(),
    currency: z.string(),
    pricePerCredit: decimalOutput,
    ...scheduled,
  })
  .meta({ id: 'CreditPrice' });

export const WeightHistoryQuerySchema = z.object({
  featureId: z.uuid(),
  model: z.string().max(128).optional().describe('Absent or blank: the feature-default chain'),
});
export const PriceHistoryQuerySchema = z.object({ denomination: z.string().trim().min(1).max(255) });
export const IdParamsSchema = z.object({ id: z.uuid() });

export type WeightPublish = z.output<typeof WeightPublishSchema>;
export type PricePublish = z.output<typeof PricePublishSchema>;
