import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { lazyChildLogger } from './platform/http/lazy-logger.js';
import {
  createJsonSchemaTransform,
  jsonSchemaTransformObject,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { randomUUID } from 'node:crypto';
import * as accounts from './modules/accounts/index.js';
import { agentDiscoveryRoutes, agentPublicRoutes, agentStatusRoutes, customerKeyAdminRoutes, customerKeyRoutes } from './modules/agents/index.js';
import { billingAdminRoutes, billingClientRoutes } from './modules/billing/index.js';
import { catalogAdminRoutes, catalogClientRoutes } from './modules/catalog/index.js';
import { creditAdminRoutes, creditClientRoutes, tariffAdminRoutes, tariffClientRoutes } from './modules/credits/index.js';
import { customerAdminRoutes, customerClientRoutes, findCustomerById } from './modules/customers/index.js';
import { healthRoutes } from './modules/health/index.js';
import { mcpRoutes } from './modules/mcp/index.js';
import { checkoutReturnRoutes, paymentAdminRoutes, paymentClientRoutes, paymentWebhookRoutes } from './modules/payments/index.js';
import { portalRoutes } from './modules/portal/index.js';
import { recordAudit, settingsAdminRoutes } from './modules/settings/index.js';
import { webhookRoutes } from './modules/webhooks/index.js';
import { spendRoutes } from './modules/spend/index.js';
import { usageAdminRoutes, usageClientRoutes } from './modules/usage/index.js';
import type { AppContext } from './platform/context.js';
import { registerAuth } from './platform/http/auth.js';
import { consoleFallback, consoleRoutes, DEFAULT_CONSOLE_DIR } from './platform/http/console.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './platform/http/error-handler.js';
import { registerIdempotency } from './platform/http/idempotency.js';
import { nodeIdentity, registerBoot, type NodeBoot } from './platform/node-boot.js';
import { publicBaseUrl } from './platform/http/base-url.js';
import { assertCleanStrings, assertScannedDepth, MAX_PATH_PARAM_LENGTH, mayHoldBadStrings, registerInputGuards } from './platform/http/input-guard.js';
import { parseJson, scanJson, stringifyJson } from './platform/http/json.js';
import { portalNeedOf, type PortalNeed } from './platform/http/portal-access.js';
import type { CustomerScope } from './platform/http/principal.js';
import { surfaceOf } from './platform/http/surfaces.js';
import { operatorAccessOf, type OperatorAccess } from './platform/http/operator-access.js';
import { allowedMethodsFrom } from './platform/http/route-methods.js';
import { describeRouteForOpenApi, OPENAPI_DOCUMENT, openApiServers, withOptionalBodies, withoutUnusedComponents, withTextResponses } from './platform/http/openapi.js';

export type BuildAppOptions = {
  /** Where logs go (default stdout); tests capture them. */
  logStream?: NodeJS.WritableStream;
  /** Extra routes, registered with the rest (tests use it to exercise platform mechanisms). */
  extraRoutes?: (app: FastifyInstance) => unknown;
  /** The console's build directory (default apps/console/dist); tests point it at a missing one. */
  consoleDir?: string;
};

type RouteEntry = {
  method: string;
  url: string;
  hidden: boolean;
  /** The route's customer-key access (`config.customerKey`); null = customer keys denied. */
  customerKey: CustomerScope | null;
  /** What a customer portal token needs here (the portal allow-list, ADR 0038); null = closed to portal tokens. */
  portal: PortalNeed | null;
  /** The access an operator's role needs (ADR 0034); null on public routes. */
  operatorAccess: OperatorAccess | null;
};

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route as registered (HEAD omitted), for the OpenAPI completeness and customer-key allow-list checks. */
    routeTable: RouteEntry[];
  }
}

/**
 * Credentials that must never reach a log line (ADR 0021), should a request, its headers or an
 * outbound call's options ever be logged: they are written as "[Redacted]".
 */
const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["stripe-signature"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'err.headers.authorization',
  'err.config.headers.authorization',
  '*.password',
  '*.apiKey',
  '*.adminKey',
  '*.secret',
];

