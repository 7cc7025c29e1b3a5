import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, errorEnvelopeSchema, ok, okEmpty } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { createConnection, deleteConnection, getConnectionRow, listConnections, probeConnection, replaceConnectionKey, toConnectionView } from './service.js';
import { ConnectionIdParams, ConnectionSchema, CreateConnectionSchema, ProbeResultSchema, ReplaceKeySchema, SyncQuery, SyncResultSchema } from './schema.js';
import { syncConnection } from '../sync/service.js';
import { syncWindowOf } from '../sync/domain.js';

const tags = ['Spend connections'];
const base = '/api/v1/spend/connections';
const VENDOR_502 = 'The vendor refused: 502 vendor_error with its message; `data` carries the connection (status ERROR, lastError set).';

/** Vendor connections (contract §7.2). */
export function connectionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(base, {
      schema: { tags, operationId: 'listSpendConnections', summary: 'The vendor connections, oldest first', response: { 200: envelopeSchema(z.array(ConnectionSchema)) } },
    }, async (request) => ok(await listConnections(ctx, accountIdOf(request))));
    app.get(`${base}/:id`, {
      schema: { tags, operationId: 'getSpendConnection', summary: 'One vendor connection', params: ConnectionIdParams, response: { 200: envelopeSchema(ConnectionSchema) } },
    }, async (request) => ok(toConnectionView(await getConnectionRow(ctx, accountIdOf(request), request.params.id))));
    app.post(base, {
      schema: {
        tags, operationId: 'createSpendConnection', summary: 'Connect a vendor admin API (the key is checked with one vendor call)',
        description: `The connection is stored even when the vendor refuses the key. ${VENDOR_502} Its first 30 days are synced in the background.`,
        body: CreateConnectionSchema, response: { 201: envelopeSchema(ConnectionSchema), 502: errorEnvelopeSchema },
      },
    }, async (request, reply) => reply.status(201).send(ok(await createConnection(ctx, accountIdOf(request), request.body))));
    app.post(`${base}/:id/probe`, {
      schema: {
        tags, operationId: 'probeSpendConnection', summary: 'Check the stored key with one vendor call',
        description: 'A refusal is 502 vendor_error whose `data` is `{ ok: false, message }`; the connection turns ERROR.',
        params: ConnectionIdParams, response: { 200: envelopeSchema(ProbeResultSchema), 502: errorEnvelopeSchema },
      },
    }, async (request) => ok(await probeConnection(ctx, accountIdOf(request), request.params.id)));
    app.post(`${base}/:id/sync`, {
      schema: {
        tags, operationId: 'syncSpendConnection', summary: 'Pull usage and costs for [from, to) in chunks of at most 31 days (Cursor 30)',
        description: `Each chunk replaces the connection's rows in its window in one transaction; a chunk that comes back empty where rows are stored keeps them and ends the connection in ERROR (502). ${VENDOR_502}`,
        params: ConnectionIdParams, querystring: SyncQuery, response: { 200: envelopeSchema(SyncResultSchema), 502: errorEnvelopeSchema },
      },
    }, async (request) => {
      const window = syncWindowOf(request.query, ctx.clock.now());
      return ok(await syncConnection(ctx, { accountId: accountIdOf(request), connectionId: request.params.id, window, log: request.log }));
    });
    app.put(`${base}/:id/key`, {
      schema: { tags, operationId: 'replaceSpendConnectionKey', summary: 'Replace the admin key in place (ACTIVE again, pulled usage kept)', params: ConnectionIdParams, body: ReplaceKeySchema, response: { 200: envelopeSchema(ConnectionSchema) } },
    }, async (request) => ok(await replaceConnectionKey(ctx, accountIdOf(request), request.params.id, request.body.adminKey)));
    app.delete(`${base}/:id`, {
      schema: { tags, operationId: 'deleteSpendConnection', summary: 'Delete the connection (soft): its key blanked, everything it pulled removed', params: ConnectionIdParams, response: { 200: emptyEnvelopeSchema } },
    }, async (request) => okEmpty(await deleteConnection(ctx, accountIdOf(request), request.params.id)));
  };
}
