import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { accountIdOf, principalOf } from '../../platform/http/principal.js';
import { auditLedger } from './audit.js';
import * as client from './client.js';
import { reservationClientRoutes } from './reservations/routes.js';
import {
  AllocationQuerySchema,
  AllocationSchema,
  AuditSchema,
  DeductionSchema,
  GrantCreateSchema,
  GrantSchema,
  LinkQuerySchema,
  LinkSchema,
  ModelCreateSchema,
  ModelSchema,
  PoolCreateSchema,
  PoolUpdateSchema,
  PoolSchema,
  TransactionSchema,
} from './schema.js';
import * as service from './service.js';

const tags = ['Credits (admin)'];
const id = z.uuid();

/** Admin API: credit models, plan allocations, pools, links, grants, deductions, reversals, audit. */
export function creditAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/monetization/credits';
    app.post(`${base}/models`, { schema: { tags, operationId: 'createCreditModel', summary: 'Create a credit model (denomination unique per account)', body: ModelCreateSchema, response: { 201: envelopeSchema(ModelSchema) } } },
      async (request, reply) => reply.code(201).send(ok(await service.createModel(ctx, accountIdOf(request), request.body))));
    app.get(`${base}/models`, { schema: { tags, operationId: 'listCreditModels', summary: 'Credit models', response: { 200: envelopeSchema(z.array(ModelSchema)) } } },
      async (request) => ok(await service.listModels(ctx, accountIdOf(request))));
    app.get(`${base}/models/:modelId`, { schema: { tags, operationId: 'getCreditModel', summary: 'A credit model', params: z.object({ modelId: id }), response: { 200: envelopeSchema(ModelSchema) } } },
      async (request) => ok(service.toModel(await service.getModel(ctx, accountIdOf(request), request.params.modelId))));
    app.delete(`${base}/models/:modelId`, { schema: { tags, operationId: 'deleteCreditModel', summary: 'Delete a credit model (soft)', params: z.object({ modelId: id }), response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.deleteModel(ctx, accountIdOf(request), request.params.modelId)));

    const allocationParams = z.object({ modelId: id, planId: id });
    app.post(`${base}/models/:modelId/plans/:planId`, { schema: { tags, operationId: 'allocateCreditsToPlan', summary: 'Include credits of a model in a plan, per period', params: allocationParams, querystring: AllocationQuerySchema, response: { 201: envelopeSchema(AllocationSchema) } } },
      async (request, reply) => reply.code(201).send(ok(await service.allocateToPlan(ctx, accountIdOf(request), { ...request.params, ...request.query }))));
    app.get(`${base}/plans/:planId/allocations`, { schema: { tags, operationId: 'listPlanCreditAllocations', summary: "A plan's credit allocations", params: z.object({ planId: id }), response: { 200: envelopeSchema(z.array(AllocationSchema)) } } },
      async (request) => ok(await service.listPlanAllocations(ctx, accountIdOf(request), request.params.planId)));
    app.delete(`${base}/models/:modelId/plans/:planId`, { schema: { tags, operationId: 'removePlanCreditAllocation', summary: 'Remove a plan allocation', params: allocationParams, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.removeAllocation(ctx, accountIdOf(request), request.params.modelId, request.params.planId)));

    app.post(`${base}/pools`, { schema: { tags, operationId: 'createCreditPool', summary: 'Create a credit pool', body: PoolCreateSchema, response: { 201: envelopeSchema(PoolSchema) } } },
      async (request, reply) => reply.code(201).send(ok(await service.createPool(ctx, accountIdOf(request), request.body))));
    app.get(`${base}/pools`, { schema: { tags, operationId: 'listCreditPools', summary: 'Credit pools', response: { 200: envelopeSchema(z.array(PoolSchema)) } } },
      async (request) => ok(await service.listAccountPools(ctx, accountIdOf(request))));
    app.get(`${base}/pools/:poolId`, { schema: { tags, operationId: 'getCreditPool', summary: 'A credit pool', params: z.object({ poolId: id }), response: { 200: envelopeSchema(PoolSchema) } } },
      async (request) => ok(service.toPool(await service.getPool(ctx, accountIdOf(request), request.params.poolId))));
    app.patch(`${base}/pools/:poolId`, { schema: { tags, operationId: 'updateCreditPool', summary: "Set or clear a pool's lowBalanceThreshold (fires nothing; arms or disarms credits.balance_low by the balance)", params: z.object({ poolId: id }), body: PoolUpdateSchema, response: { 200: envelopeSchema(PoolSchema) } } },
      async (request) => ok(await service.updatePool(ctx, accountIdOf(request), request.params.poolId, request.body)));
    app.get(`${base}/pools/customer/:customerId`, { schema: { tags, operationId: 'listCreditPoolsOfCustomer', summary: "A customer's pools (internal customer id)", params: z.object({ customerId: id }), response: { 200: envelopeSchema(z.array(PoolSchema)) } } },
      async (request) => ok(await service.listAccountPools(ctx, accountIdOf(request), request.params.customerId)));
    const linkParams = z.object({ poolId: id, subscriptionId: id });
    app.post(`${base}/pools/:poolId/subscriptions/:subscriptionId`, { schema: { tags, operationId: 'linkCreditPool', summary: 'Link a pool to a subscription with a draw priority and optional draw limit', params: linkParams, querystring: LinkQuerySchema, response: { 201: envelopeSchema(LinkSchema) } } },
      async (request, reply) => reply.code(201).send(ok(await service.linkPool(ctx, accountIdOf(request), { ...request.params, ...request.query }))));
    app.get(`${base}/pools/:poolId/subscriptions`, { schema: { tags, operationId: 'listCreditPoolLinks', summary: "A pool's links to subscriptions, oldest first", params: z.object({ poolId: id }), response: { 200: envelopeSchema(z.array(LinkSchema)) } } },
      async (request) => ok(await service.listPoolLinks(ctx, accountIdOf(request), request.params.poolId)));
    app.delete(`${base}/pools/:poolId/subscriptions/:subscriptionId`, { schema: { tags, operationId: 'unlinkCreditPool', summary: 'Unlink a pool from a subscription', params: linkParams, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await service.unlinkPool(ctx, accountIdOf(request), request.params.poolId, request.params.subscriptionId)));
    app.get(`${base}/pools/:poolId/grants`, { schema: { tags, operationId: 'listCreditPoolGrants', summary: "A pool's grants, oldest first", params: z.object({ poolId: id }), response: { 200: envelopeSchema(z.array(GrantSchema)) } } },
      async (request) => ok(await service.listPoolGrants(ctx, accountIdOf(request), request.params.poolId)));
    app.get(`${base}/pools/:poolId/transactions`, { schema: { tags, operationId: 'listCreditPoolTransactions', summary: "A pool's ledger, oldest first", params: z.object({ poolId: id }), response: { 200: envelopeSchema(z.array(TransactionSchema)) } } },
      async (request) => ok(await service.listPoolTransactions(ctx, accountIdOf(request), request.params.poolId)));

    app.post(`${base}/grants`, { schema: { tags, operationId: 'createCreditGrant', summary: 'Grant credits (PURCHASED grants are stamped at the book price)', description: 'A currency without unitPrice is 400; unitPrice is > 0, ≤ 1000000, ≤ 6 dp. A repeated idempotencyKey returns the first grant (same body, 200) or 409 idempotency_conflict (different body).', body: GrantCreateSchema, response: { 200: envelopeSchema(GrantSchema), 201: envelopeSchema(GrantSchema) } } },
      async (request, reply) => {
        const { grant, replayed } = await service.createGrant(ctx, accountIdOf(request), request.body);
        return reply.code(replayed ? 200 : 201).send(ok(grant));
      });
    app.post(`${base}/deductions`, { schema: { tags, operationId: 'createCreditDeduction', summary: 'Deduct credits FIFO from a pool', body: DeductionSchema, response: { 200: envelopeSchema(TransactionSchema) } } },
      async (request) => ok(await service.createDeduction(ctx, accountIdOf(request), request.body)));
    app.post(`${base}/transactions/:transactionId/reverse`, { schema: { tags, operationId: 'reverseCreditTransaction', summary: 'Reverse a ledger row, once', params: z.object({ transactionId: id }), querystring: z.object({ description: z.string().max(1000).optional() }), response: { 200: envelopeSchema(TransactionSchema) } } },
      async (request) => ok(await service.reverse(ctx, accountIdOf(request), request.params.transactionId, request.query.description)));
    app.get(`${base}/audit`, { schema: { tags, operationId: 'auditCreditLedger', summary: 'Recompute every pool from its ledger and report differences', response: { 200: envelopeSchema(AuditSchema) } } },
      async (request) => ok(await auditLedger(ctx.db, accountIdOf(request))));
  };
}

const clientTags = ['Credits'];
const refParams = z.object({ ref: z.string().min(1).max(255) });
const poolParams = refParams.extend({ poolId: id });

/** Client API: a customer's pools, grants and ledger, and credit reservations (tenant and customer keys). */
export function creditClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(reservationClientRoutes(ctx));
    const base = '/api/v1/client/credits/:ref/pools';
    app.get(base, { config: { customerKey: 'read' }, schema: { tags: clientTags, operationId: 'listCustomerCreditPools', summary: "The customer's pools", params: refParams, querystring: pageQuerySchema, response: { 200: envelopeSchema(pageSchema(PoolSchema)) } } },
      async (request) => ok(await client.listPools(ctx, principalOf(request), request.params.ref, request.query)));
    app.get(`${base}/:poolId`, { config: { customerKey: 'read' }, schema: { tags: clientTags, operationId: 'getCustomerCreditPool', summary: 'One of the customer pools', params: poolParams, response: { 200: envelopeSchema(PoolSchema) } } },
      async (request) => ok(await client.getPool(ctx, principalOf(request), request.params.ref, request.params.poolId)));
    app.get(`${base}/:poolId/grants`, { config: { customerKey: 'read' }, schema: { tags: clientTags, operationId: 'listCustomerCreditGrants', summary: "A pool's grants", params: poolParams, querystring: pageQuerySchema, response: { 200: envelopeSchema(pageSchema(GrantSchema)) } } },
      async (request) => ok(await client.listGrants(ctx, principalOf(request), request.params.ref, request.params.poolId, request.query)));
    app.get(`${base}/:poolId/transactions`, { config: { customerKey: 'read' }, schema: { tags: clientTags, operationId: 'listCustomerCreditTransactions', summary: "A pool's ledger, oldest first", params: poolParams, querystring: pageQuerySchema, response: { 200: envelopeSchema(pageSchema(TransactionSchema)) } } },
      async (request) => ok(await client.listTransactions(ctx, principalOf(request), request.params.ref, request.params.poolId, request.query)));
  };
}
