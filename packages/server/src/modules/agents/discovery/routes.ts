import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { publicBaseUrl } from '../../../platform/http/base-url.js';
import { errorEnvelopeSchema } from '../../../platform/http/envelope.js';
import { MEDIA_TYPE_KEY } from '../../../platform/http/openapi.js';
import { buildAgentJson, buildLlmsTxt, buildSkillsIndex } from './domain.js';
import { buildAgentSignupMd } from './runbook.js';
import { getPublishedCatalogs } from './service.js';

const tags = ['Agents'];

/** A served document may be cached for five minutes; a 404 not at all, so a catalog switched on shows at once (§5.1). */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=300';
const NOT_FOUND_CACHE_CONTROL = 'no-store';

const FAIL_CLOSED =
  'No authentication; any Accept header gets the document. Lists published catalogs only (a slug, the catalog on, an ACTIVE plan), in ascending slug order. ' +
  'With none published the answer is the same 404 `not_found` "No catalog at this address" as pricing.json\'s, with `Cache-Control: no-store`; a document is cached for 5 minutes.';

const AgentJsonSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    url: z.string(),
    catalogs: z.array(z.object({ slug: z.string(), pricing: z.string(), signup: z.string().optional().describe('Only when the catalog lists its signup') })),
    agent_signup: z.boolean(),
    auth: z.object({ scheme: z.literal('api-key'), header: z.literal('X-API-Key'), obtained_from: z.string() }),
    payment: z.object({ protocol: z.literal('http-402'), description: z.string() }),
    openapi: z.string(),
    docs: z.string(),
    runbook: z.string(),
    skills: z.string(),
  })
  .meta({ id: 'AgentManifest' });

const SkillsIndexSchema = z
  .object({ skills: z.array(z.object({ name: z.string(), description: z.string(), url: z.string() })) })
  .meta({ id: 'AgentSkillsIndex' });

const text = (mediaType: string, description: string) => z.string().meta({ description, [MEDIA_TYPE_KEY]: mediaType });

/** Every 404 on the way out (none published) carries no-store; a 200 overrides it. */
const noStoreUntilServed = (reply: FastifyReply) => reply.header('cache-control', NOT_FOUND_CACHE_CONTROL);

/** The instance-wide agent discovery documents (contract agent-v2 §5.1–§5.5). */
export function agentDiscoveryRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const load = async (request: Parameters<typeof publicBaseUrl>[1], reply: FastifyReply) => {
      noStoreUntilServed(reply);
      const catalogs = await getPublishedCatalogs(ctx);
      reply.header('cache-control', DISCOVERY_CACHE_CONTROL);
      return { baseUrl: publicBaseUrl(ctx.config.publicBaseUrl, request), catalogs };
    };

    app.get('/llms.txt', {
      schema: {
        tags, operationId: 'getLlmsTxt', summary: 'The agent index of this instance (llms.txt)', description: FAIL_CLOSED,
        response: { 200: text('text/plain', 'Markdown-flavoured plain text: the catalogs, how to use the API, the specification links'), 404: errorEnvelopeSchema },
      },
    }, async (request, reply) => reply.type('text/plain; charset=utf-8').send(buildLlmsTxt(await load(request, reply))));

    app.get('/.well-known/agent.json', {
      schema: { tags, operationId: 'getAgentManifest', summary: 'The agent manifest of this instance', description: FAIL_CLOSED, response: { 200: AgentJsonSchema, 404: errorEnvelopeSchema } },
    }, async (request, reply) => reply.type('application/json').send(buildAgentJson(await load(request, reply))));

    app.get('/agent-signup.md', {
      schema: {
        tags, operationId: 'getAgentSignupRunbook', summary: 'The agent signup runbook', description: FAIL_CLOSED,
        response: { 200: text('text/markdown', 'The runbook, filled in with this instance\'s address and its first catalog whose signup is listed'), 404: errorEnvelopeSchema },
      },
    }, async (request, reply) => reply.type('text/markdown; charset=utf-8').send(buildAgentSignupMd(await load(request, reply))));

    app.get('/.well-known/agent-skills/index.json', {
      schema: { tags, operationId: 'getAgentSkillsIndex', summary: 'The agent skills index of this instance', description: FAIL_CLOSED, response: { 200: SkillsIndexSchema, 404: errorEnvelopeSchema } },
    }, async (request, reply) => reply.type('application/json').send(buildSkillsIndex((await load(request, reply)).baseUrl)));
  };
}
