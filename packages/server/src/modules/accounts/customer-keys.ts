import type { Selectable } from 'kysely';
import type { NodeCache } from '../../platform/cache/node-cache.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { AppError, notFound } from '../../platform/errors/app-error.js';
import type { CustomerScope } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { generateKey, hashKey, keyHint, type KeyEnvironment } from '../../platform/security/api-keys.js';
import { forgetAccountKeys } from './key-cache.js';
import { findActiveTenantKeyHint } from './repo.js';
import type { ApiKeysTable } from './tables.js';

/** Customer keys expire this many days after issue (contract §2.1). */
const CUSTOMER_KEY_LIFETIME_DAYS = 1825;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A customer key as listed: hint only, never the plaintext (which is not stored). */
export type CustomerKey = {
  id: string;
  customerId: string;
  keyHint: string;
  scopes: CustomerScope[];
  /** Usable now: neither revoked nor expired (an expired key answers 401 like a revoked one). */
  active: boolean;
  expiresAt: Date | null;
  createdAt: Date;
  /** When the key was revoked or rotated away; null while it is not. */
  revokedAt: Date | null;
  /** Last request it authenticated, at most a minute stale (`KEY_USE_RESOLUTION_MS`); null if never. */
  lastUsedAt: Date | null;
};

export type IssuedCustomerKey = {
  id: string;
  customerId: string;
  /** Plaintext: returned once, never stored. */
  apiKey: string;
  keyHint: string;
  scopes: CustomerScope[];
  active: true;
  expiresAt: Date;
  createdAt: Date;
};

/**
 * The environment (`test`/`live`) of the account's active tenant key, so its customer keys follow it
 * (`sk_live_` → `ck_live_`); the configured environment when the account has no active tenant key.
 */
export async function customerKeyEnvironment(db: Executor, accountId: string, fallback: KeyEnvironment): Promise<KeyEnvironment> {
  const row = await findActiveTenantKeyHint(db, accountId);
  if (row?.key_hint.startsWith('sk_live_')) return 'live';
  if (row?.key_hint.startsWith('sk_test_')) return 'test';
  return fallback;
}

/** Writes a new customer key (only its hash and hint are stored) inside the caller's transaction. */
export async function issueCustomerKey(
  tx: Executor,
  input: { accountId: string; customerId: string; scopes: CustomerScope[]; environment: KeyEnvironment; now: Date },
): Promise<IssuedCustomerKey> {
  const apiKey = generateKey('customer', input.environment);
  const id = newId();
  const expiresAt = new Date(input.now.getTime() + CUSTOMER_KEY_LIFETIME_DAYS * DAY_MS);
  const hint = keyHint(apiKey);
  await tx
    .insertInto('api_keys')
    .values({
      id,
      account_id: input.accountId,
      kind: 'CUSTOMER',
      customer_id: input.customerId,
      scopes: input.scopes,
      key_hash: hashKey(apiKey),
      key_hint: hint,
      created_at: input.now,
      expires_at: expiresAt,
      revoked_at: null,
    })
    .execute();
  return { id, customerId: input.customerId, apiKey, keyHint: hint, scopes: input.scopes, active: true, expiresAt, createdAt: input.now };
}

const KEY_COLUMNS = ['id', 'customer_id', 'key_hint', 'scopes', 'expires_at', 'created_at', 'revoked_at', 'last_used_at'] as const;

/** A key's row as listed: every column but the account, the kind and the hash. */
type KeyRow = Pick<Selectable<ApiKeysTable>, (typeof KEY_COLUMNS)[number]>;

/** Whether a key authenticates at `now`: the same rule as the principal lookup (not revoked, not expired). */
function isCustomerKeyActive(key: { revoked_at: Date | null; expires_at: Date | null }, now: Date): boolean {
  return key.revoked_at === null && (key.expires_at === null || key.expires_at > now);
}

