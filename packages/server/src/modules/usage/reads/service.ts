import type { AppContext } from '../../../platform/context.js';
import { toPage, type PageQuery } from '../../../platform/http/pagination.js';
import type { Principal } from '../../../platform/http/principal.js';
import { dec } from '../../../platform/money.js';
import { findFeatureByKey } from '../../catalog/index.js';
import { resolveCallerCustomer } from '../../customers/index.js';
import { resolveUsageWindow, type UsageWindow } from './domain.js';
import * as repo from './repo.js';

type UsageReadQuery = { from?: string | undefined; to?: string | undefined; featureKey?: string | undefined; subscriptionId?: string | undefined };

/**
 * The customer (pinned for a customer key: another reference is 403), the window, and the filter;
 * filter null when an unknown feature key means nothing can match.
 */
async function setup(ctx: AppContext, principal: Principal, ref: string, q: UsageReadQuery) {
  const window = resolveUsageWindow(q, ctx.clock.now());
  const customer = await resolveCallerCustomer(ctx.db, principal, ref);
  const feature = q.featureKey === undefined ? undefined : await findFeatureByKey(ctx.db, principal.accountId, q.featureKey);
  const filter: repo.UsageReadFilter | null =
    q.featureKey !== undefined && !feature ? null : { ...window, customerId: customer.id, featureId: feature?.id, subscriptionId: q.subscriptionId };
  return { customer, window, filter };
}

/** GET …/usage/events (contract agent-v2 §6.1): the customer's recorded events in the window, newest first, paged. */
export async function listCustomerUsageEvents(ctx: AppContext, principal: Principal, ref: string, q: PageQuery & UsageReadQuery) {
  const { filter } = await setup(ctx, principal, ref, q);
  if (!filter) return toPage([], 0, q);
  const [rows, total] = await Promise.all([repo.listCustomerEvents(ctx.db, principal.accountId, filter, q), repo.countCustomerEvents(ctx.db, principal.accountId, filter)]);
  return toPage(
    rows.map((r) => ({
      id: r.id,
      eventIdempotencyKey: r.event_idempotency_key,
      eventName: r.event_name,
      featureKey: r.feature_key,
      subscriptionId: r.subscription_id,
      usageUnits: dec(r.usage_units),
      usageUnitType: r.usage_unit_type,
      occurredAt: r.occurred_at,
    })),
    total,
    q,
  );
}

/** GET …/usage/history (contract agent-v2 §6.2): Σ units and count per (subscription, feature, event name) in the window. */
export async function getCustomerUsageHistory(ctx: AppContext, principal: Principal, ref: string, q: UsageReadQuery) {
  const { customer, window, filter } = await setup(ctx, principal, ref, q);
  const rows = filter ? await repo.sumCustomerUsage(ctx.db, principal.accountId, filter) : [];
  return {
    customerReferenceId: customer.customer_reference_id,
    ...(window satisfies UsageWindow),
    usage: rows.map((r) => ({
      subscriptionId: r.subscription_id,
      planKey: r.plan_key,
      featureKey: r.feature_key,
      eventName: r.event_name,
      usageUnits: dec(r.usage_units),
      events: Number(r.events),
      firstOccurredAt: r.first_occurred_at,
      lastOccurredAt: r.last_occurred_at,
    })),
  };
}
