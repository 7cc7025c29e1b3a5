import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { SESSION_COOKIE } from '../../platform/http/auth.js';
import { emptyEnvelopeSchema, envelopeSchema, errorEnvelopeSchema, ok, okEmpty } from '../../platform/http/envelope.js';
import { adminOf, principalOf } from '../../platform/http/principal.js';
import {
  ApiKeySchema,
  ChangePasswordRequestSchema,
  InvitedOperatorSchema,
  InviteOperatorRequestSchema,
  LoginRequestSchema,
  LoginResponseSchema,
  OperatorSchema,
  OperatorSessionSchema,
  UpdateOperatorRequestSchema,
} from './schema.js';
import * as operators from './operators.js';
import * as service from './service.js';
import { describeSession, endSession, SESSION_TTL_SECONDS } from './sessions.js';

/** The session cookie (ADR 0034): HttpOnly, SameSite=Strict, Secure when the request came over https. */
function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('Set-Cookie', `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`);
}

export function accountRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const account = { tags: ['Account'] };
    const users = { tags: ['Users'] };
    // 429 rate_limited with Retry-After: the login throttle (modules/accounts/README.md).
    app.post('/public/v1/login', { schema: { tags: ['Authentication'], operationId: 'logIn', summary: 'Log in with an operator username and password; returns a JWT for the Admin API', body: LoginRequestSchema, response: { 200: envelopeSchema(LoginResponseSchema), 429: errorEnvelopeSchema } } },
      async (request) => ok(await service.login(ctx, { ...request.body, ip: request.ip })));
    app.post('/public/v1/sessions', { schema: { tags: ['Authentication'], operationId: 'signIn', summary: "Sign in to the console: sets the HttpOnly session cookie and returns the session with its CSRF token", body: LoginRequestSchema, response: { 200: envelopeSchema(OperatorSessionSchema), 429: errorEnvelopeSchema } } },
      async (request, reply) => {
        const { token, session } = await service.signIn(ctx, { ...request.body, ip: request.ip });
        setSessionCookie(request, reply, token, SESSION_TTL_SECONDS);
        return ok(session);
      });
    app.get('/api/v1/session', { schema: { ...account, operationId: 'getSession', summary: 'Who is signed in, until when, and the CSRF token for state-changing calls', response: { 200: envelopeSchema(OperatorSessionSchema) } } },
      async (request) => ok(await describeSession(ctx, adminOf(request))));
    app.delete('/api/v1/session', { schema: { ...account, operationId: 'signOut', summary: 'Sign out: ends the console session on the server and clears its cookie', response: { 200: emptyEnvelopeSchema } } },
      async (request, reply) => {
        await endSession(ctx, adminOf(request));
        setSessionCookie(request, reply, '', 0);
        return okEmpty(undefined);
      });
    app.get('/api/v1/account/api-key', { schema: { ...account, operationId: 'getTenantApiKey', summary: "The account's tenant key, masked", response: { 200: envelopeSchema(ApiKeySchema) } } },
      async (request) => ok(await service.getMaskedTenantKey(ctx, principalOf(request).accountId)));
    app.post('/api/v1/account/api-key', { schema: { ...account, operationId: 'rotateTenantApiKey', summary: 'Rotate the tenant key: returns the new key once and revokes every earlier one', response: { 200: envelopeSchema(ApiKeySchema) } } },
      async (request) => ok(await service.rotateTenantKey(ctx, principalOf(request).accountId)));
    app.post('/api/v1/account/change-password', { schema: { ...account, operationId: 'changePassword', summary: "Change the logged-in operator's password", body: ChangePasswordRequestSchema, response: { 200: emptyEnvelopeSchema } } },
      async (request) => {
        const principal = adminOf(request);
        return okEmpty(await service.changePassword(ctx, { accountId: principal.accountId, userId: principal.userId, ...request.body }));
      });
    app.get('/api/v1/users', { schema: { ...users, operationId: 'listUsers', summary: "The account's operators (owner only)", response: { 200: envelopeSchema(z.array(OperatorSchema)) } } },
      async (request) => ok(await operators.listOperators(ctx, adminOf(request).accountId)));
    app.post('/api/v1/users', { config: { ownAudit: true }, schema: { ...users, operationId: 'inviteUser', summary: 'Invite an operator with a role; returns a one-time password, shown once (owner only)', body: InviteOperatorRequestSchema, response: { 201: envelopeSchema(InvitedOperatorSchema) } } },
      async (request, reply) => reply.code(201).send(ok(await operators.inviteOperator(ctx, adminOf(request), request.body))));
    app.patch('/api/v1/users/:userId', { config: { ownAudit: true }, schema: { ...users, operationId: 'updateUser', summary: "Change an operator's role, disable or enable it; the account keeps at least one active owner (owner only)", params: z.object({ userId: z.uuid() }), body: UpdateOperatorRequestSchema, response: { 200: envelopeSchema(OperatorSchema) } } },
      async (request) => ok(await operators.updateOperator(ctx, adminOf(request), request.params.userId, request.body)));
  };
}
