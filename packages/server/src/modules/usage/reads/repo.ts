import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { UsageWindow } from './domain.js';

/**
 * A customer's recorded usage (CLIENT_TRACKED only: entitlement-check audit rows are left out,
 * contract agent-v2 §6) in a window. Every table is filtered by the account itself, so Citus routes
 * the statement to the account's shard group (ADR 0023), and the window bounds `occurred_at`, so only
 * the months it touches are scanned (usage_events_customer_time_idx in each).
 */
export type UsageReadFilter = UsageWindow & { customerId: string; featureId?: string | undefined; subscriptionId?: string | undefined };

const where = (accountId: string, f: UsageReadFilter) => sql`
      e.account_id = ${accountId} and e.customer_id = ${f.customerId}
      and e.occurred_at >= ${f.from} and e.occurred_at < ${f.to}
      and e.event_type = 'CLIENT_TRACKED'
      ${f.featureId ? sql`and e.feature_id = ${f.featureId}` : sql``}
      ${f.subscriptionId ? sql`and e.subscription_id = ${f.subscriptionId}` : sql``}`;

export type CustomerEventRow = {
  id: string;
  event_idempotency_key: string;
  event_name: string;
  feature_key: string;
  subscription_id: string | null;
  usage_units: string;
  usage_unit_type: string | null;
  occurred_at: Date;
};

/**
 * One page of the customer's events, newest `occurredAt` first, ties by newest insert (ids are
 * UUIDv7). `usage_unit_type` is the unit of the rule the event's subscription's plan has for its
 * feature, null without a subscription or rule.
 */
export async function listCustomerEvents(db: Executor, accountId: string, f: UsageReadFilter, page: { limit: number; offset: number }): Promise<CustomerEventRow[]> {
  const result = await sql<CustomerEventRow>`
    select e.id, e.event_idempotency_key, e.event_name, ft.key as feature_key, e.subscription_id,
           e.usage_units::text as usage_units, r.value -> 'pricing' ->> 'usage_unit_type' as usage_unit_type, e.occurred_at
      from usage_events e
      join features ft on ft.account_id = ${accountId} and ft.id = e.feature_id
      left join subscriptions s on s.account_id = ${accountId} and s.id = e.subscription_id
      left join plan_feature_rules r on r.account_id = ${accountId} and r.plan_id = s.plan_id and r.feature_id = e.feature_id
     where ${where(accountId, f)}
     order by e.occurred_at desc, e.id desc
     limit ${page.limit} offset ${page.offset}`.execute(db);
  return result.rows;
}

export async function countCustomerEvents(db: Executor, accountId: string, f: UsageReadFilter): Promise<number> {
  const result = await sql<{ n: string }>`select count(*)::text as n from usage_events e where ${where(accountId, f)}`.execute(db);
  return Number(result.rows[0]!.n);
}

export type UsageHistoryRow = {
  subscription_id: string | null;
  plan_key: string | null;
  feature_key: string;
  event_name: string;
  usage_units: string;
  events: string;
  first_occurred_at: Date;
  last_occurred_at: Date;
};

/**
 * Σ units, count, first and last `occurredAt` per (subscription, feature, event name), ordered by
 * feature key, event name, then subscription id (no subscription last). Events are grouped on their
 * own columns and only the groups are joined to features, subscriptions and plans; an ended
 * subscription keeps its rows (usage outlives it).
 */
export async function sumCustomerUsage(db: Executor, accountId: string, f: UsageReadFilter): Promise<UsageHistoryRow[]> {
  const result = await sql<UsageHistoryRow>`
    with grouped as (
      select e.subscription_id, e.feature_id, e.event_name, sum(e.usage_units) as usage_units, count(*) as events,
             min(e.occurred_at) as first_occurred_at, max(e.occurred_at) as last_occurred_at
        from usage_events e
       where ${where(accountId, f)}
       group by e.subscription_id, e.feature_id, e.event_name
    )
    select g.subscription_id, p.key as plan_key, ft.key as feature_key, g.event_name, g.usage_units::text as usage_units,
           g.events::text as events, g.first_occurred_at, g.last_occurred_at
      from grouped g
      join features ft on ft.account_id = ${accountId} and ft.id = g.feature_id
      left join subscriptions s on s.account_id = ${accountId} and s.id = g.subscription_id
      left join plans p on p.account_id = ${accountId} and p.id = s.plan_id
     order by ft.key collate "C", g.event_name collate "C", g.subscription_id nulls last`.execute(db);
  return result.rows;
}
