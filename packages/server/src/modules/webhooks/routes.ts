import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors/app-error.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../platform/http/envelope.js';
import { pageSchema } from '../../platform/http/pagination.js';
import { accountIdOf } from '../../platform/http/principal.js';
import { DeliveryQuerySchema, DeliverySchema, DeliveryWithAttemptsSchema, EndpointRequestSchema, EndpointSchema, EventQuerySchema, EventSchema, PathIdSchema } from './schema.js';
import * as service from './service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A path id that is not a UUID is a 404 with the resource's own message (§E2.1: no hint it was malformed). */
function pathId(value: string, message: string): string {
  if (!UUID.test(value)) throw notFound(`${message}: ${value}`);
  return value;
}
const endpointId = (v: string) => pathId(v, 'Webhook endpoint not found');

export function webhookRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Webhooks'];
    const byEndpoint = z.object({ endpointId: PathIdSchema });
    app.post('/api/v1/webhooks/endpoints', { schema: { tags, operationId: 'createWebhookEndpoint', summary: 'Add an endpoint that receives outbound events; returns its signing secret once', body: EndpointRequestSchema, response: { 201: envelopeSchema(EndpointSchema) } } },
      async (request, reply) => reply.code(201).send(ok(await service.createEndpoint(ctx, accountIdOf(request), request.body))));
    app.get('/api/v1/webhooks/endpoints', { schema: { tags, operationId: 'listWebhookEndpoints', summary: "The account's endpoints, oldest first", response: { 200: envelopeSchema(z.array(EndpointSchema)) } } },
      async (request) => ok(await service.listEndpoints(ctx, accountIdOf(request))));
    app.get('/api/v1/webhooks/endpoints/:endpointId', { schema: { tags, operationId: 'getWebhookEndpoint', summary: 'One endpoint', params: byEndpoint, response: { 200: envelopeSchema(EndpointSchema) } } },
      async (request) => ok(await service.getEndpoint(ctx, accountIdOf(request), endpointId(request.params.endpointId))));
    app.patch('/api/v1/webhooks/endpoints/:endpointId', { schema: { tags, operationId: 'updateWebhookEndpoint', summary: 'Change an endpoint (only the fields sent; null resets to the default)', params: byEndpoint, body: EndpointRequestSchema, response: { 200: envelopeSchema(EndpointSchema) } } },
      async (request) => ok(await service.updateEndpoint(ctx, accountIdOf(request), endpointId(request.params.endpointId), request.body)));
    app.delete('/api/v1/webhooks/endpoints/:endpointId', { schema: { tags, operationId: 'deleteWebhookEndpoint', summary: 'Delete an endpoint; its pending deliveries end', params: byEndpoint, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.deleteEndpoint(ctx, accountIdOf(request), endpointId(request.params.endpointId))));
    app.post('/api/v1/webhooks/endpoints/:endpointId/rotate-secret', { schema: { tags, operationId: 'rotateWebhookSecret', summary: 'A new signing secret; the previous one also signs for 24 hours', params: byEndpoint, response: { 200: envelopeSchema(EndpointSchema) } } },
      async (request) => ok(await service.rotateSecret(ctx, accountIdOf(request), endpointId(request.params.endpointId))));
    app.post('/api/v1/webhooks/endpoints/:endpointId/test', { schema: { tags, operationId: 'testWebhookEndpoint', summary: 'Send a webhook.test event to this endpoint', params: byEndpoint, response: { 202: envelopeSchema(DeliverySchema) } } },
      async (request, reply) => reply.code(202).send(ok(await service.sendTest(ctx, accountIdOf(request), endpointId(request.params.endpointId)))));
    app.post('/api/v1/webhooks/endpoints/:endpointId/events/:eventId/resend', { schema: { tags, operationId: 'resendWebhookEvent', summary: 'Send an event to this endpoint again (a new delivery, the same bytes)', params: z.object({ endpointId: PathIdSchema, eventId: PathIdSchema }), response: { 202: envelopeSchema(DeliverySchema) } } },
      async (request, reply) =>
        reply.code(202).send(ok(await service.resend(ctx, accountIdOf(request), endpointId(request.params.endpointId), pathId(request.params.eventId, 'Event not found')))));
    app.get('/api/v1/webhooks/events', { schema: { tags, operationId: 'listWebhookEvents', summary: 'The event log, newest first', querystring: EventQuerySchema, response: { 200: envelopeSchema(pageSchema(EventSchema)) } } },
      async (request) => ok(await service.listEventPage(ctx, accountIdOf(request), request.query, request.query)));
    app.get('/api/v1/webhooks/events/:eventId', { schema: { tags, operationId: 'getWebhookEvent', summary: 'One event: the payload as sent', params: z.object({ eventId: PathIdSchema }), response: { 200: envelopeSchema(EventSchema) } } },
      async (request) => ok(await service.getEvent(ctx, accountIdOf(request), pathId(request.params.eventId, 'Event not found'))));
    app.get('/api/v1/webhooks/deliveries', { schema: { tags, operationId: 'listWebhookDeliveries', summary: 'The deliveries log, newest first', querystring: DeliveryQuerySchema, response: { 200: envelopeSchema(pageSchema(DeliverySchema)) } } },
      async (request) => ok(await service.listDeliveryPage(ctx, accountIdOf(request), request.query, request.query)));
    app.get('/api/v1/webhooks/deliveries/:deliveryId', { schema: { tags, operationId: 'getWebhookDelivery', summary: 'One delivery with its attempts', params: z.object({ deliveryId: PathIdSchema }), response: { 200: envelopeSchema(DeliveryWithAttemptsSchema) } } },
      async (request) => ok(await service.getDelivery(ctx, accountIdOf(request), pathId(request.params.deliveryId, 'Delivery not found'))));
  };
}