/** Largest accepted request body (1 MiB): larger bodies get 413 payload_too_large. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Builds the HTTP app: one JSON codec, one error envelope, auth, idempotency, modules, OpenAPI. */
export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config, clock } = ctx;
  const app = Fastify({
    logger: { level: config.logLevel, redact: LOG_REDACT_PATHS, ...(options.logStream ? { stream: options.logStream } : {}) },
    // No per-request info log: hot paths (entitlement checks, ingestion) would drown the log.
    // Every request-scoped line carries `requestId` (the X-Request-Id answered) and, once authenticated, `accountId` (auth.ts).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: () => randomUUID(),
    // A request's pino child is made only when it logs (lazy-logger.ts).
    childLoggerFactory: lazyChildLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(() => stringifyJson);
  app.setReplySerializer(stringifyJson);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    try {
      const scan = scanJson(text);
      assertScannedDepth(scan.depth);
      const value = parseJson(text, scan);
      if (mayHoldBadStrings(text)) assertCleanStrings(value);
      done(null, value);
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  // The route pattern, never the raw URL (ids would make every request its own series); no route: 'unmatched'.
  app.addHook('onResponse', async (request, reply) => {
    ctx.metrics.httpRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });

  const routeTable: RouteEntry[] = [];
  const consoleDir = options.consoleDir ?? DEFAULT_CONSOLE_DIR;
  registerErrorHandling(app, allowedMethodsFrom(routeTable), consoleFallback(consoleDir), config.publicBaseUrl);
  registerInputGuards(app);
  await app.register(swagger, {
    openapi: { ...OPENAPI_DOCUMENT, servers: openApiServers(config.publicBaseUrl, config.port) },
    transform: createJsonSchemaTransform({ skipList: [] }),
    transformObject: (input) => withoutUnusedComponents(withTextResponses(withOptionalBodies(jsonSchemaTransformObject(input)))),
  });
  await app.register(swaggerUi, { routePrefix: '/swagger-ui', uiConfig: { url: '/v3/api-docs' } as object });
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    describeRouteForOpenApi(route);
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') {
        routeTable.push({
          method,
          url: route.url,
          hidden: Boolean((route.schema as { hide?: boolean })?.hide),
          customerKey: route.config?.customerKey ?? null,
          portal: portalNeedOf(method, route.url),
          operatorAccess: surfaceOf(route.url) === 'open' || route.url.startsWith('/mcp') ? null : (route.config?.operatorAccess ?? operatorAccessOf(method, route.url)),
        });
      }
    }
  });

  registerAuth(
    app,
    {
      resolveApiKey: (key) => accounts.resolveApiKey(ctx, key),
      verifyAdminToken: (t) => accounts.resolveAdminToken(ctx, t),
      resolveOperatorSession: (t) => accounts.resolveOperatorSession(ctx, t),
      csrfTokenMatches: (sessionId, presented) => accounts.csrfTokenMatches(ctx.config.jwtSecret, sessionId, presented),
      customerReferenceOf: async (accountId, customerId) => (await findCustomerById(ctx.db, accountId, customerId))?.customer_reference_id ?? null,
    },
    config.modules,
  );
  // This node's boot (ADR 0033), registered once it listens: leases taken from then on name it.
  // Fastify serves requests while onListen hooks run, so /readyz waits for the registration: until
  // it commits, another node cannot tell that this identity's previous process is gone.
  let boot: NodeBoot | undefined;
  let registration: Promise<unknown> = Promise.resolve();
  app.addHook('onListen', async () => {
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const registering = registerBoot(ctx.db, nodeIdentity(config.nodeId, port), clock.now());
    registration = registering;
    boot = await registering;
    app.log.info({ nodeId: boot.nodeId, bootEpoch: boot.epoch }, 'node boot registered');
  });
  registerIdempotency(app, ctx.db, clock, ctx.secrets, () => boot);
  // Who did what (ADR 0034): every change an operator makes through the API, after its answer, by
  // route pattern and path parameters (never the body: it may hold secrets). Operator and settings
  // changes also record their own entries in the change's transaction.
  // A callback hook, not async: the requests of keys (the hot paths) leave it at the first test.
  app.addHook('onResponse', (request, reply, done) => {
    const principal = request.principal;
    const url = request.routeOptions.url;
    if (principal?.kind !== 'admin' || !url || ['GET', 'HEAD', 'OPTIONS'].includes(request.method) || reply.statusCode >= 400 || request.routeOptions.config?.ownAudit) {
      done();
      return;
    }
    recordAudit(ctx.db, {
      accountId: principal.accountId,
      actor: `user:${principal.userId}`,
      action: `${request.method} ${url}`,
      details: { username: principal.username, params: request.params ?? {}, status: reply.statusCode },
      now: clock.now(),
    })
      .catch((err: unknown) => request.log.error({ err }, 'audit log write failed'))
      .finally(() => done());
  });

  // `servers` names the origin the reader called (APP_PUBLIC_BASE_URL when set; X-Forwarded-* only with
  // APP_TRUST_PROXY), so Swagger UI's "Try it out" from another machine calls this service, not localhost.
  app.get('/v3/api-docs', { schema: { hide: true } }, async (request) => ({
    ...app.swagger(),
    servers: [{ url: publicBaseUrl(config.publicBaseUrl, request) }],
  }));
  app.get('/swagger-ui.html', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/swagger-ui/'));
  await app.register(healthRoutes(ctx, { booted: () => registration }));
  await app.register(consoleRoutes(config, consoleDir));
  await app.register(accounts.accountRoutes(ctx));
  await app.register(settingsAdminRoutes(ctx));
  // Outbound events belong to no module switch (api-contract-events.md §E1.3).
  await app.register(webhookRoutes(ctx));
  // Monetization module (its switch answers module_disabled by path prefix in the auth hook).
  for (const routes of [catalogAdminRoutes, catalogClientRoutes, customerAdminRoutes, customerClientRoutes, billingAdminRoutes, billingClientRoutes, usageAdminRoutes, usageClientRoutes, tariffAdminRoutes, tariffClientRoutes, creditAdminRoutes, creditClientRoutes, agentPublicRoutes, agentDiscoveryRoutes, customerKeyRoutes, customerKeyAdminRoutes, agentStatusRoutes, portalRoutes, paymentAdminRoutes, paymentClientRoutes, paymentWebhookRoutes, checkoutReturnRoutes, mcpRoutes, spendRoutes]) {
    await app.register(routes(ctx));
  }
  if (options.extraRoutes) await app.register(async (scope) => void (await options.extraRoutes!(scope)));
  return app;
}
