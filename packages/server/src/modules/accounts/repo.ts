import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Principal } from '../../platform/http/principal.js';
import type { CustomerScope } from '../../platform/http/principal.js';
import { PAIR_FORGET_MS, THROTTLE_RETENTION_MS, USER_WINDOW_MS, type ThrottleKind, type ThrottleState } from './domain.js';
import { tenantRows } from '../../platform/db/tenant-row.js';
import type { OperatorRole } from '../../platform/http/operator-access.js';
import type { OperatorSessionsTable } from './tables.js';

export async function insertAccount(db: Executor, row: { id: string; name: string }) {
  await db.insertInto('accounts').values(row).execute();
}

/** The account's display name (the public pricing document names the product after it). */
export async function findAccountName(db: Executor, accountId: string): Promise<string | null> {
  const row = await db.selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirst();
  return row?.name ?? null;
}

export async function lockAccount(db: Executor, accountId: string) {
  return db.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst();
}

export async function insertUser(
  db: Executor,
  row: { id: string; account_id: string; username: string; password_hash: string; role: OperatorRole; created_at?: Date },
) {
  await db.insertInto('users').values(row).execute();
}

/** The account's operators, oldest first. */
export function listUsers(db: Executor, accountId: string) {
  return tenantRows(db, 'users', accountId).orderBy('created_at').orderBy('id').execute();
}

/** Every operator of the account, locked: changes of role or state are serialised per account (the last owner stays). */
export function lockUsers(db: Executor, accountId: string) {
  return tenantRows(db, 'users', accountId).orderBy('id').forUpdate().execute();
}

/** Sets a user's role and state; disabling bumps its session version, which ends its sessions and JWTs. */
export async function updateUserAccess(db: Executor, accountId: string, userId: string, change: { role: OperatorRole; disabledAt: Date | null; endSessions: boolean }) {
  await db
    .updateTable('users')
    .set({ role: change.role, disabled_at: change.disabledAt, ...(change.endSessions ? { session_version: sql<number>`session_version + 1` } : {}) })
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .execute();
}

export function findUserByUsername(db: Executor, username: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
}

export function lockUser(db: Executor, accountId: string, userId: string) {
  return tenantRows(db, 'users', accountId)
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
}

/** Sets the new hash and bumps the session version, which ends every JWT issued before. */
export async function updatePasswordHash(db: Executor, userId: string, passwordHash: string) {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, session_version: sql<number>`session_version + 1` })
    .where('id', '=', userId)
    .execute();
}

