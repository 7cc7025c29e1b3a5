import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { envelopeSchema, ok } from '../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { accountIdOf, principalOf } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { dec } from '../../platform/money.js';
import { RefParamsSchema as RefParams } from '../customers/index.js';
import { batchValidatorCompiler } from './ingest/batch-validation.js';
import { checkEntitlement, listEntitlementPage } from './entitlements.js';
import { getEventOverview, groupEventTotals, listEventPage } from './events.js';
import { ingestEvent } from './ingest/event.js';
import { ingestBatch } from './ingest/batch.js';
import { getUsageReport } from './report.js';
import { getCustomerUsageHistory, listCustomerUsageEvents } from './reads/service.js';
import {
  BATCH_BODY_LIMIT_BYTES,
  CustomerUsageEventSchema,
  CustomerUsageHistorySchema,
  EntitlementParamsSchema,
  EntitlementQuerySchema,
  EntitlementResultSchema,
  EvaluateRequestSchema,
  EventBatchRequestSchema,
  EventBatchResultSchema,
  EventGroupQuery,
  EventGroupsSchema,
  EventOverviewQuerySchema,
  EventOverviewSchema,
  EventListQuerySchema,
  EventReceiptSchema,
  EventRequestSchema,
  StoredEventSchema,
  SubscriptionEntitlementsSchema,
  UsageEventsQuerySchema,
  UsageHistoryQuerySchema,
  UsageReportSchema,
} from './schema.js';

const tags = ['Entitlements and usage'];

export function usageClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/client/entitlements/:ref', {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'listCustomerEntitlements', summary: "The customer's entitlements per active subscription, paged", description: 'One item per active subscription whose plan links a feature; `allowed` is false for a disabled rule or while a past-due invoice revokes the subscription\'s entitlements. Usage and credit limits: check the feature. With a customer key, `ref` must be the key\'s own customer (403 otherwise).', params: RefParams, querystring: pageQuerySchema, response: { 200: envelopeSchema(pageSchema(SubscriptionEntitlementsSchema)) } },
    }, async (request) => ok(await listEntitlementPage(ctx, principalOf(request), request.params.ref, request.query)));

    app.get('/api/v1/client/entitlements/:ref/:featureKey', {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'checkEntitlement', summary: 'Is the customer entitled to the feature now?', description: 'With a customer key, `ref` must be the key\'s own customer (403 otherwise). A denial is `allowed: false` with `meta.reason`, never an error.', params: EntitlementParamsSchema, querystring: EntitlementQuerySchema, response: { 200: envelopeSchema(EntitlementResultSchema) } },
    }, async (request) =>
      ok(await checkEntitlement(ctx, principalOf(request), { customerReferenceId: request.params.ref, featureKey: request.params.featureKey, record: request.query.record })));

    app.post('/api/v1/client/entitlements', {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'evaluateEntitlement', summary: 'Evaluate a proposed usage: entitlement, limit simulation and credit quote', description: 'customerReferenceId is required with a tenant key; with a customer key it may be omitted, and another customer\'s reference is 403. `usage` and `track` are synonyms (usage wins). With `reserve: true` an allowed evaluate of a credit-backed feature holds `creditQuote.estimatedCredits` under `flowId` (`reservation`); the usage event with the same flowId captures it (ADR 0012).', body: EvaluateRequestSchema, response: { 200: envelopeSchema(EntitlementResultSchema) } },
    }, async (request) => {
      const usage = request.body.usage ?? request.body.track;
      return ok(
        await checkEntitlement(ctx, principalOf(request), {
          customerReferenceId: request.body.customerReferenceId,
          featureKey: request.body.featureKey,
          evaluate: { units: usage?.usageUnits ?? dec(1), model: usage?.model ?? null, flowId: request.body.context?.flowId ?? newId(), reserve: request.body.reserve === true },
          record: true,
        }),
      );
    });

    app.post('/api/v1/client/events', {
      config: { customerKey: 'read' },
      schema: {
        tags,
        operationId: 'ingestEvent',
        summary: 'Ingest a usage event (409 on a repeated eventIdempotencyKey)',
        description:
          'customerReferenceId is required with a tenant key; with a customer key the key\'s own customer is used. ' +
          'An unknown customer or feature is created (EVENT_AUTO_CREATED). occurredAt is never a reason to reject. ' +
          'Over max_usage the event is stored zeroed and the answer is 200 with usageLimitExceeded; a hard-limit credit pool that cannot cover the charge is 409 insufficient_credits. ' +
          'An event whose flowId holds a credit reservation (evaluate with reserve) captures it with its charge instead of drawing: the rest of the hold is released, an excess drawn as far as the pools go.',
        body: EventRequestSchema,
        headers: z.object({ 'x-idempotency-key': z.string().min(1).max(255).optional() }).passthrough(),
        response: { 200: envelopeSchema(EventReceiptSchema), 201: envelopeSchema(EventReceiptSchema) },
      },
    }, async (request, reply) => {
      const { status, receipt } = await ingestEvent(ctx, principalOf(request), request.body, request.headers['x-idempotency-key']);
      return reply.code(status).send(ok(receipt));
    });

    app.post('/api/v1/client/events/batch', {
      config: { customerKey: 'read' },
      bodyLimit: BATCH_BODY_LIMIT_BYTES,
      validatorCompiler: batchValidatorCompiler,
      schema: {
        tags,
        operationId: 'ingestEventBatch',
        summary: 'Ingest up to 1,000 usage events, each applied as if sent alone, with per-event results',
        description:
          'Each event is validated and applied exactly as POST /events would apply it alone, in input order, in one transaction: its eventIdempotencyKey (a key already stored, ' +
          'by an earlier request or an earlier event of this batch, is `duplicate`), max_usage (over it: stored zeroed, `usageLimitExceeded`), and its credit draw (a hard-limit pool refuses exactly ' +
          'the events it can no longer cover: `refused`, nothing written for them). 200 with one result per event in input order, whatever their outcomes. ' +
          'Safe to retry after a timeout when every event carries an eventIdempotencyKey: stored events come back `duplicate` and nothing is stored or drawn twice. ' +
          'With a customer key every event is the key\'s own customer (customerReferenceId ignored); with a tenant key each event needs customerReferenceId. Empty or more than 1,000 events: 400.',
        body: EventBatchRequestSchema,
        response: { 200: envelopeSchema(EventBatchResultSchema) },
      },
    }, async (request) => ok(await ingestBatch(ctx, principalOf(request), request.body)));

    app.get('/api/v1/client/customers/:ref/usage', {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'getUsageReport', summary: 'Current-period usage and projections (burndown)', params: RefParams, response: { 200: envelopeSchema(UsageReportSchema) } },
    }, async (request) => ok(await getUsageReport(ctx, principalOf(request), request.params.ref)));

    app.get('/api/v1/client/customers/:ref/usage/events', {
      config: { customerKey: 'read' },
      schema: {
        tags,
        operationId: 'listCustomerUsageEvents',
        summary: "The customer's recorded usage events in a window, newest first, paged",
        description:
          'Events with occurredAt in [from, to) (default: the 90 days before now), newest occurredAt first, ties by newest insert. Entitlement-check audit events are not listed. ' +
          'A window over 366 days, from not before to, or an unparsable timestamp: 400. With a customer key, `ref` must be the key\'s own customer (403 otherwise).',
        params: RefParams,
        querystring: pageQuerySchema.extend(UsageEventsQuerySchema.shape),
        response: { 200: envelopeSchema(pageSchema(CustomerUsageEventSchema)) },
      },
    }, async (request) => ok(await listCustomerUsageEvents(ctx, principalOf(request), request.params.ref, request.query)));

    app.get('/api/v1/client/customers/:ref/usage/history', {
      config: { customerKey: 'read' },
      schema: {
        tags,
        operationId: 'getCustomerUsageHistory',
        summary: "The customer's recorded usage in [from, to), summed per subscription, feature and event name",
        description:
          'One row per (subscription, feature, event name), ordered by featureKey, eventName, then subscriptionId (none last); usage of an ended subscription stays. ' +
          'from and to are required; a window over 366 days or from not before to: 400. Entitlement-check audit events are not counted. With a customer key, `ref` must be the key\'s own customer (403 otherwise).',
        params: RefParams,
        querystring: UsageHistoryQuerySchema,
        response: { 200: envelopeSchema(CustomerUsageHistorySchema) },
      },
    }, async (request) => ok(await getCustomerUsageHistory(ctx, principalOf(request), request.params.ref, request.query)));
  };
}

