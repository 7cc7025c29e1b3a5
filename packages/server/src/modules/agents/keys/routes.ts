import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../../platform/http/pagination.js';
import { customerTargetOf, RefParamsSchema } from '../../customers/index.js';
import { CustomerKeySchema, IssuedCustomerKeySchema, KeyCreateSchema, KeyParamsSchema, OperatorCustomerKeySchema } from './schema.js';
import * as service from './service.js';

/**
 * One customer's keys as one surface declares them: the Client API (tenant key) and the Admin API
 * (the console's JWT) run the same use cases (service.ts over the accounts face) under their
 * own paths, tags and operation ids; the admin list adds each key's revocation time and last use.
 */
type KeySurface = {
  tags: string[];
  base: string;
  /** Appended to every operationId (the admin twin of `createCustomerKey` is `createCustomerKeyAdmin`). */
  suffix: string;
  /** The list shows the operator's view (revocation, last use) rather than the Client API's key object. */
  operatorView: boolean;
  listSummary: string;
  createDescription: string;
  rotateDescription: string;
};

const clientSurface: KeySurface = {
  tags: ['Customer keys'],
  base: '/api/v1/client/customers/:ref/keys',
  suffix: '',
  operatorView: false,
  listSummary: "A customer's keys, oldest first: hints only, revoked and expired ones with active false",
  createDescription: 'The body is optional. The key is pinned to the customer and takes the environment of the tenant key (ck_test_ or ck_live_); it expires 1825 days after issue.',
  rotateDescription: 'Other keys of the customer are untouched. A revoked key cannot be rotated (409); an expired one can. A key of another customer or account is 404.',
};

const adminSurface: KeySurface = {
  tags: ['Customer keys (admin)'],
  base: '/api/v1/tanso/customers/:ref/keys',
  suffix: 'Admin',
  operatorView: true,
  listSummary: "A customer's keys, oldest first: hints, scopes, created, last used, revoked",
  createDescription: 'As createCustomerKey: scopes read and/or purchase (default read), the tenant key’s environment, 1825 days.',
  rotateDescription: 'A revoked key cannot be rotated (409); an expired one can. A key of another customer or account is 404.',
};

function keyRoutes(ctx: AppContext, surface: KeySurface): FastifyPluginAsyncZod {
  const { tags, base, suffix } = surface;
  const listPage = surface.operatorView ? service.listOperatorKeyPage : service.listCustomerKeyPage;
  return async (app) => {
    app.post(base, {
      schema: {
        tags,
        operationId: `createCustomerKey${suffix}`,
        summary: 'Issue a customer-scoped key (the plaintext is in this answer only)',
        description: surface.createDescription,
        params: RefParamsSchema,
        body: KeyCreateSchema,
        response: { 201: envelopeSchema(IssuedCustomerKeySchema) },
      },
    }, async (request, reply) =>
      reply.code(201).send(ok(await service.createCustomerKey(ctx, customerTargetOf(request), request.body?.scopes))));

    app.get(base, {
      schema: {
        tags,
        operationId: `listCustomerKeys${suffix}`,
        summary: surface.listSummary,
        params: RefParamsSchema,
        querystring: pageQuerySchema,
        response: { 200: envelopeSchema(pageSchema(surface.operatorView ? OperatorCustomerKeySchema : CustomerKeySchema)) },
      },
    }, async (request) => ok(await listPage(ctx, customerTargetOf(request), request.query)));

    app.post(`${base}/:keyId/rotate`, {
      schema: {
        tags,
        operationId: `rotateCustomerKey${suffix}`,
        summary: 'Replace a key: it stops working at once and a new one with the same scopes is issued',
        description: surface.rotateDescription,
        params: KeyParamsSchema,
        response: { 200: envelopeSchema(IssuedCustomerKeySchema) },
      },
    }, async (request) =>
      ok(await service.rotateKey(ctx, customerTargetOf(request), request.params.keyId)));

    app.delete(`${base}/:keyId`, {
      schema: {
        tags,
        operationId: `revokeCustomerKey${suffix}`,
        summary: 'Revoke a key (it answers 401 from now on); revoking it again is 200',
        params: KeyParamsSchema,
        response: { 200: emptyEnvelopeSchema },
      },
    }, async (request) => okEmpty(await service.revokeKey(ctx, customerTargetOf(request), request.params.keyId)));
  };
}

/**
 * Client API, tenant key only (no `config.customerKey`: a customer key gets 403 Access denied):
 * issue, list, rotate and revoke a customer's scoped keys (contract §2.4).
 */
export const customerKeyRoutes = (ctx: AppContext): FastifyPluginAsyncZod => keyRoutes(ctx, clientSurface);

/**
 * Admin API (JWT): the console's customer keys, the same use cases as the Client API's
 * `/api/v1/client/customers/{ref}/keys`; the list adds each key's revocation time and last use.
 */
export const customerKeyAdminRoutes = (ctx: AppContext): FastifyPluginAsyncZod => keyRoutes(ctx, adminSurface);
