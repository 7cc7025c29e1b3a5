import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, errorEnvelopeSchema, ok, okEmpty } from '../../platform/http/envelope.js';
import { adminOf, principalOf } from '../../platform/http/principal.js';
import { ApiKeySchema, ChangePasswordRequestSchema, LoginRequestSchema, LoginResponseSchema } from './schema.js';
import * as service from './service.js';

export function accountRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const account = { tags: ['Account'] };
    // 429 rate_limited with Retry-After: the login throttle (modules/accounts/README.md).
    app.post('/public/v1/login', { schema: { tags: ['Authentication'], operationId: 'logIn', summary: 'Log in with an operator username and password; returns a JWT for the Admin API', body: LoginRequestSchema, response: { 200: envelopeSchema(LoginResponseSchema), 429: errorEnvelopeSchema } } },
      async (request) => ok(await service.login(ctx, { ...request.body, ip: request.ip })));
    app.get('/api/v1/account/api-key', { schema: { ...account, operationId: 'getTenantApiKey', summary: "The account's tenant key, masked", response: { 200: envelopeSchema(ApiKeySchema) } } },
      async (request) => ok(await service.getMaskedTenantKey(ctx, principalOf(request).accountId)));
    app.post('/api/v1/account/api-key', { schema: { ...account, operationId: 'rotateTenantApiKey', summary: 'Rotate the tenant key: returns the new key once and revokes every earlier one', response: { 200: envelopeSchema(ApiKeySchema) } } },
      async (request) => ok(await service.rotateTenantKey(ctx, principalOf(request).accountId)));
    app.post('/api/v1/account/change-password', { schema: { ...account, operationId: 'changePassword', summary: "Change the logged-in operator's password", body: ChangePasswordRequestSchema, response: { 200: emptyEnvelopeSchema } } },
      async (request) => {
        const principal = adminOf(request);
        return okEmpty(await service.changePassword(ctx, { accountId: principal.accountId, userId: principal.userId, ...request.body }));
      });
  };
}
