import { toUniqueConflict, UNIQUE_CONSTRAINTS } from '../../platform/db/errors.js';
import { withTransaction } from '../../platform/db/transaction.js';
import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/database.js';
import { AppError, invalid, notFound } from '../../platform/errors/app-error.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { classifyKey, generateKey, hashKey, keyHint } from '../../platform/security/api-keys.js';
import { signAdminToken, verifyAdminToken } from '../../platform/security/jwt.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../platform/security/passwords.js';
import { computeRetryAfterSeconds, throttleSubjects } from './domain.js';
import { forgetAccountKeys, forgetAccountKeysHere, keyCache } from './key-cache.js';
import { resolvePortalToken } from './portal-sessions.js';
import { openOperatorSession, SESSION_TTL_SECONDS, type OperatorUser } from './sessions.js';
import * as repo from './repo.js';

type CreateAccountInput = { accountName: string; username: string; password: string; apiKey?: string };

/**
 * Creates an account with one owner login and one tenant key; returns the key's plaintext, which is
 * never stored. Used by the bootstrap script and the dev seed (there is no public signup).
 */
export async function createAccount(ctx: AppContext, input: CreateAccountInput) {
  const apiKey = input.apiKey ?? generateKey('tenant', ctx.config.apiKeyEnvironment);
  if (classifyKey(apiKey) !== 'tenant') throw invalid('apiKey must be an sk_test_ or sk_live_ key');
  const passwordHash = await hashPassword(input.password);
  const accountId = newId();
  const now = ctx.clock.now();
  const taken = `A login named '${input.username}' already exists`;
  await withTransaction(ctx.db, async (tx) => {
    if (await repo.findUserByUsername(tx, input.username)) throw new AppError('conflict', taken);
    await repo.insertAccount(tx, { id: accountId, name: input.accountName });
    await repo.insertUser(tx, { id: newId(), account_id: accountId, username: input.username, password_hash: passwordHash, role: 'OWNER', created_at: now });
    await repo.insertTenantKey(tx, {
      id: newId(),
      account_id: accountId,
      key_hash: hashKey(apiKey),
      key_hint: keyHint(apiKey),
      created_at: now,
    });
  }).catch((err: unknown) => {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.username]: taken });
  });
  return { accountId, apiKey };
}

type LoginInput = { username: string; password: string; ip: string };

/**
 * Verifies an operator's username and password. Refuses with 429 and Retry-After, before the password
 * is checked, while the (username, address) pair is in its growing delay or the username has reached
 * its ceiling across addresses (policy: README.md "Login throttling"); a disabled user, once its
 * password is right, gets 403.
 */
