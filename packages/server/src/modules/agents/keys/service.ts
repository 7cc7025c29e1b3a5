import * as accounts from '../../accounts/index.js';
import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { toPage, type PageQuery } from '../../../platform/http/pagination.js';
import { customerPageQuery, getCustomerByRef, type CustomerTarget } from '../../customers/index.js';
import { computeKeyScopes } from './domain.js';

// Customer-key management (contract §2.4): tenant key only, the auth hook refuses customer keys.

/** The key object of contract §2.4, in its field order; `apiKey` only when just issued. */
function toKeyView(key: accounts.CustomerKey, customerReferenceId: string) {
  const { id, keyHint, scopes, active, expiresAt, createdAt } = key;
  return { id, customerReferenceId, keyHint, scopes, active, expiresAt, createdAt };
}

function toOperatorKeyView(key: accounts.CustomerKey, customerReferenceId: string) {
  return { ...toKeyView(key, customerReferenceId), revokedAt: key.revokedAt, lastUsedAt: key.lastUsedAt };
}

function toIssuedKeyView(key: accounts.IssuedCustomerKey, customerReferenceId: string) {
  const { id, apiKey, keyHint, scopes, active, expiresAt, createdAt } = key;
  return { id, customerReferenceId, apiKey, keyHint, scopes, active, expiresAt, createdAt };
}

/** New keys take the environment of the account's tenant key (`sk_live_` → `ck_live_`). */
const environmentOf = (ctx: AppContext, db: Executor, accountId: string) =>
  accounts.customerKeyEnvironment(db, accountId, ctx.config.apiKeyEnvironment);

export async function createCustomerKey(ctx: AppContext, target: CustomerTarget, requestedScopes: string[] | undefined) {
  const scopes = computeKeyScopes(requestedScopes);
  return withTransaction(ctx.db, async (tx) => {
    const customer = await getCustomerByRef(tx, target.accountId, target.ref);
    const key = await accounts.issueCustomerKey(tx, {
      accountId: target.accountId,
      customerId: customer.id,
      scopes,
      environment: await environmentOf(ctx, tx, target.accountId),
      now: ctx.clock.now(),
    });
    return toIssuedKeyView(key, customer.customer_reference_id);
  });
}

export const listCustomerKeyPage = (ctx: AppContext, target: CustomerTarget, page: PageQuery) => pageOfKeys(ctx, target, page, toKeyView);

/** The operator's view (console): each key with its revocation and last use. */
export const listOperatorKeyPage = (ctx: AppContext, target: CustomerTarget, page: PageQuery) => pageOfKeys(ctx, target, page, toOperatorKeyView);

async function pageOfKeys<V>(ctx: AppContext, target: CustomerTarget, page: PageQuery, toView: (key: accounts.CustomerKey, ref: string) => V) {
  const { customer, query } = await customerPageQuery(ctx, target, page);
  const { keys, total } = await accounts.listCustomerKeys(ctx.db, query);
  return toPage(keys.map((key) => toView(key, customer.customer_reference_id)), total, page);
}

/** Revokes the key and issues its replacement (same scopes) in one transaction. */
export async function rotateKey(ctx: AppContext, target: CustomerTarget, keyId: string) {
  return withTransaction(ctx.db, async (tx) => {
    const customer = await getCustomerByRef(tx, target.accountId, target.ref);
    const key = await accounts.rotateCustomerKey(tx, ctx.cache, {
      accountId: target.accountId,
      customerId: customer.id,
      keyId,
      environment: await environmentOf(ctx, tx, target.accountId),
      now: ctx.clock.now(),
    });
    return toIssuedKeyView(key, customer.customer_reference_id);
  });
}

/**
 * Idempotent: revoking a revoked key succeeds and keeps its first revocation time. A transaction
 * rather than one statement: the cache's notification to the other nodes commits with it.
 */
export async function revokeKey(ctx: AppContext, target: CustomerTarget, keyId: string) {
  const customer = await getCustomerByRef(ctx.db, target.accountId, target.ref);
  await withTransaction(ctx.db, (tx) =>
    accounts.revokeCustomerKey(tx, ctx.cache, { accountId: target.accountId, customerId: customer.id, keyId, now: ctx.clock.now() }),
  );
}
