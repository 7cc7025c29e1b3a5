import {
  customerKeyEnvironment,
  findAccountName,
  getPortalSession,
  issuePortalSession,
  listPortalSessions,
  revokePortalSession,
  type PortalSession,
} from '../accounts/index.js';
import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { notFound } from '../../platform/errors/app-error.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import type { Principal } from '../../platform/http/principal.js';
import { customerPageQuery, getCustomerById, getCustomerByRef, type CustomerTarget } from '../customers/index.js';
import { listTopUpOffers } from '../payments/index.js';
import { computePortalExpiry, computePortalScopes, computePortalUrl, toPortalPermissions } from './domain.js';
import type { PortalSessionCreate } from './schema.js';

// Portal-session management: tenant key only (the routes carry no `customerKey`, ADR 0025).

function toSessionView(session: PortalSession, customerReferenceId: string) {
  const { id, tokenHint, scopes, returnUrl, active, createdAt, expiresAt, revokedAt } = session;
  return { id, customerReferenceId, tokenHint, scopes, ...toPortalPermissions(scopes), returnUrl, active, createdAt, expiresAt, revokedAt };
}

/** Opens a portal session for the customer; the answer carries the link and its token, once. */
export async function createPortalSession(ctx: AppContext, target: CustomerTarget, input: PortalSessionCreate, baseUrl: string) {
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const customer = await getCustomerByRef(tx, target.accountId, target.ref);
    const session = await issuePortalSession(tx, {
      accountId: target.accountId,
      customerId: customer.id,
      scopes: computePortalScopes(input ?? {}),
      returnUrl: input?.returnUrl ?? null,
      // The token's test/live part follows the tenant key's, like a customer key's.
      environment: await customerKeyEnvironment(tx, target.accountId, ctx.config.apiKeyEnvironment),
      now,
      expiresAt: computePortalExpiry(now, input?.expiresInSeconds),
    });
    return { ...toSessionView(session, customer.customer_reference_id), url: computePortalUrl(baseUrl, session.token, customer.customer_reference_id), token: session.token };
  });
}

export async function listPortalSessionPage(ctx: AppContext, target: CustomerTarget, page: PageQuery) {
  const { customer, query } = await customerPageQuery(ctx, target, page);
  const { sessions, total } = await listPortalSessions(ctx.db, query);
  return toPage(sessions.map((s) => toSessionView(s, customer.customer_reference_id)), total, page);
}

/** Idempotent: revoking a revoked session answers it with its first revocation time. */
export async function revokeSession(ctx: AppContext, target: CustomerTarget, sessionId: string) {
  const customer = await getCustomerByRef(ctx.db, target.accountId, target.ref);
  const session = await revokePortalSession(ctx.db, { accountId: target.accountId, customerId: customer.id, sessionId, now: ctx.clock.now() });
  return toSessionView(session, customer.customer_reference_id);
}

/**
 * The portal session the caller's token belongs to (the portal page starts here), with the seller's
 * name and the pools a top-up can go through (none without the purchase scope); 404 for any other
 * credential.
 */
export async function getCallerPortalSession(ctx: AppContext, principal: Principal) {
  if (principal.kind !== 'customer' || principal.portalSessionId === undefined) {
    throw notFound('No portal session: this route answers a customer portal token only');
  }
  const { accountId } = principal;
  const customer = await getCustomerById(ctx.db, accountId, principal.customerId);
  const session = toSessionView(await getPortalSession(ctx.db, { accountId, customerId: customer.id, sessionId: principal.portalSessionId, now: ctx.clock.now() }), customer.customer_reference_id);
  const [operatorName, offers] = await Promise.all([findAccountName(ctx.db, accountId), session.allowPurchase ? listTopUpOffers(ctx, accountId, customer.id) : []]);
  return { ...session, operatorName, topUpPools: offers };
}