async function verifyLogin(ctx: AppContext, input: LoginInput): Promise<OperatorUser> {
  const now = ctx.clock.now();
  const subjects = throttleSubjects(input.username, input.ip);
  const states = await repo.findThrottleStates(ctx.db, subjects.map((s) => s.subject));
  const retryAfter = Math.max(...subjects.map((s) => computeRetryAfterSeconds(s.kind, states.get(s.subject), now)));
  if (retryAfter > 0) {
    throw new AppError('rate_limited', 'Too many failed login attempts; try again later', {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  const user = await repo.findUserByUsername(ctx.db, input.username);
  const valid = await verifyPassword(input.password, user?.password_hash ?? (await dummyPasswordHash()));
  if (!user || !valid) {
    for (const { subject, kind } of subjects) await repo.recordLoginFailure(ctx.db, subject, kind, now);
    throw new AppError('unauthorized', 'Invalid credentials');
  }
  await repo.clearLoginFailures(ctx.db, subjects[0]!.subject);
  if (user.disabled_at !== null) throw new AppError('forbidden', 'This login is disabled; an owner of the account can enable it');
  return { id: user.id, accountId: user.account_id, username: user.username, role: user.role, sessionVersion: user.session_version };
}

/** `POST /public/v1/login`: a 2-hour JWT for scripts (the Admin API's bearer credential). */
export async function login(ctx: AppContext, input: LoginInput) {
  const user = await verifyLogin(ctx, input);
  const { token, expiresAt } = await signAdminToken(
    ctx.config.jwtSecret,
    { userId: user.id, accountId: user.accountId, username: user.username, role: user.role, sessionVersion: user.sessionVersion },
    ctx.clock.now(),
  );
  return { token, type: 'Bearer' as const, expiresAt };
}

/** `POST /public/v1/sessions`: the console's sign-in, a session behind an HttpOnly cookie (sessions.ts). */
export async function signIn(ctx: AppContext, input: LoginInput) {
  const user = await verifyLogin(ctx, input);
  const session = await openOperatorSession(ctx, user);
  return {
    token: session.token,
    session: {
      user: { id: user.id, username: user.username, role: user.role },
      accountId: user.accountId,
      via: 'cookie' as const,
      csrfToken: session.csrfToken,
      expiresAt: session.expiresAt,
      expiresInSeconds: SESSION_TTL_SECONDS,
    },
  };
}

/**
 * Changes the password and, in the same transaction, bumps the user's session version: every JWT
 * issued before (this request's included) answers 401 afterwards; the operator logs in again.
 */
export async function changePassword(
  ctx: AppContext,
  input: { accountId: string; userId: string; currentPassword: string; newPassword: string },
) {
  const newHash = await hashPassword(input.newPassword);
  await withTransaction(ctx.db, async (tx) => {
    const user = await repo.lockUser(tx, input.accountId, input.userId);
    if (!user) throw notFound('User not found');
    if (!(await verifyPassword(input.currentPassword, user.password_hash))) {
      throw invalid('Current password is incorrect', { fields: [{ field: 'currentPassword', message: 'is incorrect' }] });
    }
    await repo.updatePasswordHash(tx, user.id, newHash);
  });
}

export async function getMaskedTenantKey(ctx: AppContext, accountId: string) {
  const row = await repo.findActiveTenantKeyHint(ctx.db, accountId);
  if (!row) throw notFound('This account has no active API key');
  return { apiKey: row.key_hint, keyType: 'secret' as const };
}

/**
 * Issues a new tenant key and, in the same transaction, revokes every earlier one. The old keys stop
 * working on this node when this returns and on every other node when the commit's notification
 * reaches it (milliseconds; ADR 0013).
 */
export async function rotateTenantKey(ctx: AppContext, accountId: string) {
  const apiKey = generateKey('tenant', ctx.config.apiKeyEnvironment);
  const now = ctx.clock.now();
  await withTransaction(ctx.db, async (tx) => {
    if (!(await repo.lockAccount(tx, accountId))) throw notFound('Account not found');
    await repo.revokeTenantKeys(tx, accountId, now);
    await forgetAccountKeys(ctx.cache, tx, accountId);
    await repo.insertTenantKey(tx, { id: newId(), account_id: accountId, key_hash: hashKey(apiKey), key_hint: keyHint(apiKey), created_at: now });
  });
  return { apiKey, keyType: 'secret' as const };
}

/** A key's `last_used_at` is at most this stale: the price of not writing on every request. */
export const KEY_USE_RESOLUTION_MS = 60_000;

/**
 * The principal of an active, unexpired key, or null. Served from the node cache (by hash) while
 * the cache can hear invalidations; expiry is checked on every call against the clock. A use is
 * written at most once per KEY_USE_RESOLUTION_MS per key and node.
 */
export async function resolveApiKey(ctx: AppContext, key: string): Promise<Principal | null> {
  // Portal tokens are not cached (ADR 0025): the portal is low-traffic and a revocation must hold everywhere at once.
  if (classifyKey(key) === 'portal') return resolvePortalToken(ctx.db, key, ctx.clock.now());
  const hash = hashKey(key);
  let found = await keyCache(ctx.cache).get(hash, () => repo.findUnrevokedKeyByHash(ctx.db, hash));
  const now = ctx.clock.now();
  if (found?.provisionalUntil != null && found.provisionalUntil <= now) found = await provisionalKeyNow(ctx, hash, now);
  if (!found || (found.expiresAt !== null && found.expiresAt <= now)) return null;
  const staleBefore = new Date(now.getTime() - KEY_USE_RESOLUTION_MS);
  if (found.principal.kind !== 'admin' && (found.lastUsedAt === null || found.lastUsedAt < staleBefore)) {
    // Moved before the write, so this node's concurrent requests with the key do not write too.
    found.lastUsedAt = now;
    await repo.recordKeyUse(ctx.db, found.principal.keyId, now, staleBefore);
  }
  return found.principal;
}

/**
 * A cached key whose provisional customer's expiry has passed (api-contract-agent-v2.md §4.7,
 * refused at once, before the expiry job): read again, since a payment may have claimed the
 * customer meanwhile. Still unclaimed: null (401). Claimed: this node forgets the account's cached
 * keys so the next request caches the key without the expiry.
 */
async function provisionalKeyNow(ctx: AppContext, hash: string, now: Date) {
  const fresh = await repo.findUnrevokedKeyByHash(ctx.db, hash);
  if (!fresh || (fresh.provisionalUntil !== null && fresh.provisionalUntil <= now)) return null;
  forgetAccountKeysHere(ctx.cache, fresh.principal.accountId);
  return fresh;
}

export async function resolveAdminToken(ctx: AppContext, token: string): Promise<Principal | null> {
  const claims = await verifyAdminToken(ctx.config.jwtSecret, token, ctx.clock.now());
  if (!claims) return null;
  // One indexed read per Admin request: a password change, disabling (or a removed user) ends the
  // session, and the role is the user's now, not the one the token was signed with.
  const user = await repo.findOperatorState(ctx.db, claims.accountId, claims.userId);
  if (!user || user.session_version !== claims.sessionVersion || user.disabled_at !== null) return null;
  return { kind: 'admin', accountId: claims.accountId, userId: claims.userId, username: user.username, role: user.role };
}

/**
 * The dev seed: on an empty database outside production, an account with the configured login and
 * tenant key. Returns null when any account already exists.
 */
export async function seedDevAccount(ctx: AppContext) {
  if ((await repo.countAccounts(ctx.db)) > 0) return null;
  const { username, password, apiKey } = ctx.config.devSeed;
  await createAccount(ctx, { accountName: 'Dev account', username, password, apiKey });
  return { username, password, apiKey };
}

export function purgeStaleLoginThrottles(ctx: AppContext, now: Date) {
  return repo.deleteStaleThrottleRows(ctx.db, now);
}

/** The account's display name, null for an unknown account (the public pricing document and the portal name the seller by it). */
export const findAccountName = (db: Executor, accountId: string) => repo.findAccountName(db, accountId);

/** Whether the account exists (the processor's webhook names one in its path). */
export const accountExists = (db: Executor, accountId: string) => repo.accountExists(db, accountId);
