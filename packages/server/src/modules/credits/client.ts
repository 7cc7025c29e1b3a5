import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors/app-error.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import type { Principal } from '../../platform/http/principal.js';
import { resolveCallerCustomer } from '../customers/index.js';
import * as repo from './repo.js';
import { toGrant, toPool, toTransaction } from './views.js';

/** A pool of the calling customer; another customer's or account's pool is a plain 404. */
async function customerPool(ctx: AppContext, principal: Principal, ref: string, poolId: string) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const pool = await repo.findPool(ctx.db, principal.accountId, poolId);
  if (!pool || pool.customer_id !== customer.id) throw notFound(`Credit pool not found: ${poolId}`);
  return pool;
}

export async function listPools(ctx: AppContext, principal: Principal, ref: string, page: PageQuery) {
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const [rows, total] = await Promise.all([
    repo.listPools(ctx.db, principal.accountId, { customerId: customer.id, limit: page.limit, offset: page.offset }),
    repo.countPools(ctx.db, principal.accountId, customer.id),
  ]);
  return toPage(rows.map(toPool), total, page);
}

export async function getPool(ctx: AppContext, principal: Principal, ref: string, poolId: string) {
  return toPool(await customerPool(ctx, principal, ref, poolId));
}

export async function listGrants(ctx: AppContext, principal: Principal, ref: string, poolId: string, page: PageQuery) {
  const pool = await customerPool(ctx, principal, ref, poolId);
  const [rows, total] = await Promise.all([repo.listGrants(ctx.db, principal.accountId, pool.id, page), repo.countGrants(ctx.db, principal.accountId, pool.id)]);
  return toPage(rows.map(toGrant), total, page);
}

export async function listTransactions(ctx: AppContext, principal: Principal, ref: string, poolId: string, page: PageQuery) {
  const pool = await customerPool(ctx, principal, ref, poolId);
  const [rows, total] = await Promise.all([repo.listTransactions(ctx.db, principal.accountId, pool.id, page), repo.countTransactions(ctx.db, principal.accountId, pool.id)]);
  return toPage(rows.map(toTransaction), total, page);
}