export function usageAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/tanso/events', {
      schema: { tags: ['Usage events (admin)'], operationId: 'listUsageEvents', summary: 'Usage events with filters, newest first, paged', querystring: pageQuerySchema.extend(EventListQuerySchema.shape), response: { 200: envelopeSchema(pageSchema(StoredEventSchema)) } },
    }, async (request) => ok(await listEventPage(ctx, accountIdOf(request), request.query)));
    app.get('/api/v1/tanso/customers/:ref/usage', {
      schema: { tags: ['Usage events (admin)'], operationId: 'getUsageReportAdmin', summary: "A customer's current-period usage and credit projections (burndown), as the Client API's usage report", params: RefParams, response: { 200: envelopeSchema(UsageReportSchema) } },
    }, async (request) => ok(await getUsageReport(ctx, principalOf(request), request.params.ref)));
    app.get('/api/v1/tanso/customers/:ref/entitlements', {
      schema: { tags: ['Usage events (admin)'], operationId: 'listCustomerEntitlementsAdmin', summary: "A customer's entitlements per active subscription, paged, as the Client API lists them", description: 'Read-only: the same evaluation as listCustomerEntitlements (a disabled rule or a past-due invoice makes allowed false). Unknown ref: 404.', params: RefParams, querystring: pageQuerySchema, response: { 200: envelopeSchema(pageSchema(SubscriptionEntitlementsSchema)) } },
    }, async (request) => ok(await listEntitlementPage(ctx, principalOf(request), request.params.ref, request.query)));
    app.get('/api/v1/tanso/events/grouped', {
      schema: { tags: ['Usage events (admin)'], operationId: 'groupUsageEvents', summary: 'Usage events summed per customer, feature, event name, model or UTC day, with the event list filters', querystring: EventGroupQuery, response: { 200: envelopeSchema(EventGroupsSchema) } },
    }, async (request) => ok(await groupEventTotals(ctx, accountIdOf(request), request.query)));
    app.get('/api/v1/tanso/events/overview', {
      schema: { tags: ['Usage events (admin)'], operationId: 'getUsageEventOverview', summary: 'Events per UTC day over the last `days` days, with the top features and customers: the console overview in one read', querystring: EventOverviewQuerySchema, response: { 200: envelopeSchema(EventOverviewSchema) } },
    }, async (request) => ok(await getEventOverview(ctx, accountIdOf(request), request.query)));
  };
}
