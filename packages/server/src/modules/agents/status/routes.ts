import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../platform/context.js';
import { envelopeSchema, ok } from '../../../platform/http/envelope.js';
import { principalOf } from '../../../platform/http/principal.js';
import { RefParamsSchema } from '../../customers/index.js';
import { AgentStatusSchema, OwnerRequestSchema } from './schema.js';
import { publicBaseUrl } from '../../../platform/http/base-url.js';
import { SpendMandateAnswerSchema, SpendMandateRequestSchema } from '../mandate/schema.js';
import { getCustomerStatus, putOwner, requestMandate } from './use-cases.js';

const tags = ['Agent status'];

/** Client API: a customer's agent status and its owner (api-contract-agent-v2.md §4.4, §4.5). */
export function agentStatusRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/client/customers/:ref/status', {
      config: { customerKey: 'read' },
      schema: {
        tags,
        operationId: 'getAgentStatus',
        summary: "A customer's agent status: provisional, claimed or expired, its limits, spend and mandate",
        description: 'A customer key reads only its own customer (another reference: 403 `forbidden`). An expired customer\'s keys get 401 everywhere.',
        params: RefParamsSchema,
        response: { 200: envelopeSchema(AgentStatusSchema) },
      },
    }, async (request) => ok(await getCustomerStatus(ctx, principalOf(request), request.params.ref)));

    app.put('/api/v1/client/customers/:ref/owner', {
      config: { customerKey: 'read' },
      schema: {
        tags,
        operationId: 'setAgentOwner',
        summary: "Nominate the customer's owner (its principal's e-mail); answers the status",
        description:
          'Stored trimmed and lower-cased as owner_email; when the customer has no e-mail it becomes its e-mail too. Sends nothing and does not claim the customer. The same address again changes nothing.',
        params: RefParamsSchema,
        body: OwnerRequestSchema,
        response: { 200: envelopeSchema(AgentStatusSchema) },
      },
    }, async (request) => ok(await putOwner(ctx, principalOf(request), request.params.ref, request.body.email)));

    app.post('/api/v1/client/customers/:ref/spend-mandate', {
      config: { customerKey: 'purchase' },
      schema: {
        tags,
        operationId: 'requestSpendMandate',
        summary: 'Ask the principal for a spend mandate: a processor page where it saves a card and approves max_amount per period',
        description:
          'The request is checked first (400, nothing opened): max_amount positive and at most the account\'s agentMaxMandateAmount, currency the ' +
          'account\'s, period day/week/month (default month). Answers 200 `pending` with the page, or `unavailable` when the mandate is off, ' +
          'has no ceiling, no processor is connected or the processor refused the page.',
        params: RefParamsSchema,
        body: SpendMandateRequestSchema,
        response: { 200: envelopeSchema(SpendMandateAnswerSchema) },
      },
    }, async (request) =>
      ok(await requestMandate(ctx, principalOf(request), request.params.ref, request.body, publicBaseUrl(ctx.config.publicBaseUrl, request))));
  };
}
