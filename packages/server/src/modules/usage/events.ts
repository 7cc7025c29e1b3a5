import type { AppContext } from '../../platform/context.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import { dec } from '../../platform/money.js';
import * as catalogRepo from '../catalog/index.js';
import * as customersRepo from '../customers/index.js';
import * as repo from './repo.js';

export type EventListFilter = PageQuery & {
  customerReferenceId?: string | undefined;
  featureKey?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  eventType?: 'CLIENT_TRACKED' | 'ENTITLEMENT_CHECKED' | undefined;
  flowId?: string | undefined;
};

/** Events of the account; an unknown customer or feature filter simply matches nothing. */
export async function listEventPage(ctx: AppContext, accountId: string, q: EventListFilter) {
  const customer = q.customerReferenceId ? await customersRepo.findCustomerByRef(ctx.db, accountId, q.customerReferenceId) : undefined;
  const feature = q.featureKey ? await catalogRepo.findFeatureByKey(ctx.db, accountId, q.featureKey) : undefined;
  if ((q.customerReferenceId && !customer) || (q.featureKey && !feature)) return toPage([], 0, q);
  const filter: repo.EventFilter = {
    customerId: customer?.id,
    featureId: feature?.id,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    eventType: q.eventType,
    flowId: q.flowId,
  };
  const [rows, total] = await Promise.all([repo.listEvents(ctx.db, accountId, filter, q), repo.countEvents(ctx.db, accountId, filter)]);
  return toPage(
    rows.map((r) => ({
      id: r.id,
      eventName: r.event_name,
      eventIdempotencyKey: r.event_idempotency_key,
      eventType: r.event_type,
      customerReferenceId: r.customer_reference_id,
      featureKey: r.feature_key,
      subscriptionId: r.subscription_id,
      usageUnits: dec(r.usage_units),
      revenueAmount: dec(r.revenue_amount),
      costAmount: r.cost_amount === null ? null : dec(r.cost_amount),
      model: r.model,
      modelProvider: r.model_provider,
      inputTokens: r.input_tokens === null ? null : Number(r.input_tokens),
      outputTokens: r.output_tokens === null ? null : Number(r.output_tokens),
      flowId: r.flow_id,
      occurredAt: r.occurred_at,
      ingestedAt: r.ingested_at,
      context: r.context,
    })),
    total,
    q,
  );
}
