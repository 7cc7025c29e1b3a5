import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalInput, decimalOutput } from '../../../platform/http/decimal-schema.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { queryBoolean } from '../../../platform/http/query-schema.js';
import { DEFAULT_TOKEN_MIX } from './domain.js';
import { marginReport } from './service.js';
import { SPEND_PROVIDERS } from '../providers.js';

const MAX_MODELS = 50;
const MAX_MODEL_LENGTH = 128;

const tokens = (what: string, fallback: string) =>
  decimalInput({ min: 0, max: 1_000_000_000, maxScale: 6, description: `${what} tokens one usage unit is assumed to carry (default ${fallback}).` }).optional();

const MarginQuery = z.object({
  at: z.iso
    .datetime({ offset: true, error: 'must be an ISO-8601 timestamp such as 2026-09-01T00:00:00Z' })
    .transform((s) => new Date(s))
    .optional()
    .describe('The tariff in effect at this instant (default now; a scheduled instant previews it), priced by the spend price book in force on its UTC day'),
  inputTokensPerUnit: tokens('Uncached input', DEFAULT_TOKEN_MIX.input.toFixed()),
  cacheReadTokensPerUnit: tokens('Cache-read input', DEFAULT_TOKEN_MIX.cacheRead.toFixed()),
  outputTokensPerUnit: tokens('Output', DEFAULT_TOKEN_MIX.output.toFixed()),
  models: z
    .string()
    .max(MAX_MODELS * (MAX_MODEL_LENGTH + 1))
    .transform((s, c) => {
      const names = [...new Set(s.split(',').map((n) => n.trim()).filter((n) => n !== ''))];
      if (names.length > MAX_MODELS) c.addIssue({ code: 'custom', message: `names at most ${MAX_MODELS} models` });
      if (names.some((n) => n.length > MAX_MODEL_LENGTH)) c.addIssue({ code: 'custom', message: `a model name has at most ${MAX_MODEL_LENGTH} characters` });
      return names;
    })
    .optional()
    .describe(`Comma-separated model names (at most ${MAX_MODELS}) to check feature-default and identity weights against, besides every model the tariff names`),
  featureId: z.uuid().optional().describe('Only this feature’s combinations'),
  belowCostOnly: queryBoolean.optional().describe('Only the combinations sold below cost'),
});

const reason = z.enum(['NO_DENOMINATION', 'SEVERAL_DENOMINATIONS', 'NO_CREDIT_PRICE', 'CURRENCY_NOT_USD', 'NO_MODEL_TO_CHECK']);

const MarginSchema = z
  .object({
    at: z.date(),
    priceBookDay: z.string().describe('The day whose spend price-book rates were used'),
    tokensPerUnit: z.object({ input: decimalOutput, cacheRead: decimalOutput, output: decimalOutput }).describe('The assumed token mix of one usage unit'),
    rows: z.array(
      z.object({
        featureId: z.uuid(),
        featureKey: z.string(),
        model: z.string(),
        weightMatch: z.enum(['MODEL', 'FEATURE_DEFAULT', 'NONE']).describe('Which weight ingestion applies to this model: its own row, the feature default, or identity 1'),
        weightId: z.uuid().nullable(),
        creditsPerUnit: decimalOutput,
        denomination: z.string(),
        currency: z.literal('USD'),
        pricePerCredit: decimalOutput,
        priceProvider: z.enum(SPEND_PROVIDERS),
        priceModel: z.string().describe('The price-book model the name resolved to'),
        revenueCentsPerUnit: decimalOutput.describe('creditsPerUnit × pricePerCredit × 100'),
        costCentsPerUnit: decimalOutput.describe('Σ tokensPerUnit × the rate per million × 0.0001; cache reads at the input rate when the book has no cache rate'),
        marginCentsPerUnit: decimalOutput.describe('revenue − cost, exact'),
        belowCost: z.boolean().describe('marginCentsPerUnit < 0'),
        breakEvenCreditsPerUnit: decimalOutput.describe('Smallest weight (6 dp, rounded up) that covers the cost at this price per credit'),
        cacheRateKnown: z.boolean(),
      }),
    ),
    belowCostCount: z.number().int(),
    notCompared: z
      .array(z.object({ featureId: z.uuid(), featureKey: z.string(), model: z.string().nullable(), denomination: z.string().nullable(), currency: z.string().nullable(), reason }))
      .describe('Weights whose revenue cannot be put against a cost: no or several credit denominations, an unpriced denomination, a non-USD price (no exchange rates), a feature default with no model to check'),
    unpricedModels: z.array(z.string()).describe('Models the spend price book cannot price for this token mix: their combinations are left out'),
  })
  .meta({ id: 'SpendMarginReport' });

/** The negative-margin guard's report (ADR 0015). */
export function marginRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/spend/reports/margin', {
      schema: {
        tags: ['Spend — Reports'],
        operationId: 'getSpendMarginReport',
        summary: '(ours) Credit-backed feature × model combinations: what a unit earns against what the model costs',
        description:
          'Revenue per unit = the weight ingestion would apply (model row, else feature default, else 1) × the price per credit of the feature’s denomination in effect at `at` (USD only). ' +
          'Cost per unit = the assumed tokens per unit × the spend price book (operator row, else seeded) in force on that day. Models checked: every model a weight row names, plus `models`. Exact decimals, no rounding but the break-even weight.',
        querystring: MarginQuery,
        response: { 200: envelopeSchema(MarginSchema) },
      },
    }, async (request) => {
      const q = request.query;
      const mix = {
        input: q.inputTokensPerUnit ?? DEFAULT_TOKEN_MIX.input,
        cacheRead: q.cacheReadTokensPerUnit ?? DEFAULT_TOKEN_MIX.cacheRead,
        output: q.outputTokensPerUnit ?? DEFAULT_TOKEN_MIX.output,
      };
      return ok(await marginReport(ctx, accountIdOf(request), { at: q.at ?? ctx.clock.now(), mix, extraModels: q.models ?? [], featureId: q.featureId, belowCostOnly: q.belowCostOnly ?? false }));
    });
  };
}
