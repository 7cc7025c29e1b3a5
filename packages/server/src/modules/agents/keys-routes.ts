import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { accountIdOf } from '../../platform/http/principal.js';
import { RefParams } from '../customers/index.js';
import { CustomerKeySchema, IssuedCustomerKeySchema, KeyCreateSchema, KeyParams } from './keys-schema.js';
import * as service from './keys-service.js';

const tags = ['Customer keys'];
const base = '/api/v1/client/customers/:ref/keys';

/**
 * Client API, tenant key only (no `config.customerKey`: a customer key gets 403 Access denied):
 * issue, list, rotate and revoke a customer's scoped keys (contract §2.4).
 */
export function customerKeyRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(base, {
      schema: {
        tags,
        operationId: 'createCustomerKey',
        summary: 'Issue a customer-scoped key (the plaintext is in this answer only)',
        description: 'The body is optional. The key is pinned to the customer and takes the environment of the tenant key (ck_test_ or ck_live_); it expires 1825 days after issue.',
        params: RefParams,
        body: KeyCreateSchema,
        response: { 201: envelopeSchema(IssuedCustomerKeySchema) },
      },
    }, async (request, reply) =>
      reply.code(201).send(ok(await service.createCustomerKey(ctx, { accountId: accountIdOf(request), ref: request.params.ref }, request.body?.scopes))));

    app.get(base, {
      schema: {
        tags,
        operationId: 'listCustomerKeys',
        summary: "A customer's keys, oldest first: hints only, revoked and expired ones with active false",
        params: RefParams,
        querystring: pageQuerySchema,
        response: { 200: envelopeSchema(pageSchema(CustomerKeySchema)) },
      },
    }, async (request) =>
      ok(await service.listCustomerKeyPage(ctx, { accountId: accountIdOf(request), ref: request.params.ref }, request.query)));

    app.post(`${base}/:keyId/rotate`, {
      schema: {
        tags,
        operationId: 'rotateCustomerKey',
        summary: 'Replace a key: it stops working at once and a new one with the same scopes is issued',
        description: "Other keys of the customer are untouched. A revoked key cannot be rotated (409); an expired one can. A key of another customer or account is 404.",
        params: KeyParams,
        response: { 200: envelopeSchema(IssuedCustomerKeySchema) },
      },
    }, async (request) =>
      ok(await service.rotateKey(ctx, { accountId: accountIdOf(request), ref: request.params.ref }, request.params.keyId)));

    app.delete(`${base}/:keyId`, {
      schema: {
        tags,
        operationId: 'revokeCustomerKey',
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
