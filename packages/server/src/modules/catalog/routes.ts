import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { accountIdOf } from '../../platform/http/principal.js';
import * as catalog from './catalog-view.js';
import {
  CatalogPlanSchema,
  FeatureCreateSchema,
  FeatureSchema,
  FeatureUpdateSchema,
  IdParamsSchema,
  PlanCreateSchema,
  PlanSchema,
  PlanUpdateSchema,
  RuleParamsSchema,
  RuleRequestSchema,
  RuleSchema,
} from './schema.js';
import * as service from './service.js';

const admin = { tags: ['Catalog (admin)'] };

/** Admin API: features, plans, plan-feature rules (JWT). */
export function catalogAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/monetization';
    app.post(`${base}/features`, { schema: { ...admin, operationId: 'createFeature', summary: 'Create a feature', body: FeatureCreateSchema, response: { 201: envelopeSchema(FeatureSchema) } } },
      async (request, reply) => reply.code(201).send(ok(await service.createFeature(ctx, accountIdOf(request), request.body))));
    app.get(`${base}/features`, { schema: { ...admin, operationId: 'listFeatures', summary: 'List features', response: { 200: envelopeSchema(z.array(FeatureSchema)) } } },
      async (request) => ok((await catalog.listAllFeatures(ctx, accountIdOf(request))).map(service.toFeature)));
    app.get(`${base}/features/:id`, { schema: { ...admin, operationId: 'getFeature', summary: 'Get a feature', params: IdParamsSchema, response: { 200: envelopeSchema(FeatureSchema) } } },
      async (request) => ok(service.toFeature(await service.getFeature(ctx, accountIdOf(request), request.params.id))));
    app.patch(`${base}/features/:id`, { schema: { ...admin, operationId: 'updateFeature', summary: 'Update a feature (only the fields sent)', params: IdParamsSchema, body: FeatureUpdateSchema, response: { 200: envelopeSchema(FeatureSchema) } } },
      async (request) => ok(await service.updateFeature(ctx, accountIdOf(request), request.params.id, request.body)));
    app.delete(`${base}/features/:id`, { schema: { ...admin, operationId: 'deleteFeature', summary: 'Delete a feature not linked to any plan or event', params: IdParamsSchema, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.deleteFeature(ctx, accountIdOf(request), request.params.id)));

    app.post(`${base}/plans`, { schema: { ...admin, operationId: 'createPlan', summary: 'Create a plan (always DRAFT)', body: PlanCreateSchema, response: { 201: envelopeSchema(PlanSchema) } } },
      async (request, reply) => reply.code(201).send(ok(await service.createPlan(ctx, accountIdOf(request), request.body))));
    app.get(`${base}/plans`, { schema: { ...admin, operationId: 'listPlans', summary: 'List plans of every status', response: { 200: envelopeSchema(z.array(PlanSchema)) } } },
      async (request) => ok((await catalog.listAllPlans(ctx, accountIdOf(request))).map(service.toPlan)));
    app.get(`${base}/plans/:id`, { schema: { ...admin, operationId: 'getPlan', summary: 'Get a plan', params: IdParamsSchema, response: { 200: envelopeSchema(PlanSchema) } } },
      async (request) => ok(service.toPlan(await service.getPlan(ctx, accountIdOf(request), request.params.id))));
    app.get(`${base}/plans/:id/features`, { schema: { ...admin, operationId: 'getPlanFeatures', summary: 'A plan with its linked features', params: IdParamsSchema, response: { 200: envelopeSchema(z.object({ plan: PlanSchema, features: z.array(FeatureSchema), creditAllocations: z.array(z.unknown()) })) } } },
      async (request) => ok(await service.getPlanWithFeatures(ctx, accountIdOf(request), request.params.id)));
    app.patch(`${base}/plans/:id`, { schema: { ...admin, operationId: 'updatePlan', summary: 'Update a plan; status ACTIVE activates it', description: 'Status moves DRAFT → ACTIVE ⇄ ARCHIVED (an unknown value: "Invalid plan status: …"). Activation needs a name, a description, intervalMonths ≥ 1, a priceAmount (0 for a free plan) and at least one linked feature; a refused activation is one 400 whose message is the first unmet precondition (contract order) and whose fields[] lists every unmet one (name, description, intervalMonths, priceAmount, features). An ACTIVE plan\'s key, priceAmount, intervalMonths and billingTiming cannot change; an ARCHIVED plan only changes status.', params: IdParamsSchema, body: PlanUpdateSchema, response: { 200: envelopeSchema(PlanSchema) } } },
      async (request) => ok(await service.updatePlan(ctx, accountIdOf(request), request.params.id, request.body)));
    app.delete(`${base}/plans/:id`, { schema: { ...admin, operationId: 'deletePlan', summary: 'Delete a plan without subscriptions', params: IdParamsSchema, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.deletePlan(ctx, accountIdOf(request), request.params.id)));

    app.post(`${base}/rules/plan-features`, { schema: { ...admin, operationId: 'createPlanFeatureRule', summary: 'Link a feature to a plan with its pricing rule', body: RuleRequestSchema, response: { 201: envelopeSchema(RuleSchema) } } },
      async (request, reply) => reply.code(201).send(ok(await service.createRule(ctx, accountIdOf(request), request.body))));
    app.patch(`${base}/rules/plan-features`, { schema: { ...admin, operationId: 'updatePlanFeatureRule', summary: 'Update the rule named by planId and featureId', body: RuleRequestSchema, response: { 200: envelopeSchema(RuleSchema) } } },
      async (request) => ok(await service.updateRule(ctx, accountIdOf(request), request.body)));
    app.get(`${base}/rules/plan-features/:planId/:featureId`, { schema: { ...admin, operationId: 'getPlanFeatureRule', summary: 'Get a plan-feature rule', params: RuleParamsSchema, response: { 200: envelopeSchema(RuleSchema) } } },
      async (request) => ok(await service.getRuleView(ctx, accountIdOf(request), request.params.planId, request.params.featureId)));
    app.delete(`${base}/rules/plan-features/:planId/:featureId`, { schema: { ...admin, operationId: 'deletePlanFeatureRule', summary: 'Unlink a feature from a plan', params: RuleParamsSchema, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.deleteRule(ctx, accountIdOf(request), request.params.planId, request.params.featureId)));
  };
}

const client = { tags: ['Catalog'] };

/** Client API: the ACTIVE catalog and features (tenant key). */
export function catalogClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/client/plans', { schema: { ...client, operationId: 'listCatalogPlans', summary: 'ACTIVE plans with their features, paged', querystring: pageQuerySchema, response: { 200: envelopeSchema(pageSchema(CatalogPlanSchema)) } } },
      async (request) => ok(await catalog.listActiveCatalog(ctx, accountIdOf(request), request.query)));
    app.get('/api/v1/client/features', { schema: { ...client, operationId: 'listCatalogFeatures', summary: 'Features, paged', querystring: pageQuerySchema, response: { 200: envelopeSchema(pageSchema(FeatureSchema)) } } },
      async (request) => ok(await catalog.listFeaturePage(ctx, accountIdOf(request), request.query)));
    app.get('/api/v1/client/features/:featureKey', { schema: { ...client, operationId: 'getCatalogFeature', summary: 'A feature by key', params: z.object({ featureKey: z.string().min(1).max(128) }), response: { 200: envelopeSchema(FeatureSchema) } } },
      async (request) => ok(await catalog.getFeatureByKey(ctx, accountIdOf(request), request.params.featureKey)));
  };
}
