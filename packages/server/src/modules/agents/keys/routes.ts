import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../../platform/http/pagination.js';
import { customerTargetOf, RefParamsSchema, type CustomerTarget } from '../../customers/index.js';
import { accountIdOf, principalOf } from '../../../platform/http/principal.js';
import { AdminBudgetParamsSchema, BudgetParamsSchema, BudgetPutSchema, KeyBudgetSchema } from './budget-schema.js';
import * as budgets from './budget-service.js';
import { AdminKeyParamsSchema, CustomerIdParamsSchema, CustomerKeySchema, IssuedCustomerKeySchema, KeyCreateSchema, KeyParamsSchema, OperatorCustomerKeySchema } from './schema.js';
import * as service from './service.js';

/**
 * One customer's keys as one surface declares them: the Client API (tenant key, the customer by
 * `{ref}`) and the Admin API (the console's JWT, the customer by our internal `{customerId}`,
 * api-contract-agent-v2.md §2.1) run the same use cases (service.ts over the accounts face) under
 * their own paths, tags and operation ids. The admin twin resolves its customer within the
 * operator's account and then behaves exactly like the Client API route for that reference.
 */
type KeySurface = {
  tags: string[];
  base: string;
  /** Appended to every operationId (the admin twin of `createCustomerKey` is `createCustomerKeyAdmin`). */
  suffix: string;
  customerParams: typeof RefParamsSchema | typeof CustomerIdParamsSchema;
  keyParams: typeof KeyParamsSchema | typeof AdminKeyParamsSchema;
  budgetParams: typeof BudgetParamsSchema | typeof AdminBudgetParamsSchema;
  /** The customer the path names, as the Client API's target (its reference). */
  targetOf: (request: FastifyRequest) => Promise<CustomerTarget>;
  /** Whether GET …/budget is open to the customer key `{keyId}` itself (§2.9: the Client API's only). */
  ownBudgetRead: boolean;
  createDescription: string;
  rotateDescription: string;
};

const clientSurface = (): KeySurface => ({
  tags: ['Customer keys'],
  base: '/api/v1/client/customers/:ref/keys',
  suffix: '',
  customerParams: RefParamsSchema,
  keyParams: KeyParamsSchema,
  budgetParams: BudgetParamsSchema,
  targetOf: async (request) => customerTargetOf(request as FastifyRequest & { params: { ref: string } }),
  ownBudgetRead: true,
  createDescription: 'The body is optional. The key is pinned to the customer and takes the environment of the tenant key (ck_test_ or ck_live_); it expires 1825 days after issue.',
  rotateDescription: 'Other keys of the customer are untouched. A revoked key cannot be rotated (409); an expired one can. A key of another customer or account is 404.',
});

const adminSurface = (ctx: AppContext): KeySurface => ({
  tags: ['Customer keys (admin)'],
  base: '/api/v1/tanso/customers/:customerId/keys',
  suffix: 'Admin',
  customerParams: CustomerIdParamsSchema,
  keyParams: AdminKeyParamsSchema,
  budgetParams: AdminBudgetParamsSchema,
  targetOf: (request) => service.customerTargetById(ctx, accountIdOf(request), (request.params as { customerId: string }).customerId),
  ownBudgetRead: false,
  createDescription:
    'As createCustomerKey, for the customer with this internal id: scopes read and/or purchase (default read), the tenant key’s environment, 1825 days. Another account’s or an unknown customer is 404; a customer without a reference is 400.',
  rotateDescription: 'A revoked key cannot be rotated (409); an expired one can. A key of another customer or account is 404.',
});

