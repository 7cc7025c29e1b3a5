import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { UsageEventsTable } from '../../platform/db/tables.js';

export type UsageEventRow = Selectable<UsageEventsTable>;

export type CheckContext = {
  customer_id: string;
  feature_id: string | null;
  subscription_id: string | null;
  plan_id: string | null;
  current_period_start: Date | null;
  current_period_end: Date | null;
  billing_anchor_day: number | null;
  entitlements_revoked: boolean | null;
  interval_months: number | null;
  rule_enabled: boolean | null;
  rule_value: Record<string, unknown> | null;
  credit_model_id: string | null;
  /** [{p: period_start ISO, u: used as text}] for periods from the current one on. */
  counters: { p: string; u: string }[] | null;
  used_total: string | null;
};

/**
 * Everything an entitlement check or an ingestion needs, in one round trip: the customer, the
 * feature, the customer's active subscription (newest), the plan's rule for the feature, and the
 * usage counters. Undefined when the customer does not exist.
 */
export async function loadCheckContext(db: Executor, accountId: string, customerRef: string, featureKey: string): Promise<CheckContext | undefined> {
  const { rows } = await sql<CheckContext>`
    select c.id as customer_id, f.id as feature_id,
           s.id as subscription_id, s.plan_id, s.current_period_start, s.current_period_end,
           s.billing_anchor_day, s.entitlements_revoked, p.interval_months,
           r.is_enabled as rule_enabled, r.value as rule_value, r.credit_model_id,
           (select json_agg(json_build_object('p', uc.period_start, 'u', uc.used::text))
              from usage_counters uc
             where uc.account_id = c.account_id and uc.subscription_id = s.id and uc.feature_id = f.id
               and uc.period_start >= s.current_period_start) as counters,
           (select sum(uc.used)::text from usage_counters uc
             where uc.account_id = c.account_id and uc.subscription_id = s.id and uc.feature_id = f.id) as used_total
      from customers c
      left join features f on f.account_id = c.account_id and f.key = ${featureKey}
      left join lateral (
        select * from subscriptions s
         where s.account_id = c.account_id and s.customer_id = c.id and s.is_active
         order by s.created_at desc limit 1) s on true
      left join plans p on p.account_id = s.account_id and p.id = s.plan_id
      left join plan_feature_rules r on r.account_id = s.account_id and r.plan_id = s.plan_id and r.feature_id = f.id
     where c.account_id = ${accountId} and c.customer_reference_id = ${customerRef}`.execute(db);
  return rows[0];
}

/** Creates the counter row if missing, then locks it: concurrent events on one counter serialise here. */
export async function lockCounter(db: Executor, key: { accountId: string; subscriptionId: string; featureId: string; periodStart: Date }) {
  await db
    .insertInto('usage_counters')
    .values({ account_id: key.accountId, subscription_id: key.subscriptionId, feature_id: key.featureId, period_start: key.periodStart, used: '0', revenue: '0' })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return db
    .selectFrom('usage_counters')
    .select(['used', 'revenue'])
    .where('account_id', '=', key.accountId)
    .where('subscription_id', '=', key.subscriptionId)
    .where('feature_id', '=', key.featureId)
    .where('period_start', '=', key.periodStart)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

export async function addToCounter(db: Executor, key: { accountId: string; subscriptionId: string; featureId: string; periodStart: Date }, units: string, revenue: string) {
  await db
    .updateTable('usage_counters')
    .set({ used: sql`used + ${units}::numeric`, revenue: sql`revenue + ${revenue}::numeric` })
    .where('account_id', '=', key.accountId)
    .where('subscription_id', '=', key.subscriptionId)
    .where('feature_id', '=', key.featureId)
    .where('period_start', '=', key.periodStart)
    .execute();
}

/** Inserts an event unless its idempotency key exists; undefined means a duplicate. */
export const insertEvent = (db: Executor, row: Omit<UsageEventRow, 'context' | 'meta' | 'input_tokens' | 'output_tokens'> & { context: string; meta: string | null; input_tokens: number | null; output_tokens: number | null }) =>
  db
    .insertInto('usage_events')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'event_idempotency_key']).doNothing())
    .returning(['id'])
    .executeTakeFirst();

export type EventFilter = {
  customerId?: string | undefined;
  featureId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  eventType?: UsageEventRow['event_type'] | undefined;
  flowId?: string | undefined;
};

function filtered(db: Executor, accountId: string, f: EventFilter) {
  let q = db.selectFrom('usage_events').where('usage_events.account_id', '=', accountId);
  if (f.customerId) q = q.where('customer_id', '=', f.customerId);
  if (f.featureId) q = q.where('feature_id', '=', f.featureId);
  if (f.from) q = q.where('occurred_at', '>=', f.from);
  if (f.to) q = q.where('occurred_at', '<', f.to);
  if (f.eventType) q = q.where('event_type', '=', f.eventType);
  if (f.flowId) q = q.where('flow_id', '=', f.flowId);
  return q;
}

export const listEvents = (db: Executor, accountId: string, f: EventFilter, page: { limit: number; offset: number }) =>
  filtered(db, accountId, f)
    .innerJoin('customers', 'customers.id', 'usage_events.customer_id')
    .innerJoin('features', 'features.id', 'usage_events.feature_id')
    .selectAll('usage_events')
    .select(['customers.customer_reference_id', 'features.key as feature_key'])
    .orderBy('occurred_at', 'desc')
    .orderBy('usage_events.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();

export async function countEvents(db: Executor, accountId: string, f: EventFilter): Promise<number> {
  const r = await filtered(db, accountId, f).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}
