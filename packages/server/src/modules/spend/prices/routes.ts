import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { decimalInput, decimalOutput } from '../../../platform/http/decimal-schema.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../../platform/http/envelope.js';
import { accountIdOf, adminOf } from '../../../platform/http/principal.js';
import { RATE_SCALE } from './seed.js';
import { addPrice, deletePrice, listPrices, type PriceRow } from './service.js';
import { dayInput } from '../reports/window.js';
import { SPEND_PROVIDERS } from '../providers.js';

const tags = { tags: ['Spend — Prices'] };
const providerSchema = z.enum(SPEND_PROVIDERS);
/** USD per million tokens: a ceiling far above any list price, and the column's 10 places. */
const rate = (description: string) => decimalInput({ min: 0, max: 1_000_000, maxScale: RATE_SCALE, description: `${description}, USD per million tokens.` });
const rateOut = decimalOutput.nullable();

export const PriceRowSchema = z
  .object({
    id: z.uuid().nullable().describe('Operator rows only; seeded rows have none'),
    provider: providerSchema,
    model: z.string().describe('Price-book model id (vendor names resolve to it)'),
    effectiveFrom: z.string().describe('In force from this day (UTC) until the next row of the model; 1970-01-01 = since always'),
    inputCostPerMillion: rateOut,
    outputCostPerMillion: rateOut,
    cacheReadCostPerMillion: rateOut,
    cacheWriteCostPerMillion: rateOut.describe('5-minute cache write (OpenAI: its cache write)'),
    cacheWrite1hCostPerMillion: rateOut.describe('1-hour cache write'),
    source: z.enum(['PACKAGE', 'SEED_OVERRIDE', 'OPERATOR']).describe('PACKAGE: @pydantic/genai-prices; SEED_OVERRIDE: our seed list; OPERATOR: this account'),
    createdAt: z.date().nullable(),
  })
  .meta({ id: 'SpendPrice' });

const PriceBody = z.object({
  provider: providerSchema,
  model: z.string().trim().min(1).max(200).describe('A vendor name or price-book id; stored under the price-book model it resolves to'),
  effectiveFrom: dayInput.describe('In force from this day (UTC); wins over the seeded row of the model from then on'),
  inputCostPerMillion: rate('Uncached input'),
  outputCostPerMillion: rate('Output'),
  cacheReadCostPerMillion: rate('Cache read').nullish(),
  cacheWriteCostPerMillion: rate('5-minute cache write').nullish(),
  cacheWrite1hCostPerMillion: rate('1-hour cache write').nullish(),
});

const ListQuery = z.object({ provider: providerSchema.optional(), model: z.string().max(200).optional() });

export const toPriceRowDto = (r: PriceRow) => ({
  id: r.id,
  provider: r.provider,
  model: r.model,
  effectiveFrom: r.effectiveFrom,
  inputCostPerMillion: r.rates.input,
  outputCostPerMillion: r.rates.output,
  cacheReadCostPerMillion: r.rates.cacheRead,
  cacheWriteCostPerMillion: r.rates.cacheWrite5m,
  cacheWrite1hCostPerMillion: r.rates.cacheWrite1h,
  source: r.source,
  createdAt: r.createdAt,
});

/** Operator routes of the price book (ours: the contract has only GET /reports/models). */
export function priceRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/spend/prices';
    app.get(base, { schema: { ...tags, operationId: 'listSpendPrices', summary: 'Every dated price row: seeded and this account’s (operator rows win from their day)', querystring: ListQuery, response: { 200: envelopeSchema(z.array(PriceRowSchema)) } } },
      async (request) => ok((await listPrices(ctx, accountIdOf(request), request.query)).map(toPriceRowDto)));
    app.post(base, { schema: { ...tags, operationId: 'addSpendPrice', summary: 'Add or override a model price from a day on', description: 'A cache rate left out is unknown: such tokens are priced at the input rate and the report says cacheRatesKnown: false. A second row for the same model and day is 409.', body: PriceBody, response: { 201: envelopeSchema(PriceRowSchema) } } },
      async (request, reply) => {
        const b = request.body;
        const row = await addPrice(ctx, accountIdOf(request), adminOf(request).username, {
          provider: b.provider,
          model: b.model,
          effectiveFrom: b.effectiveFrom,
          rates: { input: b.inputCostPerMillion, output: b.outputCostPerMillion, cacheRead: b.cacheReadCostPerMillion ?? null, cacheWrite5m: b.cacheWriteCostPerMillion ?? null, cacheWrite1h: b.cacheWrite1hCostPerMillion ?? null },
        });
        return reply.code(201).send(ok(toPriceRowDto(row)));
      });
    app.delete(`${base}/:id`, { schema: { ...tags, operationId: 'deleteSpendPrice', summary: 'Delete an operator price row (seeded rows cannot be deleted)', params: z.object({ id: z.uuid() }), response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await deletePrice(ctx, accountIdOf(request), request.params.id)));
  };
}
