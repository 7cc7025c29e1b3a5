import { createHash, randomBytes } from 'node:crypto';

/**
 * Secret prefixes, one table. A key is prefix + 32 lowercase hex characters. Only its SHA-256 and
 * a hint (`sk_test_…3f50`, with U+2026) are stored.
 */
export const KEY_PREFIXES = {
  tenant: { test: 'sk_test_', live: 'sk_live_' },
  customer: { test: 'ck_test_', live: 'ck_live_' },
  /** A customer portal link's token (ADR 0025): authenticates as its customer until it expires or is revoked. */
  portal: { test: 'pt_test_', live: 'pt_live_' },
} as const;

export type KeyKind = keyof typeof KEY_PREFIXES;
export type KeyEnvironment = 'test' | 'live';

const KEY_PATTERN = /^(sk|ck|pt)_(test|live)_[0-9a-f]{32}$/;

export function generateKey(kind: KeyKind, environment: KeyEnvironment): string {
  return KEY_PREFIXES[kind][environment] + randomBytes(16).toString('hex');
}

/** Which kind of key a presented credential claims to be, or null if it is not a key at all. */
export function classifyKey(value: string): KeyKind | null {
  const match = KEY_PATTERN.exec(value);
  if (!match) return null;
  return match[1] === 'sk' ? 'tenant' : match[1] === 'ck' ? 'customer' : 'portal';
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function keyHint(key: string): string {
  return `${key.slice(0, 8)}\u2026${key.slice(-4)}`;
}
