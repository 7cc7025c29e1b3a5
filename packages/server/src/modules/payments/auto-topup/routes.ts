import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, errorEnvelopeSchema, ok, okEmpty } from '../../../platform/http/envelope.js';
import { pageSchema } from '../../../platform/http/pagination.js';
import { principalOf } from '../../../platform/http/principal.js';
import { AutoTopupAttemptQuerySchema, AutoTopupAttemptSchema, AutoTopupParamsSchema, AutoTopupRuleRequestSchema, AutoTopupRuleSchema } from './schema.js';
import { deleteRule, getRule, listAttempts, putRule } from './service.js';

const tags = ['Credits'];

/** Client API: a customer pool's auto top-up rule and its attempts (api-contract-money.md §2.1). */
export function autoTopupClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const path = '/api/v1/client/credits/:ref/pools/:poolId/auto-topup';
    app.get(path, {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'getAutoTopupRule', summary: "The pool's auto top-up rule with its derived state (404 when none)", params: AutoTopupParamsSchema, response: { 200: envelopeSchema(AutoTopupRuleSchema), 404: errorEnvelopeSchema } },
    }, async (request) => ok(await getRule(ctx, principalOf(request), request.params.ref, request.params.poolId)));
    app.put(path, {
      config: { customerKey: 'purchase' },
      schema: {
        tags, operationId: 'putAutoTopupRule',
        summary: "Create or replace the pool's auto top-up rule (the whole rule every time)",
        description: 'Enabling needs a connected processor, a default payment method, a price, an amount per top-up of at least 0.50 and within the agent spend cap (403 spend_cap_exceeded). Honours Idempotency-Key.',
        params: AutoTopupParamsSchema, body: AutoTopupRuleRequestSchema,
        response: { 200: envelopeSchema(AutoTopupRuleSchema), 403: errorEnvelopeSchema },
      },
    }, async (request) => ok(await putRule(ctx, principalOf(request), request.params.ref, request.params.poolId, request.body)));
    app.delete(path, {
      config: { customerKey: 'purchase' },
      schema: { tags, operationId: 'deleteAutoTopupRule', summary: 'Remove the rule (idempotent); a PENDING attempt is still charged and attempts stay listed', params: AutoTopupParamsSchema, response: { 200: emptyEnvelopeSchema } },
    }, async (request) => okEmpty(await deleteRule(ctx, principalOf(request), request.params.ref, request.params.poolId)));
    app.get(`${path}/attempts`, {
      config: { customerKey: 'read' },
      schema: { tags, operationId: 'listAutoTopupAttempts', summary: "The pool's auto top-up attempts, newest first, paged", params: AutoTopupParamsSchema, querystring: AutoTopupAttemptQuerySchema, response: { 200: envelopeSchema(pageSchema(AutoTopupAttemptSchema)) } },
    }, async (request) => ok(await listAttempts(ctx, principalOf(request), request.params.ref, request.params.poolId, request.query)));
  };
}
