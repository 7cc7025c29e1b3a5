import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import { toUniqueConflict, UNIQUE_CONSTRAINTS } from '../../platform/db/errors.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, notFound } from '../../platform/errors/app-error.js';
import type { OperatorRole } from '../../platform/http/operator-access.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { hashPassword } from '../../platform/security/passwords.js';
import { recordAudit } from '../settings/index.js';
import { accessAfterChange } from './domain.js';
import * as repo from './repo.js';

/**
 * An account's operators (issue 32 item 4, ADR 0034): owners invite users with a role and a one-time
 * password shown once, change roles, disable and enable. Every change is serialised per account
 * (all its users locked), keeps at least one active owner, and is written to the audit log in its
 * own transaction with the acting user.
 */
type Admin = Extract<Principal, { kind: 'admin' }>;
type UserRow = Awaited<ReturnType<typeof repo.listUsers>>[number];

export type Operator = { id: string; username: string; role: OperatorRole; disabled: boolean; disabledAt: Date | null; createdAt: Date };

const toOperator = (u: Pick<UserRow, 'id' | 'username' | 'role' | 'disabled_at' | 'created_at'>): Operator => ({
  id: u.id,
  username: u.username,
  role: u.role,
  disabled: u.disabled_at !== null,
  disabledAt: u.disabled_at,
  createdAt: u.created_at,
});

const actorOf = (admin: Admin) => `user:${admin.userId}`;

export async function listOperators(ctx: AppContext, accountId: string): Promise<Operator[]> {
  return (await repo.listUsers(ctx.db, accountId)).map(toOperator);
}

/** A one-time password: 24 random bytes, URL-safe (32 characters). */
const oneTimePassword = () => randomBytes(24).toString('base64url');

export async function inviteOperator(ctx: AppContext, admin: Admin, input: { username: string; role: OperatorRole }) {
  const password = oneTimePassword();
  const passwordHash = await hashPassword(password);
  const now = ctx.clock.now();
  const id = newId();
  const taken = `A login named '${input.username}' already exists`;
  await withTransaction(ctx.db, async (tx) => {
    if (await repo.findUserByUsername(tx, input.username)) throw new AppError('conflict', taken);
    await repo.insertUser(tx, { id, account_id: admin.accountId, username: input.username, password_hash: passwordHash, role: input.role, created_at: now });
    await recordAudit(tx, { accountId: admin.accountId, actor: actorOf(admin), action: 'user.invited', details: { userId: id, username: input.username, role: input.role }, now });
  }).catch((err: unknown) => {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.username]: taken });
  });
  const user = toOperator({ id, username: input.username, role: input.role, disabled_at: null, created_at: now });
  return { user, password };
}

export async function updateOperator(ctx: AppContext, admin: Admin, userId: string, change: { role?: OperatorRole | undefined; disabled?: boolean | undefined }) {
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const users = await repo.lockUsers(tx, admin.accountId);
    const target = users.find((u) => u.id === userId);
    if (!target) throw notFound(`User not found: ${userId}`);
    const decision = accessAfterChange(
      users.map((u) => ({ id: u.id, role: u.role, disabled: u.disabled_at !== null })),
      userId,
      change,
    );
    if (!decision.ok) throw new AppError('conflict', decision.reason);
    const disabledAt = decision.disabled ? (target.disabled_at ?? now) : null;
    await repo.updateUserAccess(tx, admin.accountId, userId, { role: decision.role, disabledAt, endSessions: decision.disabled && target.disabled_at === null });
    for (const action of decision.actions) {
      await recordAudit(tx, { accountId: admin.accountId, actor: actorOf(admin), action: action.action, details: { userId, username: target.username, ...action.details }, now });
    }
    return toOperator({ ...target, role: decision.role, disabled_at: disabledAt });
  });
}
