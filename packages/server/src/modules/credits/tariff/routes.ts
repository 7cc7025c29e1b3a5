import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../../platform/http/pagination.js';
import { accountIdOf, adminOf } from '../../../platform/http/principal.js';
import { warningsField } from './guard.js';
import { IdParamsSchema, PriceHistoryQuerySchema, PricePublishSchema, PriceSchema, WeightHistoryQuerySchema, WeightPublishSchema, WeightSchema } from './schema.js';
import * as service from './service.js';

const admin = { tags: ['Credit tariff (admin)'] };

/** The envelope of a publish: `warnings` only when the negative-margin guard found something (additive). */
const withWarnings = <T>(published: service.Published<T>) =>
  published.warnings.length === 0 ? ok(published.rows) : { ...ok(published.rows), warnings: published.warnings };

/** Admin API: weight tariff and price book (publish, list, history, delete). */
export function tariffAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/monetization/credits';
    app.post(`${base}/weights/publish`, { schema: { ...admin, operationId: 'publishCreditWeights', summary: 'Publish a weight batch effective at a future instant (identical replay: the stored rows)', body: WeightPublishSchema, response: { 201: envelopeSchema(z.array(WeightSchema)).extend({ warnings: warningsField }) } } },
      async (request, reply) => {
        const principal = adminOf(request);
        return reply.code(201).send(withWarnings(await service.publishWeights(ctx, principal.accountId, principal.username, request.body, request.log)));
      });
    app.get(`${base}/weights`, { schema: { ...admin, operationId: 'listCreditWeights', summary: 'Current weight per (feature, model) plus scheduled rows', response: { 200: envelopeSchema(z.array(WeightSchema)) } } },
      async (request) => ok(await service.listWeights(ctx, accountIdOf(request))));
    app.get(`${base}/weights/history`, { schema: { ...admin, operationId: 'getCreditWeightHistory', summary: 'One (feature, model) weight chain, newest first', querystring: WeightHistoryQuerySchema, response: { 200: envelopeSchema(z.array(WeightSchema)) } } },
      async (request) => ok(await service.weightHistory(ctx, accountIdOf(request), request.query.featureId, request.query.model)));
    app.delete(`${base}/weights/:id`, { schema: { ...admin, operationId: 'deleteCreditWeight', summary: 'Delete a weight row not yet in effect', params: IdParamsSchema, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.deleteWeight(ctx, accountIdOf(request), request.params.id)));

    app.post(`${base}/prices/publish`, { schema: { ...admin, operationId: 'publishCreditPrices', summary: 'Publish a price batch effective at a future instant (identical replay: the stored rows)', body: PricePublishSchema, response: { 201: envelopeSchema(z.array(PriceSchema)).extend({ warnings: warningsField }) } } },
      async (request, reply) => {
        const principal = adminOf(request);
        return reply.code(201).send(withWarnings(await service.publishPrices(ctx, principal.accountId, principal.username, request.body, request.log)));
      });
    app.get(`${base}/prices`, { schema: { ...admin, operationId: 'listCreditPrices', summary: 'Current price per denomination plus scheduled rows', response: { 200: envelopeSchema(z.array(PriceSchema)) } } },
      async (request) => ok(await service.listPrices(ctx, accountIdOf(request))));
    app.get(`${base}/prices/history`, { schema: { ...admin, operationId: 'getCreditPriceHistory', summary: 'One denomination price chain, newest first', querystring: PriceHistoryQuerySchema, response: { 200: envelopeSchema(z.array(PriceSchema)) } } },
      async (request) => ok(await service.priceHistory(ctx, accountIdOf(request), request.query.denomination)));
    app.delete(`${base}/prices/:id`, { schema: { ...admin, operationId: 'deleteCreditPrice', summary: 'Delete a price row not yet in effect', params: IdParamsSchema, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.deletePrice(ctx, accountIdOf(request), request.params.id)));
  };
}

/** Client API: prices in effect now (tenant key and customer keys). */
export function tariffClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/client/credits/prices', { config: { customerKey: 'read' }, schema: { tags: ['Credits'], operationId: 'listCurrentCreditPrices', summary: 'Price in effect now per priced denomination, paged', querystring: pageQuerySchema, response: { 200: envelopeSchema(pageSchema(PriceSchema)) } } },
      async (request) => ok(await service.listPricesInEffect(ctx, accountIdOf(request), request.query)));
  };
}
