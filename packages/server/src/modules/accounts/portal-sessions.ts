import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { AppError, notFound } from '../../platform/errors/app-error.js';
import type { PortalScope, Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { generateKey, hashKey, keyHint, type KeyEnvironment } from '../../platform/security/api-keys.js';
import type { PortalSessionsTable } from './tables.js';

/**
 * Customer portal sessions (ADR 0025): a link for one customer whose opaque token authenticates
 * like a customer key with the session's scopes, until it expires or is revoked. Only the token's
 * SHA-256 and hint are stored. Never cached: each portal request reads its row, so a revocation
 * holds on every node at once.
 */
export type PortalSession = {
  id: string;
  customerId: string;
  tokenHint: string;
  scopes: PortalScope[];
  returnUrl: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  /** Usable now: neither revoked nor expired. */
  active: boolean;
};

export type IssuedPortalSession = PortalSession & { /** Plaintext: returned once, never stored. */ token: string };

const COLUMNS = ['id', 'customer_id', 'token_hint', 'scopes', 'return_url', 'created_at', 'expires_at', 'revoked_at'] as const;

/** A session's row as read: every column but the account and the token's hash. */
type SessionRow = Pick<Selectable<PortalSessionsTable>, (typeof COLUMNS)[number]>;

/** Whether a portal session authenticates at `now` (the same rule as a customer key's). */
function isPortalSessionActive(row: { revoked_at: Date | null; expires_at: Date }, now: Date): boolean {
  return row.revoked_at === null && row.expires_at > now;
}

function toPortalSession(row: SessionRow, now: Date): PortalSession {
  return {
    id: row.id,
    customerId: row.customer_id,
    tokenHint: row.token_hint,
    scopes: row.scopes as PortalScope[],
    returnUrl: row.return_url,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    active: isPortalSessionActive(row, now),
  };
}

/** Writes a new portal session (only the token's hash and hint are stored) in the caller's transaction. */
export async function issuePortalSession(
  db: Executor,
  input: { accountId: string; customerId: string; scopes: PortalScope[]; returnUrl: string | null; environment: KeyEnvironment; now: Date; expiresAt: Date },
): Promise<IssuedPortalSession> {
  const token = generateKey('portal', input.environment);
  const row: SessionRow = {
    id: newId(),
    customer_id: input.customerId,
    token_hint: keyHint(token),
    scopes: input.scopes,
    return_url: input.returnUrl,
    created_at: input.now,
    expires_at: input.expiresAt,
    revoked_at: null,
  };
  await db.insertInto('portal_sessions').values({ ...row, account_id: input.accountId, token_hash: hashKey(token) }).execute();
  return { ...toPortalSession(row, input.now), token };
}

/** A session of the customer, or 404 (another customer's or account's session is 404 too). */
export async function getPortalSession(db: Executor, input: { accountId: string; customerId: string; sessionId: string; now: Date }): Promise<PortalSession> {
  const row = await db
    .selectFrom('portal_sessions')
    .select(COLUMNS)
    .where('account_id', '=', input.accountId)
    .where('id', '=', input.sessionId)
    .where('customer_id', '=', input.customerId)
    .executeTakeFirst();
  if (!row) throw notFound(`Portal session not found: ${input.sessionId}`);
  return toPortalSession(row, input.now);
}

/** One page of the customer's sessions, newest first, ended ones included (`active: false`). */
export async function listPortalSessions(
  db: Executor,
  input: { accountId: string; customerId: string; limit: number; offset: number; now: Date },
): Promise<{ sessions: PortalSession[]; total: number }> {
  const scope = db.selectFrom('portal_sessions').where('account_id', '=', input.accountId).where('customer_id', '=', input.customerId);
  const [rows, count] = await Promise.all([
    scope.select(COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(input.limit).offset(input.offset).execute(),
    scope.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { sessions: rows.map((row) => toPortalSession(row, input.now)), total: Number(count.total) };
}

/**
 * Revokes a session: its token answers 401 `portal_link_expired` from the next request on, on
 * every node (sessions are never cached). Revoking a revoked session keeps its first revocation
 * time and succeeds. 404 for a session of another customer or account.
 */
export async function revokePortalSession(db: Executor, input: { accountId: string; customerId: string; sessionId: string; now: Date }): Promise<PortalSession> {
  const row = await db
    .updateTable('portal_sessions')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(input.now)) }))
    .where('account_id', '=', input.accountId)
    .where('id', '=', input.sessionId)
    .where('customer_id', '=', input.customerId)
    .returning(COLUMNS)
    .executeTakeFirst();
  if (!row) throw notFound(`Portal session not found: ${input.sessionId}`);
  return toPortalSession(row, input.now);
}

/**
 * The customer principal of a portal token: the session's customer and scopes. null for a token
 * no session has (401 `unauthorized`, like an unknown key); a session that has ended answers 401
 * `portal_link_expired`, so the portal page can tell its visitor to ask for a new link.
 */
export async function resolvePortalToken(db: Executor, token: string, now: Date): Promise<Principal | null> {
  const row = await db
    .selectFrom('portal_sessions')
    .select(['id', 'account_id', 'customer_id', 'scopes', 'expires_at', 'revoked_at'])
    .where('token_hash', '=', hashKey(token))
    .executeTakeFirst();
  if (!row) return null;
  if (!isPortalSessionActive(row, now)) throw new AppError('portal_link_expired', 'This portal link has expired or was revoked: ask for a new link');
  return {
    kind: 'customer',
    accountId: row.account_id,
    keyId: row.id,
    customerId: row.customer_id,
    scopes: row.scopes as PortalScope[],
    portalSessionId: row.id,
  };
}
