import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { modelsReport, reconcileReport, usageReport } from './usage.js';
import { getWindowReport, REPORT_TAGS } from './report-route.js';
import { reconcileWindow } from './window.js';
import { SPEND_PROVIDERS } from '../providers.js';

const provider = z.enum(SPEND_PROVIDERS);
const num = decimalOutput;
const numOrNull = decimalOutput.nullable();

const ModelPriceSchema = z
  .object({
    provider,
    model: z.string(),
    inputCostPerMillion: numOrNull,
    outputCostPerMillion: numOrNull,
    cacheReadCostPerMillion: numOrNull,
    cacheWriteCostPerMillion: numOrNull.describe('5-minute cache write'),
    cacheWrite1hCostPerMillion: numOrNull.describe('(ours) 1-hour cache write'),
    effectiveFrom: z.string().describe('(ours) the day the row took effect; 1970-01-01 = since always'),
    source: z.enum(['PACKAGE', 'SEED_OVERRIDE', 'OPERATOR']).describe('(ours)'),
  })
  .meta({ id: 'SpendModelPrice' });

const UsageSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    totals: z.object({ uncachedInputTokens: num, cacheReadTokens: num, cacheCreationTokens: num, outputTokens: num, requests: num, vendorCostCents: num, meteredCostCents: num }),
    byModel: z.array(
      z.object({
        provider,
        model: z.string(),
        pricedAs: z.string().nullable().describe('(ours) the price-book model the vendor name resolved to'),
        uncachedInputTokens: num,
        cacheReadTokens: num,
        cacheCreationTokens: num,
        outputTokens: num,
        requests: numOrNull.describe('null: the vendor reports no request count'),
        meteredCostCents: numOrNull.describe('null: no day of the model could be priced'),
        vendorCostCents: numOrNull.describe('null: the vendor has no per-model cost'),
        priced: z.boolean(),
        cacheRatesKnown: z.boolean(),
      }),
    ),
    byDay: z.array(z.object({ date: z.string(), totalTokens: num, meteredCostCents: num, vendorCostCents: num })),
    byActor: z.array(
      z.object({
        provider,
        actor: z.string(),
        totalTokens: num,
        sessions: numOrNull,
        vendorCostCents: numOrNull,
        meteredCostCents: numOrNull,
        requests: numOrNull,
        linesAdded: numOrNull,
        linesRemoved: numOrNull,
        accepted: numOrNull,
        rejected: numOrNull,
        commits: numOrNull,
        pullRequests: numOrNull,
        creditsUsed: numOrNull,
        tool: z.string().nullable(),
      }),
    ),
    unpricedModels: z.array(z.string()),
  })
  .meta({ id: 'SpendUsageReport' });

const ReconcileSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    rows: z.array(
      z.object({
        provider,
        meteredCents: num,
        meteredIsEstimate: z.boolean(),
        vendorReportedCents: num,
        invoicedCents: num,
        invoiceCount: z.number().int(),
        meteredVsVendorCents: num,
        vendorVsInvoiceCents: numOrNull,
      }),
    ),
  })
  .meta({ id: 'SpendReconcileReport' });

/** Usage, reconcile and models reports (contract §7.9). */
export function reportRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/spend/reports';
    getWindowReport(app, ctx, {
      path: `${base}/usage`,
      operationId: 'getSpendUsageReport',
      summary: 'Usage and cost for [from, to) (default: the last 30 days)',
      description: `Metered = tokens × the price book's rate in force each day (cache read and write rates; batch tier half price), exact fractional cents. Per-person assistant rows appear only under byActor. A window spans at most 366 days.`,
      response: UsageSchema,
      run: (accountId, w) => usageReport(ctx, accountId, w),
    });
    getWindowReport(app, ctx, {
      path: `${base}/reconcile`,
      operationId: 'getSpendReconcileReport',
      summary: 'Metered vs vendor-reported vs invoiced per provider for [from, to] inclusive (default: the last full calendar month)',
      description: 'An invoice counts only if its whole period sits inside the window. A window spans at most 366 days.',
      response: ReconcileSchema,
      window: reconcileWindow,
      run: (accountId, w) => reconcileReport(ctx, accountId, w),
    });
    app.get(`${base}/models`, { schema: { tags: REPORT_TAGS, operationId: 'getSpendModelPrices', summary: 'The price book in force today: one row per model (an operator row wins over the seeded one)', response: { 200: envelopeSchema(z.array(ModelPriceSchema)) } } },
      async (request) =>
        ok(
          (await modelsReport(ctx, accountIdOf(request))).map((p) => ({
            provider: p.provider,
            model: p.model,
            inputCostPerMillion: p.rates.input,
            outputCostPerMillion: p.rates.output,
            cacheReadCostPerMillion: p.rates.cacheRead,
            cacheWriteCostPerMillion: p.rates.cacheWrite5m,
            cacheWrite1hCostPerMillion: p.rates.cacheWrite1h,
            effectiveFrom: p.effectiveFrom,
            source: p.source,
          })),
        ));
  };
}
