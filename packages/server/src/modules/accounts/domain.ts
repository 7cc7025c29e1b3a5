import type { OperatorRole } from '../../platform/http/operator-access.js';

/**
 * Login throttling rules (pure; see README.md "Login throttling"). Two counters per attempt:
 *
 * - the pair (username, address): after PAIR_FREE_FAILURES failures the pair waits PAIR_BASE_DELAY_MS
 *   from its last failure, doubling with each further failure up to PAIR_MAX_DELAY_MS; a pair
 *   forgets its failures after PAIR_FORGET_MS without one, or on a successful login;
 * - the username across all addresses: USER_CEILING failures within a fixed USER_WINDOW_MS window
 *   refuse that username everywhere until the window ends (a distributed guessing attack).
 *
 * Both are checked before the password, so a throttled attempt learns nothing about it. A correct
 * password from an address with no recent failures for that user is never delayed by other
 * addresses' failures, unless the username's ceiling is reached.
 */
const PAIR_FREE_FAILURES = 5;
export const PAIR_BASE_DELAY_MS = 30 * 1000;
export const PAIR_MAX_DELAY_MS = 15 * 60 * 1000;
export const PAIR_FORGET_MS = 60 * 60 * 1000;
export const USER_CEILING = 100;
export const USER_WINDOW_MS = 15 * 60 * 1000;
/** Throttle rows older than this (by their last failure) carry no information and are purged. */
export const THROTTLE_RETENTION_MS = Math.max(PAIR_FORGET_MS, USER_WINDOW_MS);

export type ThrottleState = { windowStart: Date; failures: number; lastFailureAt: Date };
export type ThrottleKind = 'pair' | 'user';
type ThrottleSubject = { subject: string; kind: ThrottleKind };

/** The pair's delay after `failures` failures: 0 below the free count, then doubling, capped. */
export function pairDelayMs(failures: number): number {
  if (failures < PAIR_FREE_FAILURES) return 0;
  const doublings = Math.min(failures - PAIR_FREE_FAILURES, 30);
  return Math.min(PAIR_BASE_DELAY_MS * 2 ** doublings, PAIR_MAX_DELAY_MS);
}

/** Seconds until the subject may try again, or 0 when it may try now. */
export function computeRetryAfterSeconds(kind: ThrottleKind, state: ThrottleState | undefined, now: Date): number {
  if (!state) return 0;
  const until =
    kind === 'pair'
      ? isForgotten(kind, state, now)
        ? 0
        : state.lastFailureAt.getTime() + pairDelayMs(state.failures)
      : state.failures >= USER_CEILING
        ? state.windowStart.getTime() + USER_WINDOW_MS
        : 0;
  return until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : 0;
}

/** True when the stored count no longer applies and the next failure starts again at 1. */
function isForgotten(kind: ThrottleKind, state: ThrottleState, now: Date): boolean {
  return kind === 'pair'
    ? state.lastFailureAt.getTime() <= now.getTime() - PAIR_FORGET_MS
    : state.windowStart.getTime() <= now.getTime() - USER_WINDOW_MS;
}

/** The pair subject first (cleared on success), then the username's ceiling. */
export function throttleSubjects(username: string, ip: string): ThrottleSubject[] {
  const name = username.toLowerCase();
  return [
    { subject: `pair:${JSON.stringify([name, ip])}`, kind: 'pair' },
    { subject: `user:${name}`, kind: 'user' },
  ];
}

/**
 * An operator's role or state change (ADR 0034), decided over all the account's users: an account
 * keeps at least one active owner, so the last one can be neither demoted nor disabled. Returns the
 * target's role and state after, and one audit action per thing that changed.
 */
export function accessAfterChange(
  users: { id: string; role: OperatorRole; disabled: boolean }[],
  userId: string,
  change: { role?: OperatorRole | undefined; disabled?: boolean | undefined },
):
  | { ok: true; role: OperatorRole; disabled: boolean; actions: { action: string; details: Record<string, unknown> }[] }
  | { ok: false; reason: string } {
  const target = users.find((u) => u.id === userId);
  if (!target) return { ok: false, reason: `User not found: ${userId}` };
  const role = change.role ?? target.role;
  const disabled = change.disabled ?? target.disabled;
  const activeOwnersAfter = users.filter((u) => (u.id === userId ? role === 'OWNER' && !disabled : u.role === 'OWNER' && !u.disabled)).length;
  if (activeOwnersAfter === 0) return { ok: false, reason: 'An account keeps at least one active owner: make another user owner first' };
  const actions: { action: string; details: Record<string, unknown> }[] = [];
  if (role !== target.role) actions.push({ action: 'user.role_changed', details: { from: target.role, to: role } });
  if (disabled !== target.disabled) actions.push({ action: disabled ? 'user.disabled' : 'user.enabled', details: {} });
  return { ok: true, role, disabled, actions };
}
