import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { classifyKey } from '../security/api-keys.js';
import { operatorAccessOf, roleAllows, SAFE_METHODS } from './operator-access.js';
import { missingPortalScope, portalNeedOf } from './portal-access.js';
import type { Principal } from './principal.js';
import { MODULE_DISABLED_MESSAGES, moduleOf, surfaceOf, type ModuleName } from './surfaces.js';

export type Authenticator = {
  /** The active, unexpired key with this plaintext, or null. A portal token whose session ended
   * throws 401 `portal_link_expired` (ADR 0025). */
  resolveApiKey(key: string): Promise<Principal | null>;
  /** The admin principal of a valid, unexpired JWT, or null. */
  verifyAdminToken(token: string): Promise<Principal | null>;
  /** The operator of a live console session cookie, or null (ADR 0034). */
  resolveOperatorSession(token: string): Promise<Principal | null>;
  /** Whether `presented` is the CSRF token of the console session. */
  csrfTokenMatches(sessionId: string, presented: string | undefined): boolean;
  /** The `customerReferenceId` of a customer now, or null (pins a portal token's `{ref}`, ADR 0038). */
  customerReferenceOf(accountId: string, customerId: string): Promise<string | null>;
};

/** The console session cookie's name (ADR 0034). */
export const SESSION_COOKIE = 'tally_session';

/**
 * Authenticates by surface (Client API and MCP: tenant or customer keys; Admin API: JWT only;
 * public: none; the console's session cookie on both API surfaces when no other credential is sent,
 * with its CSRF token on state-changing calls), then applies the customer-key allow-list, the
 * operator's role (ADR 0034) and the module switches.
 */
export function registerAuth(
  app: FastifyInstance,
  auth: Authenticator,
  enabledModules: Record<ModuleName, boolean>,
): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    const surface = surfaceOf(path);
    const preflight = request.method === 'OPTIONS' && request.routeOptions.config?.corsPreflight === true;
    if (surface !== 'open' && !preflight) {
      const credential = credentialOf(request);
      const cookie = credential || !path.startsWith('/api/v1/') ? null : cookieOf(request, SESSION_COOKIE);
      if (!credential && !cookie) throw new AppError('unauthorized', 'Authentication required');
      request.principal = cookie
        ? await authenticateSession(auth, request, cookie)
        : surface === 'client'
          ? await authenticateKey(auth, credential!)
          : await authenticateAdmin(auth, credential!);
      // From here on every line this request logs names its account.
      request.log = reply.log = request.log.child({ accountId: request.principal.accountId });
      if (request.principal.kind === 'customer') {
        if (request.principal.portalSessionId !== undefined) await checkPortalTokenAllowed(auth, request, request.principal, path);
        else checkCustomerKeyAllowed(request, request.principal);
      }
      if (request.principal.kind === 'admin') checkOperatorAllowed(request, request.principal);
    }
    const module = moduleOf(path);
    if (module && !enabledModules[module]) throw new AppError('module_disabled', MODULE_DISABLED_MESSAGES[module]);
  });
}

/** `Authorization: Bearer` wins over `X-API-Key` when both are sent. */
export function credentialOf(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[1]! : null;
  }
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : null;
}

/** One cookie's value from the Cookie header, or null. */
export function cookieOf(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value === '' ? null : value;
    }
  }
  return null;
}

async function authenticateSession(auth: Authenticator, request: FastifyRequest, token: string): Promise<Principal> {
  const principal = await auth.resolveOperatorSession(token);
  if (!principal || principal.kind !== 'admin' || !principal.sessionId) throw new AppError('unauthorized', 'Session expired or signed out');
  // A cookie rides along with any request the browser sends, so a change needs proof it came from the console.
  if (!SAFE_METHODS.has(request.method)) {
    const presented = request.headers['x-csrf-token'];
    if (!auth.csrfTokenMatches(principal.sessionId, typeof presented === 'string' ? presented : undefined)) {
      throw new AppError('csrf_failed', 'Missing or wrong X-CSRF-Token for this session: read it from GET /api/v1/session');
    }
  }
  return principal;
}

function checkOperatorAllowed(request: FastifyRequest, principal: Extract<Principal, { kind: 'admin' }>) {
  // Unknown routes (no pattern) go on to their 404.
  const url = request.routeOptions.url;
  if (!url) return;
  const access = request.routeOptions.config?.operatorAccess ?? operatorAccessOf(request.method, url);
  if (!roleAllows(principal.role, access)) throw new AppError('forbidden', 'Access denied');
}

async function authenticateKey(auth: Authenticator, credential: string): Promise<Principal> {
  const principal = classifyKey(credential) ? await auth.resolveApiKey(credential) : null;
  if (!principal) throw new AppError('unauthorized', 'Invalid API key');
  return principal;
}

async function authenticateAdmin(auth: Authenticator, credential: string): Promise<Principal> {
  const principal = classifyKey(credential) ? null : await auth.verifyAdminToken(credential);
  if (!principal) throw new AppError('unauthorized', 'Invalid or expired token');
  return principal;
}

function checkCustomerKeyAllowed(request: FastifyRequest, principal: Extract<Principal, { kind: 'customer' }>) {
  // routeOptions.config is absent on unknown routes: those deny customer keys like closed routes.
  const required = request.routeOptions.config?.customerKey;
  if (!required) throw new AppError('forbidden', 'Access denied');
  if (required === 'purchase' && !principal.scopes.includes('purchase')) {
    throw new AppError('scope_denied', "This API key lacks the 'purchase' scope");
  }
}

/**
 * A portal token (ADR 0025, 0038) may call only the routes of the portal allow-list
 * (`portal-access.ts`), whatever `config.customerKey` says: never `/mcp`, no route outside the list.
 * A `{ref}` in the path is pinned to the session's customer first (403 for another customer's), then
 * the session's permission flag is checked, before the route looks anything up or changes anything.
 * Body references and resources named by id are pinned by the service that reads them.
 */
async function checkPortalTokenAllowed(auth: Authenticator, request: FastifyRequest, principal: Extract<Principal, { kind: 'customer' }>, path: string) {
  const pattern = request.routeOptions.url;
  const need = path.startsWith('/api/v1/client/') && pattern ? portalNeedOf(request.method, pattern) : null;
  if (!need) throw new AppError('forbidden', 'Access denied');
  if (need === 'read') return;
  const ref = (request.params as { ref?: unknown } | undefined)?.ref;
  if (typeof ref === 'string' && ref !== (await auth.customerReferenceOf(principal.accountId, principal.customerId))) {
    throw new AppError('forbidden', 'This API key is scoped to another customer');
  }
  const missing = missingPortalScope(need, principal.scopes);
  if (missing) throw new AppError('forbidden', `This portal link lacks the '${missing}' permission`);
}
