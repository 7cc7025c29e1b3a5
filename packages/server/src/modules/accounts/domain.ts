/**
 * Login throttling rules (pure). Failed logins are counted per subject in fixed windows; a subject
 * at its limit is refused until its window ends, before the password is even checked.
 */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const LOGIN_LIMITS = { user: 5, ip: 20 } as const;

export type ThrottleState = { windowStart: Date; failures: number };

/** Seconds until the subject may try again, or 0 when it may try now. */
export function computeRetryAfterSeconds(state: ThrottleState | undefined, limit: number, now: Date): number {
  if (!state || state.failures < limit) return 0;
  const endsAt = state.windowStart.getTime() + LOGIN_WINDOW_MS;
  return endsAt > now.getTime() ? Math.ceil((endsAt - now.getTime()) / 1000) : 0;
}

export function throttleSubjects(username: string, ip: string): { subject: string; limit: number }[] {
  return [
    { subject: `user:${username.toLowerCase()}`, limit: LOGIN_LIMITS.user },
    { subject: `ip:${ip}`, limit: LOGIN_LIMITS.ip },
  ];
}
