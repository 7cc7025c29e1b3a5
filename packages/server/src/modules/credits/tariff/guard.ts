import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { defineExtension } from '../../../platform/hooks.js';
import type { Decimal } from '../../../platform/money.js';

/**
 * The negative-margin guard's slot (ADR 0015): after a weight or price batch is published, a module
 * above credits (spend, which knows what a model costs) may answer warnings about combinations the
 * batch would sell below cost. Credits does not import spend; without a provider there are none.
 * A warning never refuses a publish.
 */

/** What a publish wrote: the (feature, model) chains of a weight batch, or a price batch's denominations. */
export type PublishedBatch =
  | { kind: 'weights'; effectiveFrom: Date; entries: { featureId: string; model: string | null }[] }
  | { kind: 'prices'; effectiveFrom: Date; denominations: string[] };

export type TariffWarning = {
  code: 'BELOW_COST';
  message: string;
  featureId: string;
  featureKey: string;
  model: string;
  weightMatch: 'MODEL' | 'FEATURE_DEFAULT' | 'NONE';
  denomination: string;
  currency: 'USD';
  creditsPerUnit: Decimal;
  pricePerCredit: Decimal;
  revenueCentsPerUnit: Decimal;
  costCentsPerUnit: Decimal;
  breakEvenCreditsPerUnit: Decimal;
};

export const tariffPublishWarnings = defineExtension(
  'credits.tariff_publish_warnings',
  async (_ctx: AppContext, _accountId: string, _batch: PublishedBatch): Promise<TariffWarning[]> => [],
);

export type GuardLog = Pick<FastifyBaseLogger, 'warn'>;

/** The provider's warnings; a provider that fails is logged and gives none (the batch is already committed). */
export async function publishWarnings(ctx: AppContext, accountId: string, batch: PublishedBatch, log: GuardLog): Promise<TariffWarning[]> {
  try {
    return await tariffPublishWarnings.call(ctx, accountId, batch);
  } catch (err) {
    log.warn({ err, accountId, kind: batch.kind }, 'tariff publish warnings failed; published without them');
    return [];
  }
}

const TariffWarningSchema = z
  .object({
    code: z.literal('BELOW_COST'),
    message: z.string(),
    featureId: z.uuid(),
    featureKey: z.string(),
    model: z.string().describe('The model the combination was costed for'),
    weightMatch: z.enum(['MODEL', 'FEATURE_DEFAULT', 'NONE']).describe('Which weight applies to the model, as at ingestion'),
    denomination: z.string(),
    currency: z.literal('USD'),
    creditsPerUnit: decimalOutput,
    pricePerCredit: decimalOutput,
    revenueCentsPerUnit: decimalOutput.describe('creditsPerUnit × pricePerCredit × 100'),
    costCentsPerUnit: decimalOutput.describe('The assumed tokens per unit × the spend price book (ADR 0015)'),
    breakEvenCreditsPerUnit: decimalOutput.describe('Smallest weight (6 dp, rounded up) that covers the cost at this price'),
  })
  .meta({ id: 'CreditTariffWarning' });

export const warningsField = z
  .array(TariffWarningSchema)
  .optional()
  .describe(
    '(ours, additive) Present when the negative-margin guard (spend module on) finds a combination this batch sells below cost at its effectiveFrom; GET /api/v1/spend/reports/margin has the full report. Publishing is never refused.',
  );
