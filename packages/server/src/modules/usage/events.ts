import type { AppContext } from '../../platform/context.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import { dec, type Decimal } from '../../platform/money.js';
import { findFeatureByKey } from '../catalog/index.js';
import { findCustomerByRef } from '../customers/index.js';
import * as repo from './repo.js';

type EventListFilter = PageQuery & {
  customerReferenceId?: string | undefined;
  featureKey?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  eventType?: 'CLIENT_TRACKED' | 'ENTITLEMENT_CHECKED' | undefined;
  flowId?: string | undefined;
};

type EventQuery = Omit<EventListFilter, 'limit' | 'offset'>;

/** The repo filter for a query; null when an unknown customer or feature means nothing can match. */
async function toEventFilter(ctx: AppContext, accountId: string, q: EventQuery): Promise<repo.EventFilter | null> {
  const customer = q.customerReferenceId ? await findCustomerByRef(ctx.db, accountId, q.customerReferenceId) : undefined;
  const feature = q.featureKey ? await findFeatureByKey(ctx.db, accountId, q.featureKey) : undefined;
  if ((q.customerReferenceId && !customer) || (q.featureKey && !feature)) return null;
  return {
    customerId: customer?.id,
    featureId: feature?.id,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    eventType: q.eventType,
    flowId: q.flowId,
  };
}

/** Events of the account; an unknown customer or feature filter simply matches nothing. */
export async function listEventPage(ctx: AppContext, accountId: string, q: EventListFilter) {
  const filter = await toEventFilter(ctx, accountId, q);
  if (!filter) return toPage([], 0, q);
  await ctx.batches.flush(); // this node's checks written behind are listed too (ADR 0013)
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

/** Most groups one grouped read returns (a day per group covers almost three years). */
const MAX_EVENT_GROUPS = 1000;

/**
 * Usage events of the account summed per customer, feature, event name, model or UTC day, with the
 * same filters as the event list: count, usage units, revenue and cost per group, exact.
 */
export async function groupEventTotals(ctx: AppContext, accountId: string, q: EventQuery & { groupBy: repo.EventGroupBy }) {
  const filter = await toEventFilter(ctx, accountId, q);
  if (!filter) return { groupBy: q.groupBy, items: [], truncated: false };
  await ctx.batches.flush();
  const rows = await repo.groupEvents(ctx.db, accountId, filter, q.groupBy, MAX_EVENT_GROUPS + 1);
  return {
    groupBy: q.groupBy,
    items: rows.slice(0, MAX_EVENT_GROUPS).map((r) => ({
      key: r.key,
      eventCount: Number(r.event_count),
      usageUnits: dec(r.usage_units),
      revenueAmount: dec(r.revenue_amount),
      costAmount: dec(r.cost_amount),
    })),
    truncated: rows.length > MAX_EVENT_GROUPS,
  };
}

export type FeatureEventTotals = { eventCount: number; revenueAmount: Decimal; costAmount: Decimal };

/**
 * Per feature (of `featureIds`, this account's): the count, Σ revenueAmount and Σ costAmount of
 * its CLIENT_TRACKED and ENTITLEMENT_CHECKED events with occurredAt in [from, to), summed in SQL,
 * exact, in the account's currency (major units). A feature without events is absent. For the
 * spend module's feature P&L. This node's check audit rows written behind are flushed first (ADR 0013).
 */
export async function sumFeatureEventTotals(ctx: Pick<AppContext, 'db' | 'batches'>, accountId: string, featureIds: readonly string[], from: Date, to: Date): Promise<Map<string, FeatureEventTotals>> {
  await ctx.batches.flush();
  const rows = await repo.sumEventsPerFeature(ctx.db, accountId, featureIds, from, to);
  return new Map(rows.map((r) => [r.feature_id, { eventCount: Number(r.event_count), revenueAmount: dec(r.revenue_amount), costAmount: dec(r.cost_amount) }]));
}

const DAY_MS = 86_400_000;

/** The overview's window: `days` whole UTC days ending with `now`'s day, as a half-open [from, to). */
function overviewWindow(now: Date, days: number): { from: Date; to: Date; dayKeys: string[] } {
  const to = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS;
  const from = to - days * DAY_MS;
  const dayKeys = Array.from({ length: days }, (_, i) => new Date(from + i * DAY_MS).toISOString().slice(0, 10));
  return { from: new Date(from), to: new Date(to), dayKeys };
}

type Totals = { eventCount: number; usageUnits: Decimal; revenueAmount: Decimal; costAmount: Decimal };

const toTotals = (r: repo.EventOverviewRow): Totals => ({
  eventCount: Number(r.event_count),
  usageUnits: dec(r.usage_units),
  revenueAmount: dec(r.revenue_amount),
  costAmount: dec(r.cost_amount),
});

/**
 * The console overview's usage figures in one read: every day of the window (zeros included), and
 * the `top` features and customers by event count (ties by key), from one grouped scan.
 */
export async function getEventOverview(ctx: AppContext, accountId: string, q: { days: number; top: number; eventType?: 'CLIENT_TRACKED' | 'ENTITLEMENT_CHECKED' | undefined }) {
  const { from, to, dayKeys } = overviewWindow(ctx.clock.now(), q.days);
  await ctx.batches.flush(); // this node's checks written behind count too (ADR 0013)
  const rows = await repo.overviewEvents(ctx.db, accountId, { from, to, eventType: q.eventType });
  const byDay = new Map(rows.filter((r) => r.dimension === 'day').map((r) => [r.key, toTotals(r)]));
  const zero = (): Totals => ({ eventCount: 0, usageUnits: dec('0'), revenueAmount: dec('0'), costAmount: dec('0') });
  const top = (dimension: 'feature' | 'customer') =>
    rows
      .filter((r) => r.dimension === dimension)
      .map((r) => ({ key: r.key, ...toTotals(r) }))
      .sort((a, b) => b.eventCount - a.eventCount || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, q.top);
  return {
    from,
    to,
    days: dayKeys.map((day) => ({ day, ...(byDay.get(day) ?? zero()) })),
    topFeatures: top('feature'),
    topCustomers: top('customer'),
  };
}
