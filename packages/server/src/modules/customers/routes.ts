import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { envelopeSchema, ok } from '../../platform/http/envelope.js';
import { pageQuerySchema, pageSchema } from '../../platform/http/pagination.js';
import { accountIdOf, principalOf } from '../../platform/http/principal.js';
import { AdminCustomerSchema, ClientCustomerSchema, CustomerCreateSchema, CustomerListQuerySchema, CustomerUpdateSchema, RefParamsSchema } from './schema.js';
import * as service from './service.js';
import type { CustomerTarget } from './service.js';

const tags = ['Customers'];

/** The customer a `…/customers/:ref/…` route names, in the caller's account (customer keys, portal sessions). */
export const customerTargetOf = (request: FastifyRequest & { params: { ref: string } }): CustomerTarget => ({ accountId: accountIdOf(request), ref: request.params.ref });

const withSubscriptions = service.toClientCustomerView;

export function customerClientRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/client/customers', { schema: { tags, operationId: 'createCustomer', summary: 'Create a customer', body: CustomerCreateSchema, response: { 201: envelopeSchema(ClientCustomerSchema) } } },
      async (request, reply) => reply.code(201).send(ok(service.toClientCustomer(await service.createCustomer(ctx, accountIdOf(request), request.body)))));
    app.get('/api/v1/client/customers', { schema: { tags, operationId: 'listCustomers', summary: 'List customers, optionally by customerReferenceId', querystring: pageQuerySchema.extend(CustomerListQuerySchema.shape), response: { 200: envelopeSchema(pageSchema(ClientCustomerSchema)) } } },
      async (request) => ok(await service.listCustomerPage(ctx, accountIdOf(request), request.query.customerReferenceId, request.query)));
    app.get('/api/v1/client/customers/:ref', { config: { customerKey: 'read' }, schema: { tags, operationId: 'getCustomer', summary: 'A customer with its subscriptions', params: RefParamsSchema, response: { 200: envelopeSchema(ClientCustomerSchema) } } },
      async (request) => ok(await withSubscriptions(ctx, await service.resolveCallerCustomer(ctx.db, principalOf(request), request.params.ref))));
    app.patch('/api/v1/client/customers/:ref', { schema: { tags, operationId: 'updateCustomer', summary: 'Update a customer (only the fields sent)', params: RefParamsSchema, body: CustomerUpdateSchema, response: { 200: envelopeSchema(ClientCustomerSchema) } } },
      async (request) => ok(await withSubscriptions(ctx, await service.updateCustomer(ctx, accountIdOf(request), request.params.ref, request.body))));
  };
}

const adminTags = ['Customers (admin)'];

export function customerAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/monetization/customers', { schema: { tags: adminTags, operationId: 'createCustomerAdmin', summary: 'Create a customer', body: CustomerCreateSchema, response: { 201: envelopeSchema(AdminCustomerSchema) } } },
      async (request, reply) => reply.code(201).send(ok(service.toAdminCustomer(await service.createCustomer(ctx, accountIdOf(request), request.body)))));
    app.get('/api/v1/monetization/customers', { schema: { tags: adminTags, operationId: 'listCustomersAdmin', summary: 'Customers of the account', response: { 200: envelopeSchema(z.array(AdminCustomerSchema)) } } },
      async (request) => ok((await service.listAllCustomers(ctx, accountIdOf(request))).map(service.toAdminCustomer)));
    app.get('/api/v1/monetization/customers/:id', { schema: { tags: adminTags, operationId: 'getCustomerAdmin', summary: 'A customer by internal id', params: z.object({ id: z.uuid() }), response: { 200: envelopeSchema(AdminCustomerSchema) } } },
      async (request) => ok(service.toAdminCustomer(await service.getCustomerById(ctx.db, accountIdOf(request), request.params.id))));
    app.patch('/api/v1/monetization/customers/:id', { schema: { tags: adminTags, operationId: 'updateCustomerAdmin', summary: 'Update a customer by internal id (only the fields sent)', params: z.object({ id: z.uuid() }), body: CustomerUpdateSchema, response: { 200: envelopeSchema(AdminCustomerSchema) } } },
      async (request) => ok(service.toAdminCustomer(await service.updateCustomerById(ctx, accountIdOf(request), request.params.id, request.body))));
  };
}
