import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { OperatorRole } from '../../platform/http/operator-access.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { hashKey } from '../../platform/security/api-keys.js';
import { JWT_TTL_SECONDS } from '../../platform/security/jwt.js';
import * as repo from './repo.js';

/**
 * Console sessions (issue 32 item 3, ADR 0034). Signing in to the console sets an opaque token in an
 * HttpOnly, SameSite=Strict cookie (Secure over https); only its SHA-256 is stored. A request with the
 * cookie and no other credential authenticates as the operator, read again from the user's row each
 * time (role, disabled, session version), so a password change or disabling ends the session as it
 * ends a JWT, and a role change applies to the next request. The lifetime is the JWT's (2 hours).
 * A state-changing request made with the cookie must carry the session's CSRF token in
 * `X-CSRF-Token`: an HMAC of the session id, given at sign-in and by `GET /api/v1/session`, which
 * another origin cannot read.
 */
export const SESSION_TTL_SECONDS = JWT_TTL_SECONDS;

/** The session's CSRF token: derived, not stored (domain-separated from the JWT signatures). */
export function csrfTokenOf(secret: string, sessionId: string): string {
  return createHmac('sha256', secret).update(`tally-console-csrf:${sessionId}`).digest('base64url');
}

export function csrfTokenMatches(secret: string, sessionId: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfTokenOf(secret, sessionId));
  const actual = Buffer.from(presented);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export type OperatorUser = { id: string; accountId: string; username: string; role: OperatorRole; sessionVersion: number };

/** Opens a session for a verified user; returns the cookie's token (never stored) and the session's facts. */
export async function openOperatorSession(ctx: AppContext, user: OperatorUser) {
  const token = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  const id = newId(now.getTime());
  await repo.insertOperatorSession(ctx.db, {
    id,
    account_id: user.accountId,
    user_id: user.id,
    token_hash: hashKey(token),
    session_version: user.sessionVersion,
    created_at: now,
    expires_at: expiresAt,
    ended_at: null,
  });
  return { token, sessionId: id, expiresAt, csrfToken: csrfTokenOf(ctx.config.jwtSecret, id) };
}

/** The operator of a live session, or null (unknown, ended, expired, password changed, user disabled or gone). */
export async function resolveOperatorSession(ctx: AppContext, token: string): Promise<Principal | null> {
  if (token.length === 0 || token.length > 100) return null;
  const row = await repo.findOperatorSessionByHash(ctx.db, hashKey(token));
  const now = ctx.clock.now();
  if (!row || row.ended_at !== null || row.expires_at <= now || row.disabled_at !== null || row.session_version !== row.current_version) return null;
  return { kind: 'admin', accountId: row.account_id, userId: row.user_id, username: row.username, role: row.role, sessionId: row.id };
}

/** What the console reads after a reload: who is signed in, until when, and the CSRF token. */
export async function describeSession(ctx: AppContext, principal: Extract<Principal, { kind: 'admin' }>) {
  const expiresAt = principal.sessionId ? ((await repo.findOperatorSessionById(ctx.db, principal.accountId, principal.sessionId))?.expires_at ?? null) : null;
  return {
    user: { id: principal.userId, username: principal.username, role: principal.role },
    accountId: principal.accountId,
    via: principal.sessionId ? ('cookie' as const) : ('bearer' as const),
    csrfToken: principal.sessionId ? csrfTokenOf(ctx.config.jwtSecret, principal.sessionId) : null,
    expiresAt,
    expiresInSeconds: secondsLeft(expiresAt, ctx.clock.now()),
  };
}

export const secondsLeft = (expiresAt: Date | null, now: Date) => (expiresAt === null ? null : Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)));

/** Signs out: the session ends on the server (a bearer JWT has nothing to end; it expires, or a password change ends it). */
export async function endSession(ctx: AppContext, principal: Extract<Principal, { kind: 'admin' }>) {
  if (principal.sessionId) await repo.endOperatorSession(ctx.db, principal.accountId, principal.sessionId, ctx.clock.now());
}

export const purgeStaleOperatorSessions = (ctx: AppContext, now: Date) => repo.deleteStaleOperatorSessions(ctx.db, now);
