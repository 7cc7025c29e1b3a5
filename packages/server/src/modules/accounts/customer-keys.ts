import type { Executor } from '../../platform/db/database.js';
import type { CustomerScope } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { generateKey, hashKey, keyHint, type KeyEnvironment } from '../../platform/security/api-keys.js';

/** Customer keys expire this many days after issue (contract §2.1). */
export const CUSTOMER_KEY_LIFETIME_DAYS = 1825;
const DAY_MS = 24 * 60 * 60 * 1000;

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
  const row = await db
    .selectFrom('api_keys')
    .select('key_hint')
    .where('account_id', '=', accountId)
    .where('kind', '=', 'TENANT')
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
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
