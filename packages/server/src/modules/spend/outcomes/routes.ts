import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { listRecentOutcomes, postOutcome } from './service.js';
import { OUTCOME_POST_DESCRIPTION, OutcomeRequestSchema, OutcomeSchema } from './schema.js';

const tags = ['Spend outcomes'];

/** Outcomes on the Admin API (contract §7.7; JWT). */
export function outcomeRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/spend/outcomes', {
      schema: { tags, operationId: 'listSpendOutcomes', summary: 'The latest 200 outcomes, newest first', response: { 200: envelopeSchema(z.array(OutcomeSchema)) } },
    }, async (request) => ok(await listRecentOutcomes(ctx, accountIdOf(request))));
    app.post('/api/v1/spend/outcomes', {
      schema: { tags, operationId: 'postSpendOutcome', summary: 'Post an outcome (shipped work)', description: OUTCOME_POST_DESCRIPTION, body: OutcomeRequestSchema, response: { 201: envelopeSchema(OutcomeSchema) } },
    }, async (request, reply) => reply.code(201).send(ok(await postOutcome(ctx, accountIdOf(request), request.body))));
  };
}

/**
 * `POST /api/v1/client/outcomes`: the same as the Admin route, for a product's backend or CI with
 * the tenant key. Customer keys are refused (no `customerKey` in the route config). It belongs to
 * the build module (platform/http/surfaces.ts).
 */
export function outcomeClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/client/outcomes', {
      schema: { tags, operationId: 'postClientOutcome', summary: 'Post an outcome with the tenant key', description: OUTCOME_POST_DESCRIPTION, body: OutcomeRequestSchema, response: { 201: envelopeSchema(OutcomeSchema) } },
    }, async (request, reply) => reply.code(201).send(ok(await postOutcome(ctx, accountIdOf(request), request.body))));
  };
}
