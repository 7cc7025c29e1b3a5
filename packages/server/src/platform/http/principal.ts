import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import type { OperatorAccess, OperatorRole } from './operator-access.js';

export type CustomerScope = 'read' | 'purchase';

/**
 * A portal session's scopes: a customer key's, plus one per permission flag (api-contract-money.md
 * §1.3). The three new ones exist only on portal sessions.
 */
export type PortalScope = CustomerScope | 'plan_change' | 'cancel' | 'auto_topup';

/** Who is calling. Every query a handler runs is scoped to `accountId`. */
export type Principal =
  | {
      kind: 'admin';
      accountId: string;
      userId: string;
      username: string;
      /** Read from the user's row on every request, so a role change applies at once (ADR 0034). */
      role: OperatorRole;
      /** Set when the credential is a console session cookie (not a bearer JWT). */
      sessionId?: string;
    }
  | { kind: 'tenant'; accountId: string; keyId: string }
  | {
      kind: 'customer';
      accountId: string;
      /** The customer key's id, or the portal session's id when the credential is a portal token. */
      keyId: string;
      customerId: string;
      /** A customer key's scopes, or a portal session's (which may hold the portal-only ones). */
      scopes: PortalScope[];
      /** Set when the credential is a customer portal link's token (ADR 0025), not a `ck_` key. */
      portalSessionId?: string;
    };

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /**
     * Opens a Client API route to customer-scoped keys. Absent: customer keys are denied.
     * 'purchase' also requires the key's purchase scope.
     */
    customerKey?: CustomerScope;
    /**
     * A CORS preflight route (OPTIONS): browsers send preflights without credentials, so the auth
     * hook lets it through. The route itself answers only with CORS headers.
     */
    corsPreflight?: boolean;
    /**
     * The access an operator's role needs on this route (ADR 0034). Absent: derived from the method
     * and URL pattern by platform/http/operator-access.ts (the usual case); set only to override it.
     */
    operatorAccess?: OperatorAccess;
    /**
     * The route writes its own audit-log entries in the change's transaction (settings, operators),
     * so the after-response entry of every operator change (app.ts) is not written for it.
     */
    ownAudit?: boolean;
  }
}

/** The authenticated principal; the auth hook guarantees one on every non-public route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthorized', 'Authentication required');
  return request.principal;
}

export function accountIdOf(request: FastifyRequest): string {
  return principalOf(request).accountId;
}

/** The admin principal of an Admin API route (the auth hook admits only JWTs there). */
export function adminOf(request: FastifyRequest): Extract<Principal, { kind: 'admin' }> {
  const principal = principalOf(request);
  if (principal.kind !== 'admin') throw new AppError('unauthorized', 'Authentication required');
  return principal;
}
