import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { accountIdOf } from '../../platform/http/principal.js';
import { RefParams } from '../customers/index.js';
import { IssuedCustomerKeySchema, KeyCreateSchema, KeyParams, OperatorCustomerKeySchema } from './keys-schema.js';
import * as service from './keys-service.js';

const tags = ['Customer keys (admin)'];
const base = '/api/v1/tanso/customers/:ref/keys';

/**
 * Admin API (JWT): the console's customer keys. The same use cases as the Client API's
 * `/api/v1/client/customers/{ref}/keys` (keys-service.ts over the accounts face); the list adds
 * each key's revocation time and last use.
 */
export function customerKeyAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(base, {
      schema: {
        tags,
        operationId: 'listCustomerKeysAdmin',
        summary: "A customer's keys, oldest first: hints, scopes, created, last used, revoked",
        params: RefParams,
        querystring: pageQuerySchema,
        response: { 200: envelopeSchema(pageSchema(OperatorCustomerKeySchema)) },
      },
    }, async (request) =>
      ok(await service.listOperatorKeyPage(ctx, { accountId: accountIdOf(request), ref: request.params.ref }, request.query)));

    app.post(base, {
      schema: {
        tags,
        operationId: 'createCustomerKeyAdmin',
        summary: 'Issue a customer-scoped key (the plaintext is in this answer only)',
        description: 'As createCustomerKey: scopes read and/or purchase (default read), the tenant key’s environment, 1825 days.',
        params: RefParams,
        body: KeyCreateSchema,
        response: { 201: envelopeSchema(IssuedCustomerKeySchema) },
      },
    }, async (request, reply) =>
      reply.code(201).send(ok(await service.createCustomerKey(ctx, { accountId: accountIdOf(request), ref: request.params.ref }, request.body?.scopes))));

    app.post(`${base}/:keyId/rotate`, {
      schema: {
        tags,
        operationId: 'rotateCustomerKeyAdmin',
        summary: 'Replace a key: it stops working at once and a new one with the same scopes is issued',
        description: 'A revoked key cannot be rotated (409); an expired one can. A key of another customer or account is 404.',
        params: KeyParams,
        response: { 200: envelopeSchema(IssuedCustomerKeySchema) },
      },
    }, async (request) =>
      ok(await service.rotateKey(ctx, { accountId: accountIdOf(request), ref: request.params.ref }, request.params.keyId)));

    app.delete(`${base}/:keyId`, {
      schema: {
        tags,
        operationId: 'revokeCustomerKeyAdmin',
        summary: 'Revoke a key (it answers 401 from now on); revoking it again is 200',
        params: KeyParams,
        response: { 200: emptyEnvelopeSchema },
      },
    }, async (request) => {
      await service.revokeKey(ctx, { accountId: accountIdOf(request), ref: request.params.ref }, request.params.keyId);
      return okEmpty();
    });
  };
}