/** What decides whether a user's session still holds and what it may do; undefined when the user is gone. */
export function findOperatorState(db: Executor, accountId: string, userId: string) {
  return db
    .selectFrom('users')
    .select(['session_version', 'role', 'username', 'disabled_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function insertOperatorSession(db: Executor, row: Insertable<OperatorSessionsTable>) {
  await db.insertInto('operator_sessions').values(row).execute();
}

/** The session with this token hash joined with its user's current state (one indexed read per request). */
export function findOperatorSessionByHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('operator_sessions as s')
    .innerJoin('users as u', (j) => j.onRef('u.id', '=', 's.user_id').onRef('u.account_id', '=', 's.account_id'))
    .select(['s.id', 's.account_id', 's.user_id', 's.session_version', 's.expires_at', 's.ended_at', 'u.username', 'u.role', 'u.disabled_at', 'u.session_version as current_version'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export function findOperatorSessionById(db: Executor, accountId: string, sessionId: string) {
  return tenantRows(db, 'operator_sessions', accountId).where('id', '=', sessionId).executeTakeFirst();
}

export async function endOperatorSession(db: Executor, accountId: string, sessionId: string, now: Date) {
  await db.updateTable('operator_sessions').set({ ended_at: now }).where('account_id', '=', accountId).where('id', '=', sessionId).where('ended_at', 'is', null).execute();
}

/** Sessions that ended or expired more than a day ago: nothing reads them again. */
export async function deleteStaleOperatorSessions(db: Executor, now: Date) {
  const before = new Date(now.getTime() - 24 * 60 * 60 * 1000);
  await db.deleteFrom('operator_sessions').where((eb) => eb.or([eb('expires_at', '<', before), eb('ended_at', '<', before)])).execute();
}

export async function insertTenantKey(
  db: Executor,
  row: { id: string; account_id: string; key_hash: string; key_hint: string; created_at: Date },
) {
  await db
    .insertInto('api_keys')
    .values({ ...row, kind: 'TENANT', customer_id: null, expires_at: null, revoked_at: null })
    .execute();
}

/** Revokes every active tenant key of the account; customer keys are untouched. */
export async function revokeTenantKeys(db: Executor, accountId: string, now: Date) {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('account_id', '=', accountId)
    .where('kind', '=', 'TENANT')
    .where('revoked_at', 'is', null)
    .execute();
}

export function findActiveTenantKeyHint(db: Executor, accountId: string) {
  return db
    .selectFrom('api_keys')
    .select('key_hint')
    .where('account_id', '=', accountId)
    .where('kind', '=', 'TENANT')
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/**
 * The principal of the unrevoked key with this hash and when it expires (null: never), or null.
 * Expiry is checked by the caller against its clock, so the row may be cached (ADR 0013).
 */
export async function findUnrevokedKeyByHash(
  db: Executor,
  keyHash: string,
): Promise<{ principal: Principal; expiresAt: Date | null; lastUsedAt: Date | null; provisionalUntil: Date | null } | null> {
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'kind', 'customer_id', 'scopes', 'expires_at', 'last_used_at'])
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  // A key of an agent-signup customer that is not claimed stops working at the customer's expiry
  // (api-contract-agent-v2.md §4.7); an expired customer's keys are refused at once. A statement of
  // its own, by the customer's key: on Citus api_keys is a reference table and customers is
  // distributed, and a correlated subquery from one into the other is refused.
  const customer = row.customer_id
    ? await db
        .selectFrom('customers as c')
        .select((c) => c.case().when('c.agent_status', '=', 'expired').then(c.ref('c.created_at')).else(c.ref('c.agent_expires_at')).end().as('until'))
        .where('c.account_id', '=', row.account_id)
        .where('c.id', '=', row.customer_id)
        .where('c.agent_status', 'in', ['provisional', 'expired'])
        .executeTakeFirst()
    : undefined;
  const provisionalUntil = customer?.until ?? null;
  const principal: Principal =
    row.kind === 'TENANT'
      ? { kind: 'tenant', accountId: row.account_id, keyId: row.id }
      : { kind: 'customer', accountId: row.account_id, keyId: row.id, customerId: row.customer_id!, scopes: row.scopes as CustomerScope[] };
  return { principal, expiresAt: row.expires_at, lastUsedAt: row.last_used_at, provisionalUntil };
}

/**
 * Stamps a key's last use unless another request (or node) stamped it since `staleBefore`: one
 * conditional statement, so concurrent stampers of a hot key write at most one row version.
 */
export async function recordKeyUse(db: Executor, keyId: string, now: Date, staleBefore: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .execute();
}

export async function findThrottleStates(db: Executor, subjects: string[]): Promise<Map<string, ThrottleState>> {
  const rows = await db.selectFrom('login_throttle').selectAll().where('subject', 'in', subjects).execute();
  return new Map(
    rows.map((r) => [r.subject, { windowStart: r.window_start, failures: r.failures, lastFailureAt: r.last_failure_at }]),
  );
}

/**
 * Counts one failure atomically. A count that no longer applies (a pair quiet for PAIR_FORGET_MS, a
 * username window older than USER_WINDOW_MS) restarts at 1 with a new window.
 */
export async function recordLoginFailure(db: Executor, subject: string, kind: ThrottleKind, now: Date) {
  const stale =
    kind === 'pair'
      ? sql<boolean>`login_throttle.last_failure_at <= ${new Date(now.getTime() - PAIR_FORGET_MS)}`
      : sql<boolean>`login_throttle.window_start <= ${new Date(now.getTime() - USER_WINDOW_MS)}`;
  await db
    .insertInto('login_throttle')
    .values({ subject, window_start: now, failures: 1, last_failure_at: now })
    .onConflict((oc) =>
      oc.column('subject').doUpdateSet({
        failures: sql<number>`case when ${stale} then 1 else login_throttle.failures + 1 end`,
        window_start: sql<Date>`case when ${stale} then ${now} else login_throttle.window_start end`,
        last_failure_at: now,
      }),
    )
    .execute();
}

export async function clearLoginFailures(db: Executor, subject: string) {
  await db.deleteFrom('login_throttle').where('subject', '=', subject).execute();
}

export async function deleteStaleThrottleRows(db: Executor, now: Date) {
  await db
    .deleteFrom('login_throttle')
    .where('last_failure_at', '<', new Date(now.getTime() - THROTTLE_RETENTION_MS))
    .execute();
}

export async function countAccounts(db: Executor): Promise<number> {
  const row = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function accountExists(db: Executor, accountId: string): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
  return row !== undefined;
}