function toCustomerKey(row: KeyRow, now: Date): CustomerKey {
  return {
    id: row.id,
    customerId: row.customer_id!,
    keyHint: row.key_hint,
    scopes: row.scopes as CustomerScope[],
    active: isCustomerKeyActive(row, now),
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

const keyNotFound = (keyId: string) => notFound(`API key not found: ${keyId}`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Throws 404 `API key not found: <keyId>` unless `keyId` names a customer key (revoked or not) of
 * this customer: another customer's key, a tenant key, an unknown id and a non-UUID alike.
 */
export async function requireCustomerKey(db: Executor, input: { accountId: string; customerId: string; keyId: string }): Promise<void> {
  const row = UUID.test(input.keyId)
    ? await db
        .selectFrom('api_keys')
        .select('id')
        .where('id', '=', input.keyId)
        .where('account_id', '=', input.accountId)
        .where('kind', '=', 'CUSTOMER')
        .where('customer_id', '=', input.customerId)
        .executeTakeFirst()
    : undefined;
  if (!row) throw keyNotFound(input.keyId);
}

/**
 * One page of a customer's keys, revoked and expired ones included (`active: false`), oldest first
 * (created_at, then id): new keys land at the end, so paging while keys are issued skips none.
 */
export async function listCustomerKeys(
  db: Executor,
  input: { accountId: string; customerId: string; limit: number; offset: number; now: Date },
): Promise<{ keys: CustomerKey[]; total: number }> {
  const scope = db
    .selectFrom('api_keys')
    .where('account_id', '=', input.accountId)
    .where('kind', '=', 'CUSTOMER')
    .where('customer_id', '=', input.customerId);
  const [rows, count] = await Promise.all([
    scope.select(KEY_COLUMNS).orderBy('created_at').orderBy('id').limit(input.limit).offset(input.offset).execute(),
    scope.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { keys: rows.map((row) => toCustomerKey(row, input.now)), total: Number(count.total) };
}

/**
 * Revokes one of the customer's keys inside the caller's transaction: from the next request on it
 * answers 401 on this node, and on every other node once the commit's notification arrives
 * (ADR 0013). Revoking a revoked key changes nothing and succeeds. 404 for a key of another
 * customer or account.
 */
export async function revokeCustomerKey(
  tx: Tx,
  cache: NodeCache,
  input: { accountId: string; customerId: string; keyId: string; now: Date },
): Promise<void> {
  const row = await tx
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(input.now)) }))
    .where('id', '=', input.keyId)
    .where('account_id', '=', input.accountId)
    .where('kind', '=', 'CUSTOMER')
    .where('customer_id', '=', input.customerId)
    .returning('id')
    .executeTakeFirst();
  if (!row) throw keyNotFound(input.keyId);
  await forgetAccountKeys(cache, tx, input.accountId);
}

/**
 * Replaces one of the customer's keys, inside the caller's transaction: revokes it and issues a new
 * one with the same scopes; the customer's other keys are untouched. The old key's row is locked, so
 * of two concurrent rotations one wins and the other finds it revoked. A revoked key is 409 (it was
 * deliberately ended: issue a new key instead); an expired one may be rotated, which is how it is
 * renewed.
 */
export async function rotateCustomerKey(
  tx: Tx,
  cache: NodeCache,
  input: { accountId: string; customerId: string; keyId: string; environment: KeyEnvironment; now: Date },
): Promise<IssuedCustomerKey> {
  const old = await tx
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .where('id', '=', input.keyId)
    .where('account_id', '=', input.accountId)
    .where('kind', '=', 'CUSTOMER')
    .where('customer_id', '=', input.customerId)
    .forUpdate()
    .executeTakeFirst();
  if (!old) throw keyNotFound(input.keyId);
  if (old.revoked_at !== null) throw new AppError('conflict', `API key is revoked and cannot be rotated: ${input.keyId}`);
  await tx.updateTable('api_keys').set({ revoked_at: input.now }).where('id', '=', old.id).execute();
  await forgetAccountKeys(cache, tx, input.accountId);
  return issueCustomerKey(tx, {
    accountId: input.accountId,
    customerId: input.customerId,
    scopes: old.scopes as CustomerScope[],
    environment: input.environment,
    now: input.now,
  });
}

/**
 * Revokes every active key of the customer inside the caller's transaction (an expired provisional
 * customer, api-contract-agent-v2.md §4.7); every node forgets the account's cached keys on commit.
 * Returns how many it revoked.
 */
export async function revokeAllCustomerKeys(tx: Tx, cache: NodeCache, input: { accountId: string; customerId: string; now: Date }): Promise<number> {
  const rows = await tx
    .updateTable('api_keys')
    .set({ revoked_at: input.now })
    .where('account_id', '=', input.accountId)
    .where('kind', '=', 'CUSTOMER')
    .where('customer_id', '=', input.customerId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  if (rows.length > 0) await forgetAccountKeys(cache, tx, input.accountId);
  return rows.length;
}
