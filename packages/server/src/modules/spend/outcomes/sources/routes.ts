import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, errorEnvelopeSchema, ok, okEmpty } from '../../../../platform/http/envelope.js';
import { accountIdOf } from '../../../../platform/http/principal.js';
import { ProbeResultSchema, SyncQuery, SyncResultSchema } from '../../connections/schema.js';
import { createSource, deleteSource, listSources, probeSource, syncSource } from './service.js';
import { LINEAR_NOT_SUPPORTED, MAX_SOURCE_LABEL, MAX_SOURCE_REPOS, MAX_SOURCE_SCOPE, MAX_SOURCE_TOKEN } from './domain.js';
import { syncWindowOf } from '../../sync/domain.js';

const tags = ['Spend outcomes'];
const base = '/api/v1/spend/outcome-sources';
const IdParams = z.object({ id: z.uuid() });
const GITHUB_502 = 'GitHub refused: 502 vendor_error with its message; the source turns ERROR with lastError set.';

const CreateSourceSchema = z.object({
  source: z.enum(['GITHUB', 'LINEAR']).describe(`GITHUB: merged pull requests. ${LINEAR_NOT_SUPPORTED} (400).`),
  label: z.string().max(4 * MAX_SOURCE_LABEL).meta({ maxLength: MAX_SOURCE_LABEL, description: `Required, at most ${MAX_SOURCE_LABEL} characters (trimmed)` }),
  token: z.string().max(MAX_SOURCE_TOKEN).describe('GitHub token that can read the repositories. Write-only, encrypted.'),
  scope: z.string().max(MAX_SOURCE_SCOPE).nullish().describe(`GITHUB: owner/repo, comma separated (at most ${MAX_SOURCE_REPOS}); required`),
  defaultSpendUnitId: z.uuid().nullish().describe('Unit for pulled outcomes whose author matches no PERSON unit'),
});

const SourceSchema = z
  .object({
    id: z.uuid(),
    source: z.enum(['GITHUB', 'LINEAR']),
    label: z.string(),
    scope: z.string(),
    defaultSpendUnitId: z.uuid().nullable(),
    status: z.enum(['ACTIVE', 'ERROR']),
    lastError: z.string().nullable().describe("GitHub's message while status is ERROR"),
    lastSyncedAt: z.date().nullable(),
    createdAt: z.date(),
  })
  .meta({ id: 'SpendOutcomeSource' });

/** Outcome sources (contract §7.7; JWT). */
export function outcomeSourceRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(base, {
      schema: { tags, operationId: 'listSpendOutcomeSources', summary: 'Outcome sources, oldest first', response: { 200: envelopeSchema(z.array(SourceSchema)) } },
    }, async (request) => ok(await listSources(ctx, accountIdOf(request))));
    app.post(base, {
      schema: {
        tags, operationId: 'createSpendOutcomeSource', summary: 'Connect an outcome source (the token is checked with one search)',
        description: `The source is stored even when GitHub refuses; ${GITHUB_502} The 502 body carries the source in \`data\`.`,
        body: CreateSourceSchema, response: { 201: envelopeSchema(SourceSchema), 502: errorEnvelopeSchema },
      },
    }, async (request, reply) => reply.code(201).send(ok(await createSource(ctx, accountIdOf(request), request.body))));
    app.post(`${base}/:id/probe`, {
      schema: {
        tags, operationId: 'probeSpendOutcomeSource', summary: 'Check the stored token and repositories with one search',
        description: `${GITHUB_502} Its \`data\` is \`{ ok: false, message }\`.`,
        params: IdParams, response: { 200: envelopeSchema(ProbeResultSchema), 502: errorEnvelopeSchema },
      },
    }, async (request) => ok(await probeSource(ctx, accountIdOf(request), request.params.id)));
    app.post(`${base}/:id/sync`, {
      schema: {
        tags, operationId: 'syncSpendOutcomeSource', summary: 'Pull the pull requests merged in [from, to) (re-pulls upsert)',
        description: `connectionId is the source's id. ${GITHUB_502} The 502 body carries the source in \`data\`.`,
        params: IdParams, querystring: SyncQuery, response: { 200: envelopeSchema(SyncResultSchema), 502: errorEnvelopeSchema },
      },
    }, async (request) => ok(await syncSource(ctx, { accountId: accountIdOf(request), sourceId: request.params.id, window: syncWindowOf(request.query, ctx.clock.now()) })));
    app.delete(`${base}/:id`, {
      schema: { tags, operationId: 'deleteSpendOutcomeSource', summary: 'Delete the source and the outcomes it pulled (posted outcomes stay)', params: IdParams, response: { 200: emptyEnvelopeSchema } },
    }, async (request) => okEmpty(await deleteSource(ctx, accountIdOf(request), request.params.id)));
  };
}
