import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { publicBaseUrl } from '../../platform/http/base-url.js';
import { envelopeSchema, ok } from '../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { principalOf } from '../../platform/http/principal.js';
import { customerTargetOf, RefParamsSchema } from '../customers/index.js';
import { IssuedPortalSessionSchema, OwnPortalSessionSchema, PortalSessionCreateSchema, PortalSessionParamsSchema, PortalSessionSchema } from './schema.js';
import * as service from './service.js';

const tags = ['Customer portal'];
const base = '/api/v1/client/customers/:ref/portal-sessions';

/**
 * Client API. Portal sessions are opened, listed and revoked with the tenant key only (no
 * `config.customerKey`: a customer key or a portal token gets 403 Access denied); the portal page
 * reads its own session with its token (ADR 0025).
 */
export function portalRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(base, {
      schema: {
        tags,
        operationId: 'createPortalSession',
        summary: 'Open a customer portal link (its token is in this answer only)',
        description:
          'The body is optional; unknown fields are 400. The link opens /portal of this service for this one customer, with the read scope and one scope per permission flag that is true: ' +
          'allowPurchase → purchase (credit top-ups), allowPlanChange → plan_change (catalog, subscribe, plan change), allowCancel → cancel (at the end of the period, and its undo), allowAutoTopup → auto_topup (auto top-up rules). ' +
          'Saving a card (setup checkout) needs any of purchase, plan_change or auto_topup. ' +
          'It works until expiresAt (default 1 hour, 60 to 86,400 seconds) or until revoked; after that its token answers 401 portal_link_expired.',
        params: RefParamsSchema,
        body: PortalSessionCreateSchema,
        response: { 201: envelopeSchema(IssuedPortalSessionSchema) },
      },
    }, async (request, reply) =>
      reply.code(201).send(ok(await service.createPortalSession(ctx, customerTargetOf(request), request.body, publicBaseUrl(ctx.config.publicBaseUrl, request)))));

    app.get(base, {
      schema: {
        tags,
        operationId: 'listPortalSessions',
        summary: "A customer's portal sessions, newest first: token hints only, ended ones with active false",
        params: RefParamsSchema,
        querystring: pageQuerySchema,
        response: { 200: envelopeSchema(pageSchema(PortalSessionSchema)) },
      },
    }, async (request) => ok(await service.listPortalSessionPage(ctx, customerTargetOf(request), request.query)));

    app.delete(`${base}/:sessionId`, {
      schema: {
        tags,
        operationId: 'revokePortalSession',
        summary: 'Revoke a portal link: its token answers 401 portal_link_expired from now on; revoking it again is 200',
        params: PortalSessionParamsSchema,
        response: { 200: envelopeSchema(PortalSessionSchema) },
      },
    }, async (request) => ok(await service.revokeSession(ctx, customerTargetOf(request), request.params.sessionId)));

    app.get('/api/v1/client/portal/session', {
      config: { customerKey: 'read' },
      schema: {
        tags,
        operationId: 'getOwnPortalSession',
        summary: "The portal session of the calling portal token: its customer, scopes and expiry, the seller's name and the pools a top-up can go through",
        description: 'Called by the portal page with its token. Any other credential (a tenant or customer key) is 404.',
        response: { 200: envelopeSchema(OwnPortalSessionSchema) },
      },
    }, async (request) => ok(await service.getCallerPortalSession(ctx, principalOf(request))));
  };
}
