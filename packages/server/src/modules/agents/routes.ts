import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { publicBaseUrl } from '../../platform/http/base-url.js';
import { envelopeSchema, errorEnvelopeSchema, ok } from '../../platform/http/envelope.js';
import { getPricingDocument, matchesETag } from './pricing/service.js';
import { PRICING_CACHE_CONTROL, PricingDocumentSchema, SIGNUP_BODY_LIMIT_BYTES, SignupRequestSchema, SignupResultSchema, SlugParamsSchema } from './schema.js';
import { openMandatePage } from './mandate/service.js';
import { signUpAgent } from './signup/service.js';

const tags = ['Agents'];

/** The unauthenticated agent surface: the pricing document and one-call signup (contract §5.2, §5.3). */
export function agentPublicRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/public/v1/catalog/:slug/pricing.json',
      {
        schema: {
          tags,
          operationId: 'getPricingDocument',
          summary: 'The public pricing document of a catalog (pricing.json, no envelope)',
          description:
            'No authentication and no envelope. Cached for 60 s (`Cache-Control: public, max-age=60`) with a strong `ETag`; ' +
            '`If-None-Match` with that tag answers 304 without a body. An unknown slug, a closed catalog and a catalog ' +
            'without an ACTIVE plan all answer the same 404 `not_found` "No catalog at this address".',
          params: SlugParamsSchema,
          response: { 200: PricingDocumentSchema, 304: z.null().describe('Not modified: the If-None-Match tag is current') },
        },
      },
      async (request, reply) => {
        const pricing = await getPricingDocument(ctx, request.params.slug, publicBaseUrl(ctx.config.publicBaseUrl, request));
        reply.header('cache-control', PRICING_CACHE_CONTROL).header('etag', pricing.etag);
        if (matchesETag(request.headers['if-none-match'], pricing.etag)) return reply.code(304).send(null);
        // Already serialised by the exact codec: a string with a JSON content type is sent as it is.
        return reply.type('application/json').send(pricing.body as never);
      },
    );

    app.post(
      '/public/v1/catalog/:slug/signup',
      {
        bodyLimit: SIGNUP_BODY_LIMIT_BYTES,
        schema: {
          tags,
          operationId: 'signUpAgent',
          summary: 'Sign an agent up: a customer, a free subscription and a customer key in one call',
          description:
            'No authentication. Creates an `agent_…` customer subscribed to the catalog\'s default free plan and issues a ' +
            'customer key with scopes read and purchase (shown once). An unknown slug, signup switched off or no usable ' +
            'default plan answer the same 404 `not_found` "No signup at this address". At or above the account\'s hourly ' +
            'cap (rolling hour), or the per-address cap (agentSignupPerIpCap, counted across all accounts), the answer is 429 ' +
            '`rate_limited` with `Retry-After` in seconds. The customer is provisional until paid, for agentProvisionalDays. ' +
            'A spend_mandate that fails its checks is 400 and nothing is saved. Bodies over 4 KiB: 413.',
          params: SlugParamsSchema,
          body: SignupRequestSchema,
          response: { 201: envelopeSchema(SignupResultSchema), 429: errorEnvelopeSchema },
        },
      },
      async (request, reply) => {
        const baseUrl = publicBaseUrl(ctx.config.publicBaseUrl, request);
        const input = { slug: request.params.slug, ...request.body, baseUrl, clientAddress: request.ip };
        return reply.code(201).send(ok(await signUpAgent(ctx, input, openMandatePage)));
      },
    );
  };
}
