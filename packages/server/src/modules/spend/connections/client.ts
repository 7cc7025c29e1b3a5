import type { AppContext } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors/app-error.js';
import type { ConnectionRow } from './repo.js';
import { guardedDispatcher, outboundPolicyOf } from '../../../platform/http/outbound-guard.js';
import { vendorClient, type VendorClient, type VendorClientOptions } from '../vendors/index.js';
import { baseUrlOf, PROVIDERS } from '../providers.js';

/** Where a connection's admin key is sealed: bound to its account, row and field. */
export const sealContext = (accountId: string, id: string) => `spend_connections:${accountId}:${id}:admin_key`;

/** The vendor client for a connection: its key opened, LiteLLM's proxy reached only through the guard. */
export function clientFor(ctx: AppContext, row: ConnectionRow): VendorClient {
  return vendorClient(row.provider, vendorOptionsFor(ctx, row));
}

/**
 * What a client of this connection needs: its origin, its key opened, the vendor call limits
 * (`limits` overrides them, e.g. the gateway push's shorter timeout) and, for LiteLLM, the guard.
 */
export function vendorOptionsFor(ctx: AppContext, row: ConnectionRow, limits?: { timeoutMs: number; maxRetries: number }): VendorClientOptions {
  if (!row.admin_key_sealed) throw notFound(`Connection ${row.id} not found`);
  const spend = ctx.config.spend;
  return {
    baseUrl: baseUrlOf(spend, row.provider, row.scope),
    adminKey: ctx.secrets.open(row.admin_key_sealed, sealContext(row.account_id, row.id)),
    scope: row.scope,
    timeoutMs: limits?.timeoutMs ?? spend.vendorTimeoutMs,
    maxRetries: limits?.maxRetries ?? spend.vendorMaxRetries,
    onAnswer: (status) => ctx.metrics.outboundCall(PROVIDERS[row.provider].metricName, status),
    // The vendor origins are the operator's configuration; LiteLLM's is the tenant's URL, checked
    // again on every connection (DNS rebinding).
    ...(row.provider === 'LITELLM' ? { dispatcher: guardDispatcherOf(ctx) } : {}),
  };
}

const dispatchers = new WeakMap<AppContext, ReturnType<typeof guardedDispatcher>>();
function guardDispatcherOf(ctx: AppContext) {
  let dispatcher = dispatchers.get(ctx);
  if (!dispatcher) dispatchers.set(ctx, (dispatcher = guardedDispatcher(outboundPolicyOf(ctx.config))));
  return dispatcher;
}