/** Issue, rotate, revoke, and the key's budget: the routes both surfaces share (each adds its own list). */
function keyRoutes(ctx: AppContext, surface: KeySurface): FastifyPluginAsyncZod {
  const { tags, base, suffix, targetOf } = surface;
  return async (app) => {
    app.post(base, {
      schema: {
        tags,
        operationId: `createCustomerKey${suffix}`,
        summary: 'Issue a customer-scoped key (the plaintext is in this answer only)',
        description: surface.createDescription,
        params: surface.customerParams,
        body: KeyCreateSchema,
        response: { 201: envelopeSchema(IssuedCustomerKeySchema) },
      },
    }, async (request, reply) =>
      reply.code(201).send(ok(await service.createCustomerKey(ctx, await targetOf(request), request.body?.scopes))));

    app.post(`${base}/:keyId/rotate`, {
      schema: {
        tags,
        operationId: `rotateCustomerKey${suffix}`,
        summary: 'Replace a key: it stops working at once and a new one with the same scopes is issued',
        description: surface.rotateDescription,
        params: surface.keyParams,
        response: { 200: envelopeSchema(IssuedCustomerKeySchema) },
      },
    }, async (request) =>
      ok(await service.rotateKey(ctx, await targetOf(request), request.params.keyId)));

    app.delete(`${base}/:keyId`, {
      schema: {
        tags,
        operationId: `revokeCustomerKey${suffix}`,
        summary: 'Revoke a key (it answers 401 from now on); revoking it again is 200',
        params: surface.keyParams,
        response: { 200: emptyEnvelopeSchema },
      },
    }, async (request) => okEmpty(await service.revokeKey(ctx, await targetOf(request), request.params.keyId)));

    // Per-key budgets (api-contract-agent-v2.md §2.1): only the tenant (or the console) sets or clears
    // one; a customer key may read its own on the Client API (§2.9).
    app.put(`${base}/:keyId/budget`, {
      schema: {
        tags,
        operationId: `setCustomerKeyBudget${suffix}`,
        summary: "Set a customer key's budget (credits and/or money per window); both limits are replaced",
        description: 'An axis left out is unlimited; 0 is a real limit. A new period restarts the window now; the same period keeps the window and what was spent in it. Clears the alert stamp.',
        params: surface.budgetParams,
        body: BudgetPutSchema,
        response: { 200: envelopeSchema(KeyBudgetSchema) },
      },
    }, async (request) => ok(await budgets.setBudget(ctx, await targetOf(request), request.params.keyId, request.body)));

    app.get(`${base}/:keyId/budget`, {
      ...(surface.ownBudgetRead ? { config: { customerKey: 'read' as const } } : {}),
      schema: {
        tags,
        operationId: `getCustomerKeyBudget${suffix}`,
        summary: surface.ownBudgetRead
          ? "A customer key's budget and what it spent in the current window (a customer key: its own only)"
          : "A customer key's budget and what it spent in the current window",
        params: surface.budgetParams,
        response: { 200: envelopeSchema(KeyBudgetSchema) },
      },
    }, async (request) => ok(await budgets.readBudget(ctx, principalOf(request), await targetOf(request), request.params.keyId)));

    app.delete(`${base}/:keyId/budget`, {
      schema: {
        tags,
        operationId: `clearCustomerKeyBudget${suffix}`,
        summary: "Remove a customer key's budget (200 also when it had none)",
        params: surface.budgetParams,
        response: { 200: emptyEnvelopeSchema },
      },
    }, async (request) => okEmpty(await budgets.clearBudget(ctx, await targetOf(request), request.params.keyId)));
  };
}

/**
 * Client API, tenant key only (no `config.customerKey`: a customer key gets 403 Access denied, but
 * for reading its own budget): issue, list, rotate and revoke a customer's scoped keys (contract
 * §2.4) and set, read and clear their budgets (agent v2 §2.1).
 */
export function customerKeyRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const surface = clientSurface();
  return async (app) => {
    await app.register(keyRoutes(ctx, surface));
    app.get(surface.base, {
      schema: {
        tags: surface.tags,
        operationId: 'listCustomerKeys',
        summary: "A customer's keys, oldest first: hints only, revoked and expired ones with active false",
        params: RefParamsSchema,
        querystring: pageQuerySchema,
        response: { 200: envelopeSchema(pageSchema(CustomerKeySchema)) },
      },
    }, async (request) => ok(await service.listCustomerKeyPage(ctx, customerTargetOf(request), request.query)));
  };
}

/**
 * Admin API (JWT): the console's customer keys by our internal customer id (agent v2 §2.1), the
 * same use cases as the Client API's `/api/v1/client/customers/{ref}/keys`; the list is a bare
 * array in the operator's view (each key's revocation time and last use).
 */
export function customerKeyAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const surface = adminSurface(ctx);
  return async (app) => {
    await app.register(keyRoutes(ctx, surface));
    app.get(surface.base, {
      schema: {
        tags: surface.tags,
        operationId: 'listCustomerKeysAdmin',
        summary: "A customer's keys, oldest first, as a bare array: hints, scopes, created, last used, revoked (never the key itself)",
        params: CustomerIdParamsSchema,
        response: { 200: envelopeSchema(z.array(OperatorCustomerKeySchema)) },
      },
    }, async (request) => ok(await service.listOperatorKeys(ctx, await surface.targetOf(request))));
  };
}
