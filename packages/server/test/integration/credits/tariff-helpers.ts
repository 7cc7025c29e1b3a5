import { toJsonb } from '../../../src/platform/db/jsonb.js';
import { newId } from '../../../src/platform/ids.js';
import { generateKey, hashKey, keyHint } from '../../../src/platform/security/api-keys.js';
import type { TestService } from '../../harness.js';

/** ISO instant `ms` from the service's frozen clock (negative: in the past). */
export const inMs = (svc: TestService, ms: number) => new Date(svc.clock.now().getTime() + ms).toISOString();

export async function countRows(svc: TestService, table: 'credit_weights' | 'credit_prices'): Promise<number> {
  const row = await svc.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A credit model written straight to the table: the models API belongs to the credit wallets work
 * landing beside this module, so these tests do not depend on it.
 */
export async function insertCreditModel(svc: TestService, accountId: string, denomination: string, options: { deleted?: boolean } = {}): Promise<string> {
  const id = newId();
  const now = svc.clock.now();
  await svc.ctx.db
    .insertInto('credit_models')
    .values({
      id,
      account_id: accountId,
      name: `${denomination} credits ${id.slice(-6)}`,
      denomination,
      description: null,
      hard_limit: false,
      rollover_policy: 'NONE',
      rollover_cap: null,
      metadata: toJsonb({}),
      deleted_at: options.deleted ? now : null,
      created_at: now,
      modified_at: now,
    })
    .execute();
  return id;
}

/** A customer-scoped key for `customerRef` (issued by the agent surface in production; written directly here). */
export async function issueCustomerKey(svc: TestService, accountId: string, customerRef: string): Promise<string> {
  const customer = await svc.ctx.db
    .selectFrom('customers')
    .select('id')
    .where('account_id', '=', accountId)
    .where('customer_reference_id', '=', customerRef)
    .executeTakeFirstOrThrow();
  const key = generateKey('customer', 'test');
  await svc.ctx.db
    .insertInto('api_keys')
    .values({ id: newId(), account_id: accountId, kind: 'CUSTOMER', customer_id: customer.id, scopes: ['read'], key_hash: hashKey(key), key_hint: keyHint(key), created_at: svc.clock.now(), expires_at: null, revoked_at: null })
    .execute();
  return key;
}
