import { createHmac, randomBytes } from 'node:crypto';

/**
 * The webhook rules (api-contract-events.md §E2–§E4), pure: the Standard Webhooks signature, secrets,
 * the retry schedule, the endpoint filter and the automatic disabling.
 */

/** Delays after a failed attempt n (1-based): attempt n + 1 waits RETRY_DELAYS_MS[n - 1] (§E4.2). */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 14 * 3_600_000, 20 * 3_600_000, 24 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const ATTEMPT_TIMEOUT_MS = 15_000;
export const RESPONSE_BODY_LIMIT = 1024;
export const FAILING_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
export const SECRET_OVERLAP_MS = 24 * 3_600_000;
export const MAX_ENDPOINTS = 20;
export const MAX_EVENT_TYPES = 50;
export const RETENTION_MS = 30 * 24 * 3_600_000;

/** When the attempt after failed attempt `number` may start; null when the schedule is spent. */
export function nextAttemptAfterFailure(number: number, failedAt: Date): Date | null {
  const delay = RETRY_DELAYS_MS[number - 1];
  return delay === undefined ? null : new Date(failedAt.getTime() + delay);
}

/** `whsec_` + base64 (standard, padded) of 32 random bytes (§E2.3). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `whsec_…` + the secret's last 4 characters. */
export function secretHint(secret: string): string {
  return `whsec_\u2026${secret.slice(-4)}`;
}

/** base64(HMAC-SHA256(key = base64-decoded secret bytes, "<id>.<timestamp>.<body>")) (§E3.3). */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/** The `webhook-signature` header: one `v1,<sig>` per secret, the current one first (§E2.4). */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => `v1,${sign(s, id, timestamp, body)}`).join(' ');
}

/** Whether an endpoint's filter takes an event type (`[]` = every type). */
export function accepts(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.length === 0 || eventTypes.includes(type);
}

/**
 * The endpoint after an attempt (§E4.3): a success clears `failingSince`; a failure starts it when
 * unset; 410 disables at once (GONE); a failure while `failingSince` is more than 5 days old
 * disables (FAILING).
 */
export function endpointAfterAttempt(
  state: { failingSince: Date | null },
  outcome: { success: boolean; status: number | null },
  now: Date,
): { failingSince: Date | null; disable: 'GONE' | 'FAILING' | null } {
  if (outcome.success) return { failingSince: null, disable: null };
  if (outcome.status === 410) return { failingSince: state.failingSince ?? now, disable: 'GONE' };
  if (state.failingSince && now.getTime() - state.failingSince.getTime() > FAILING_DISABLE_AFTER_MS) return { failingSince: state.failingSince, disable: 'FAILING' };
  return { failingSince: state.failingSince ?? now, disable: null };
}

/** The secrets that sign an attempt now: the current one, and the previous one during its 24 h (§E2.4). */
export function signingSecrets(current: string, previous: string | null, previousExpiresAt: Date | null, now: Date): string[] {
  return previous && previousExpiresAt && previousExpiresAt > now ? [current, previous] : [current];
}
