import type { RouteOptions } from 'fastify';
import { errorEnvelopeSchema } from './envelope.js';
import type { CustomerScope } from './principal.js';
import { surfaceOf } from './surfaces.js';

const CUSTOMER_KEY_DESCRIPTION =
  'Customer-scoped key (`ck_test_…` / `ck_live_…`) from POST /api/v1/client/customers/{ref}/keys, as a bearer token. ' +
  'Pinned to one customer: a customerReferenceId in the path or body must be its own (or be left out of the body), else 403. ' +
  'Scopes: `read` opens the operations marked `x-customer-key: read`; `purchase` is needed as well on those marked ' +
  '`x-customer-key: purchase` (else 403 "This API key lacks the \'purchase\' scope"). ' +
  'Every other operation (`x-customer-key: denied`) answers 403 "Access denied".';

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Tally',
    version: '1.0.0',
    description:
      'Billing, metering and internal AI-spend service. Client API (`/api/v1/client/**`, tenant or customer key), ' +
      'Admin API (other `/api/v1/**`, JWT from `/public/v1/login`), public routes (`/public/v1/**`).',
  },
  components: {
    securitySchemes: {
      TenantKey: { type: 'http', scheme: 'bearer', description: 'Tenant key (`sk_test_…` / `sk_live_…`) as a bearer token: every Client API route' },
      TenantKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Tenant key in `X-API-Key` (if `Authorization` is also sent, it wins)' },
      CustomerKey: { type: 'http', scheme: 'bearer', description: CUSTOMER_KEY_DESCRIPTION },
      CustomerKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: `Customer key in \`X-API-Key\`. ${CUSTOMER_KEY_DESCRIPTION}` },
      AdminJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'JWT from POST /public/v1/login' },
    },
  },
} as const;

const ERROR_STATUSES = {
  common: [400, 404, 409, 500],
  authenticated: [401, 403],
  /** Routes that read a body: a body over the limit (413) or not JSON (415). */
  withBody: [413, 415],
} as const;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * onRoute hook: gives every route the security scheme of its surface and the error envelope for
 * its error statuses, so the OpenAPI document is complete without each route repeating it.
 */
export function describeRouteForOpenApi(route: RouteOptions): void {
  const schema = (route.schema ??= {}) as Record<string, unknown> & { response?: Record<string, unknown> };
  if (schema.hide) return;
  const surface = surfaceOf(route.url);
  if (surface === 'client') describeCustomerKeyAccess(schema, route.config?.customerKey);
  if (surface === 'admin') schema.security = [{ AdminJwt: [] }];
  // Open routes (login, health) say so explicitly: no credential, not "unspecified".
  if (surface === 'open') schema.security = [];
  const response = (schema.response ??= {});
  const statuses = [
    ...ERROR_STATUSES.common,
    ...(surface === 'open' ? [] : ERROR_STATUSES.authenticated),
    ...([route.method].flat().some((m) => BODY_METHODS.has(m)) ? ERROR_STATUSES.withBody : []),
  ];
  for (const status of statuses) response[status] ??= errorEnvelopeSchema;
}

const TENANT_SECURITY = [{ TenantKey: [] }, { TenantKeyHeader: [] }];
const CUSTOMER_KEY_ACCESS = {
  read: 'Customer keys: accepted (any scope); a customer named in the path or body must be the key\'s own (403 otherwise).',
  purchase: "Customer keys: accepted with the `purchase` scope (403 without it); a customer named in the path or body must be the key's own.",
  denied: 'Customer keys: denied (403 Access denied); tenant key only.',
} as const;

/**
 * A Client API operation's security: the tenant schemes always, the customer schemes only where
 * `config.customerKey` opens the route (the auth hook's allow-list), stated again as the
 * `x-customer-key` extension (`read` | `purchase` | `denied`) and a sentence in the description.
 */
function describeCustomerKeyAccess(schema: Record<string, unknown>, customerKey: CustomerScope | undefined): void {
  // Once per schema: a GET's implicit HEAD route shares its schema object.
  if ('x-customer-key' in schema) return;
  const access = customerKey ?? 'denied';
  schema.security = customerKey ? [...TENANT_SECURITY, { CustomerKey: [] }, { CustomerKeyHeader: [] }] : TENANT_SECURITY;
  schema['x-customer-key'] = access;
  const description = typeof schema.description === 'string' ? schema.description.trim() : '';
  schema.description = description ? `${description}\n\n${CUSTOMER_KEY_ACCESS[access]}` : CUSTOMER_KEY_ACCESS[access];
}

/** `servers` of the document: the configured public origin, else this node's own port. */
export function openApiServers(publicBaseUrl: string | undefined, port: number) {
  return [{ url: publicBaseUrl ?? `http://localhost:${port}` }];
}

type Operation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: { anyOf?: unknown[] } }> } };

/**
 * A body schema that also accepts `null` (`z.object(…).nullish()`) is how a route says its body is
 * optional: Fastify hands a request without a body to validation as null. @fastify/swagger marks
 * every requestBody required, so here such bodies become `required: false` with the object schema.
 */
export function withOptionalBodies<T extends object>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, Operation>> }).paths ?? {};
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      const media = op?.requestBody?.content?.['application/json'];
      const anyOf = media?.schema?.anyOf;
      if (!media || !anyOf || anyOf.length !== 2) continue;
      const nonNull = anyOf.filter((s) => (s as { type?: unknown }).type !== 'null');
      if (nonNull.length !== 1) continue;
      media.schema = nonNull[0] as { anyOf?: unknown[] };
      op.requestBody!.required = false;
    }
  }
  return document;
}

/** Marks a string response schema whose body is sent as this media type instead of JSON (`/metrics`). */
export const MEDIA_TYPE_KEY = 'x-media-type';

/** Responses marked with MEDIA_TYPE_KEY are documented under their own media type, without the marker. */
export function withTextResponses<T extends object>(document: T): T {
  type Responses = Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
  const paths = (document as { paths?: Record<string, Record<string, { responses?: Responses }>> }).paths ?? {};
  for (const item of Object.values(paths)) {
    for (const op of Object.values(item)) {
      for (const response of Object.values(op?.responses ?? {})) {
        const media = response.content?.['application/json'];
        const type = media?.schema?.[MEDIA_TYPE_KEY];
        if (typeof type !== 'string') continue;
        delete media!.schema![MEDIA_TYPE_KEY];
        response.content = { [type]: media! };
      }
    }
  }
  return document;
}

const SCHEMA_REF = /"\$ref":"#\/components\/schemas\/([^"]+)"/g;
const refsIn = (value: unknown) => [...JSON.stringify(value ?? null).matchAll(SCHEMA_REF)].map((m) => decodeURIComponent(m[1]!));

/**
 * Drops schema components nothing references (fastify-type-provider-zod emits an `*Input` variant
 * of every registered schema, used only when a request body names it). Keeps everything reachable
 * from the paths and the other parts of the document, transitively.
 */
export function withoutUnusedComponents<T extends object>(document: T): T {
  const doc = document as { components?: { schemas?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;
  const schemas = doc.components?.schemas;
  if (!schemas) return document;
  const { schemas: _all, ...otherComponents } = doc.components!;
  const { components: _components, ...rest } = doc;
  const used = new Set<string>();
  const queue = [...refsIn(rest), ...refsIn(otherComponents)];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (used.has(name) || !(name in schemas)) continue;
    used.add(name);
    queue.push(...refsIn(schemas[name]));
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return { ...doc, components: { ...doc.components, schemas: kept } } as T;
}
