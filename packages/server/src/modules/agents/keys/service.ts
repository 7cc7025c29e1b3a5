import * as accounts from '../../accounts/index.js';
import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { invalid, notFound } from '../../../platform/errors/app-error.js';
import { toPage, type PageQuery } from '../../../platform/http/pagination.js';
import { isUuid } from '../../../platform/ids.js';
import { customerPageQuery, findCustomerById, getCustomerByRef, type CustomerTarget } from '../../customers/index.js';
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

/** The Client API list: a page of the customer's keys, oldest first. */
export async function listCustomerKeyPage(ctx: AppContext, target: CustomerTarget, page: PageQuery) {
  const { customer, query } = await customerPageQuery(ctx, target, page);
  const { keys, total } = await accounts.listCustomerKeys(ctx.db, query);
  return toPage(keys.map((key) => toKeyView(key, customer.customer_reference_id)), total, page);
}

/**
 * The Admin API list (api-contract-agent-v2.md §2.1): every key of the customer, oldest first, as a
 * bare array (base §1.2), each in the operator's view (its revocation and last use), never `apiKey`.
 */
export async function listOperatorKeys(ctx: AppContext, target: CustomerTarget) {
  const customer = await getCustomerByRef(ctx.db, target.accountId, target.ref);
  const views: ReturnType<typeof toOperatorKeyView>[] = [];
  for (let offset = 0; ; offset += LIST_CHUNK) {
    const { keys, total } = await accounts.listCustomerKeys(ctx.db, { accountId: target.accountId, customerId: customer.id, limit: LIST_CHUNK, offset, now: ctx.clock.now() });
    views.push(...keys.map((key) => toOperatorKeyView(key, customer.customer_reference_id)));
    if (keys.length < LIST_CHUNK || offset + LIST_CHUNK >= total) return views;
  }
}

/** Keys read per statement by the bare-array list. */
const LIST_CHUNK = 500;

/**
 * The customer the Admin API twin names by our internal id (the console's), resolved within the
 * operator's account: the target of the Client API route it then behaves like (§2.1). Another
 * account's customer, an unknown id or one that is not a UUID: 404; a customer without a reference
 * (none can be created today, the column is required): 400 with the original's message.
 */
export async function customerTargetById(ctx: AppContext, accountId: string, customerId: string): Promise<CustomerTarget> {
  const customer = isUuid(customerId) ? await findCustomerById(ctx.db, accountId, customerId) : undefined;
  if (!customer) throw notFound(`Customer not found: ${customerId}`);
  if (!customer.customer_reference_id?.trim()) throw invalid('This customer has no Reference ID. Add one before issuing customer-scoped keys.');
  return { accountId, ref: customer.customer_reference_id };
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
