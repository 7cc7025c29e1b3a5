import type { RouteOptions } from 'fastify';
import { errorEnvelopeSchema } from './envelope.js';
import { surfaceOf } from './surfaces.js';

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
      ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Tenant key (sk_…) or customer key (ck_…)' },
      ApiKeyBearer: { type: 'http', scheme: 'bearer', description: 'Tenant key (sk_…) or customer key (ck_…) as a bearer token' },
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
  if (surface === 'client') schema.security = [{ ApiKeyHeader: [] }, { ApiKeyBearer: [] }];
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

/** `servers` of the document: the configured public origin, else this node's own port. */
export function openApiServers(publicBaseUrl: string | undefined, port: number) {
  return [{ url: publicBaseUrl ?? `http://localhost:${port}` }];
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
