import { sql } from 'kysely';
import type { Jsonb } from '../../platform/db/jsonb.js';
import { arrayLiteral as arr, distinctDocuments } from '../../platform/db/array-literal.js';
import type { Executor } from '../../platform/db/database.js';
import type { UsageEventRow } from './tables.js';
import { dec } from '../../platform/money.js';
import { usageRecordedWanted } from './recorded.js';
import { usageThresholdPercents } from './thresholds.js';

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
  /** Denomination of the rule's credit model (null: not credit-backed or the model was deleted). */
  credit_denomination: string | null;
  /** Usage counted in the subscription's current period (text: exact). */
  used_current: string | null;
  /** Usage counted in every period of the subscription, for accumulate mode. */
  used_total: string | null;
};

/**
 * The columns of the check context whose change changes what an ingested event writes, hashed: a
 * context kept in memory (ingest/context-memory.ts) is used only by a statement that recomputes this fingerprint
 * from the rows it reads and finds it equal (`insertEventCounting` with a guard).
 */
const CONTEXT_FINGERPRINT = sql<string>`md5(row(c.id, f.id, s.id, s.plan_id, s.current_period_start, s.current_period_end, s.billing_anchor_day,
  p.interval_months, r.is_enabled, r.value, cm.denomination)::text)`;

/**
 * The joins of the check context for one (customer reference, feature key): the customer, the
 * feature, the customer's active subscription (newest), the plan, its rule for the feature and the
 * rule's credit model, and (`counter`) the current period's usage counter: `c`, `f`, `s`, `p`, `r`,
 * `cm`, `uc` for the caller's select list. Every table, subquery included, is filtered by the account
 * itself (not through a join): so Citus routes the whole statement to the account's shard group, a
 * router query (ADR 0023; a filter reached only through a lateral or scalar subquery's join is not
 * followed, and the statement would go to every shard).
 */
const contextJoins = (accountId: unknown, customerRef: unknown, featureKey: unknown, counter = true) => sql`
      customers c
      left join features f on f.account_id = ${accountId} and f.key = ${featureKey}
      left join lateral (
        select * from subscriptions s
         where s.account_id = ${accountId} and s.customer_id = c.id and s.is_active
         order by s.created_at desc limit 1) s on true
      left join plans p on p.account_id = ${accountId} and p.id = s.plan_id
      left join plan_feature_rules r on r.account_id = ${accountId} and r.plan_id = s.plan_id and r.feature_id = f.id
      left join credit_models cm on cm.account_id = ${accountId} and cm.id = r.credit_model_id and cm.deleted_at is null
      ${counter ? sql`left join usage_counters uc on uc.account_id = ${accountId} and uc.subscription_id = s.id
                                  and uc.feature_id = f.id and uc.period_start = s.current_period_start` : sql``}
     where c.account_id = ${accountId} and c.customer_reference_id = ${customerRef}`;

const contextColumns = (accountId: unknown) => sql`c.id as customer_id, f.id as feature_id,
           s.id as subscription_id, s.plan_id, s.current_period_start, s.current_period_end,
           s.billing_anchor_day, s.entitlements_revoked, p.interval_months,
           r.is_enabled as rule_enabled, r.value as rule_value, cm.denomination as credit_denomination,
           uc.used::text as used_current,
           case when r.value -> 'pricing' ->> 'reset_mode' = 'accumulate' then
             (select sum(t.used)::text from usage_counters t
               where t.account_id = ${accountId} and t.subscription_id = s.id and t.feature_id = f.id)
           end as used_total`;

/**
 * Everything an entitlement check or an ingestion needs, in one round trip: the customer, the
 * feature, the customer's active subscription (newest), the plan's rule for the feature, and the
 * usage counters (one primary-key row for the current period). Undefined when the customer does not
 * exist.
 */
export async function loadCheckContext(db: Executor, accountId: string, customerRef: string, featureKey: string): Promise<VersionedCheckContext | undefined> {
  const { rows } = await sql<VersionedCheckContext>`
    select ${contextColumns(accountId)}, ${contextVersion(accountId)} as context_version
      from ${contextJoins(accountId, customerRef, featureKey)}`.execute(db);
  return rows[0];
}

/** A check context with the version of its account's contexts it was read at (migration 0033, ADR 0030). */
export type VersionedCheckContext = CheckContext & { context_version: string };

/** The account's entitlement-context version: bumped (at commit) by every change to a row a context is read from. */
const contextVersion = (accountId: string) => sql<string>`coalesce((select v.version from entitlement_context_versions v where v.account_id = ${accountId}), 0)::text`;

/**
 * What a check reads when it holds a context in memory (ADR 0030): the account's context version,
 * and the usage the context's rule counts (the current period's counter; every period's for
 * accumulate), all primary-key reads in one statement. The caller uses its context only if the
 * version equals the one it was read at; counters are never cached.
 */
export async function readCheckUsage(db: Executor, accountId: string, c: CheckContext, accumulate: boolean): Promise<{ context_version: string; used_current: string | null; used_total: string | null }> {
  const { rows } = await sql<{ context_version: string; used_current: string | null; used_total: string | null }>`
    select coalesce((select v.version from entitlement_context_versions v where v.account_id = ${accountId}), 0)::text as context_version,
           (select uc.used::text from usage_counters uc
             where uc.account_id = ${accountId} and uc.subscription_id = ${c.subscription_id} and uc.feature_id = ${c.feature_id}
               and uc.period_start = ${c.current_period_start}) as used_current,
           case when ${accumulate} then
             (select sum(t.used)::text from usage_counters t
               where t.account_id = ${accountId} and t.subscription_id = ${c.subscription_id} and t.feature_id = ${c.feature_id})
           end as used_total`.execute(db);
  return rows[0]!;
}

/** The check context an ingestion reads: with its fingerprint and whether the account wants `usage_recorded`. */
export type IngestContext = CheckContext & {
  fingerprint: string;
  recorded_wanted: boolean;
  /** The account's usageThresholdPercents (usage.threshold_reached, thresholds.ts); [] when off. */
  threshold_percents: number[];
  /** The subscription's creation: the window of an accumulate rule's thresholds. */
  subscription_created_at: Date | null;
};

/** The account-level facts an ingestion context carries beside the check context (no round trip of their own). */
const ingestExtras = (accountId: unknown) =>
  sql`${usageRecordedWanted.call(sql`${accountId}::uuid`)} as recorded_wanted, ${usageThresholdPercents.call(sql`${accountId}::uuid`)} as threshold_percents, s.created_at as subscription_created_at`;

/** The ingestion's context (see IngestContext) of one (customer reference, feature key). */
export async function loadIngestContext(db: Executor, accountId: string, customerRef: string, featureKey: string): Promise<IngestContext | undefined> {
  const { rows } = await sql<IngestContext>`
    select ${contextColumns(accountId)}, ${CONTEXT_FINGERPRINT} as fingerprint, ${ingestExtras(accountId)}
      from ${contextJoins(accountId, customerRef, featureKey)}`.execute(db);
  return rows[0];
}

/**
 * The ingestion contexts of many (customer reference, feature key) pairs of one account in one
 * statement (batch ingestion, a hot customer's group); pairs whose customer does not exist are absent.
 */
export async function loadIngestContexts(db: Executor, accountId: string, pairs: { ref: string; featureKey: string }[]): Promise<(IngestContext & { ref: string; feature_key: string })[]> {
  if (pairs.length === 0) return [];
  const { rows } = await sql<IngestContext & { ref: string; feature_key: string }>`
    select q.ref, q.feature_key, x.* from unnest(${pairs.map((p) => p.ref)}::text[], ${pairs.map((p) => p.featureKey)}::text[]) as q(ref, feature_key)
      join lateral (
        select ${contextColumns(accountId)}, ${CONTEXT_FINGERPRINT} as fingerprint, ${ingestExtras(accountId)}
          from ${contextJoins(accountId, sql`q.ref`, sql`q.feature_key`)}) x on true`.execute(db);
  return rows;
}

/**
 * Usage already counted in the counter's period: from the context row when it is the current one,
 * else read (the rare path when the cycle job has not yet rolled a period).
 */
export async function usedInPeriod(db: Executor, c: CheckContext, key: CounterKey): Promise<string | null> {
  return c.current_period_start && c.current_period_start.getTime() === key.periodStart.getTime() ? c.used_current : findCounterUsed(db, key);
}

async function findCounterUsed(db: Executor, key: CounterKey): Promise<string | null> {
  const row = await db
    .selectFrom('usage_counters')
    .select(sql<string>`used::text`.as('used'))
    .where('account_id', '=', key.accountId)
    .where('subscription_id', '=', key.subscriptionId)
    .where('feature_id', '=', key.featureId)
    .where('period_start', '=', key.periodStart)
    .executeTakeFirst();
  return row?.used ?? null;
}

/** Every period counter of a subscription (the usage report's read). */
export const listSubscriptionCounters = (db: Executor, accountId: string, subscriptionId: string) =>
  db
    .selectFrom('usage_counters')
    .select(['feature_id', 'period_start', sql<string>`used::text`.as('used')])
    .where('account_id', '=', accountId)
    .where('subscription_id', '=', subscriptionId)
    .execute();

export type CounterKey = { accountId: string; subscriptionId: string; featureId: string; periodStart: Date };

export type NewEvent = Omit<UsageEventRow, 'context' | 'meta' | 'input_tokens' | 'output_tokens'> & {
  context: Jsonb;
  meta: Jsonb | null;
  input_tokens: number | null;
  output_tokens: number | null;
};

/**
 * Stores an event and counts it in one statement (so one implicit transaction): the counter upsert
 * adds the units only while the cap holds, and the event is written with its usage, revenue, cost
 * and context when counted, or with the zeroed variants when not. A repeated idempotency key fails
 * the whole statement with a unique violation, so the counter is untouched. Returns whether the
 * event was counted.
 *
 * With a `guard` (the event was planned from a context kept in memory) the statement first reads
 * the context again and writes only if its fingerprint is unchanged and the account still wants no
 * `usage_recorded`; otherwise it writes nothing and returns null (the caller reads the context and
 * plans again). The check and the writes see one snapshot, so the event is written exactly as if
 * its context had been read by this statement.
 */
export async function insertEventCounting(
  db: Executor,
  event: NewEvent,
  zeroed: Pick<NewEvent, 'usage_units' | 'revenue_amount' | 'cost_amount' | 'context'>,
  counter: { key: CounterKey; cap: { maxUsage: string; alreadyUsedElsewhere: string } | null },
  guard?: ContextGuard,
): Promise<boolean | null> {
  const { key, cap } = counter;
  const fitsEmpty = !cap || dec(event.usage_units).plus(dec(cap.alreadyUsedElsewhere)).lte(dec(cap.maxUsage));
  const capCheck = cap
    ? sql`usage_counters.used + excluded.used + ${cap.alreadyUsedElsewhere}::numeric <= ${cap.maxUsage}::numeric`
    : sql`true`;
  const pick = (counted: unknown, zero: unknown) => sql`case when exists (select 1 from c) then ${counted} else ${zero} end`;
  const guarded = guard ? sql`and exists (select 1 from g)` : sql``;
  const { rows } = await sql<{ counted: boolean }>`
    with ${guard ? sql`g as (select 1 from ${contextJoins(event.account_id, guard.customerRef, guard.featureKey, false)}
                                and ${CONTEXT_FINGERPRINT} = ${guard.fingerprint} and not ${usageRecordedWanted.call(sql`${event.account_id}::uuid`)}
                                and (not ${guard.limited}::boolean or cardinality(${usageThresholdPercents.call(sql`${event.account_id}::uuid`)}) = 0)),` : sql``}
    k as (${claimKey(event, guard ? sql`where exists (select 1 from g)` : sql``)}),
    c as (
      insert into usage_counters (account_id, subscription_id, feature_id, period_start, used, revenue)
      select ${key.accountId}::uuid, ${key.subscriptionId}::uuid, ${key.featureId}::uuid, ${key.periodStart}::timestamptz,
             ${event.usage_units}::numeric, ${event.revenue_amount}::numeric
       where ${fitsEmpty}::boolean ${guarded}
      on conflict (account_id, subscription_id, feature_id, period_start) do update
        set used = usage_counters.used + excluded.used, revenue = usage_counters.revenue + excluded.revenue
        where ${capCheck}
      returning 1),
    e as (
      insert into usage_events (id, account_id, customer_id, feature_id, subscription_id, event_type, event_name,
        event_idempotency_key, usage_units, revenue_amount, cost_amount, model, model_provider, input_tokens,
        output_tokens, flow_id, occurred_at, ingested_at, context, meta)
      select ${event.id}::uuid, ${event.account_id}::uuid, ${event.customer_id}::uuid, ${event.feature_id}::uuid,
        ${event.subscription_id}::uuid, ${event.event_type}, ${event.event_name}, ${event.event_idempotency_key},
        ${pick(sql`${event.usage_units}::numeric`, sql`${zeroed.usage_units}::numeric`)},
        ${pick(sql`${event.revenue_amount}::numeric`, sql`${zeroed.revenue_amount}::numeric`)},
        ${pick(sql`${event.cost_amount}::numeric`, sql`${zeroed.cost_amount}::numeric`)},
        ${event.model}, ${event.model_provider}, ${event.input_tokens}::bigint, ${event.output_tokens}::bigint,
        ${event.flow_id}, ${event.occurred_at}::timestamptz, ${event.ingested_at}::timestamptz,
        ${pick(sql`${event.context}::jsonb`, sql`${zeroed.context}::jsonb`)}, ${event.meta}::jsonb
       where true ${guarded}
      returning id)
    select exists (select 1 from c) as counted from e`.execute(db);
  return rows[0]?.counted ?? null;
}

/**
 * The claim of an event's idempotency key (usage_event_keys, migration 0028): the events table is
 * partitioned by month, so the key's uniqueness across every month lives in that table. Without ON
 * CONFLICT a repeated key fails the statement (UNIQUE_CONSTRAINTS.usageEventKey). `onlyIf`: a
 * WHERE clause (the guard of a remembered context) under which the key is claimed at all.
 */
const claimKey = (e: NewEvent, onlyIf = sql``) => sql`
  insert into usage_event_keys (account_id, event_idempotency_key, event_id, occurred_at)
  select ${e.account_id}::uuid, ${e.event_idempotency_key}, ${e.id}::uuid, ${e.occurred_at}::timestamptz ${onlyIf}`;

/** What `insertEventCounting` checks before writing an event planned from a context kept in memory. */
/** `limited`: the remembered rule has a limit, so the statement also checks that the account has no usage thresholds (thresholds.ts). */
type ContextGuard = { customerRef: string; featureKey: string; fingerprint: string; limited: boolean };

/** Inserts an event unless its idempotency key exists; undefined means a duplicate. */
export async function insertEvent(db: Executor, row: NewEvent): Promise<{ id: string } | undefined> {
  const { rows } = await sql<{ id: string }>`
    with k as (${claimKey(row)} on conflict do nothing returning 1)
    insert into usage_events (id, account_id, customer_id, feature_id, subscription_id, event_type, event_name,
      event_idempotency_key, usage_units, revenue_amount, cost_amount, model, model_provider, input_tokens,
      output_tokens, flow_id, occurred_at, ingested_at, context, meta)
    select ${row.id}::uuid, ${row.account_id}::uuid, ${row.customer_id}::uuid, ${row.feature_id}::uuid, ${row.subscription_id}::uuid,
      ${row.event_type}, ${row.event_name}, ${row.event_idempotency_key}, ${row.usage_units}::numeric, ${row.revenue_amount}::numeric,
      ${row.cost_amount}::numeric, ${row.model}, ${row.model_provider}, ${row.input_tokens}::bigint, ${row.output_tokens}::bigint,
      ${row.flow_id}, ${row.occurred_at}::timestamptz, ${row.ingested_at}::timestamptz, ${row.context}::jsonb, ${row.meta}::jsonb
     where exists (select 1 from k)
    returning id`.execute(db);
  return rows[0];
}

/** An entitlement check's audit row: the columns that vary (the rest are ENTITLEMENT_CHECKED constants). */
export type AuditRow = {
  id: string;
  account_id: string;
  customer_id: string;
  feature_id: string;
  subscription_id: string | null;
  event_idempotency_key: string;
  model: string | null;
  flow_id: string | null;
  at: Date;
  context: Jsonb;
};

/**
 * Inserts a batch of entitlement-check audit rows in one statement. One statement text whatever
 * the batch size (array literals through unnest), so it stays one prepared statement per connection.
 *
 * An audit row claims no key in `usage_event_keys` (ADR 0030): its key is generated here, never sent
 * by a client and never looked up, so the claim was a second row, a second index entry and a CTE on
 * every check for a uniqueness nobody relies on. Client events still claim theirs (ADR 0022).
 */
export async function insertAuditEvents(db: Executor, rows: AuditRow[]): Promise<void> {
  const column = (k: Exclude<keyof AuditRow, 'at' | 'context'>) => arr(rows.map((r) => r[k]));
  // A few distinct contexts ({"allowed":true}, a denial and its reason): each parsed once.
  const context = distinctDocuments(rows.map((r) => r.context));
  await sql`
    insert into usage_events (id, account_id, customer_id, feature_id, subscription_id, event_type, event_name,
      event_idempotency_key, usage_units, revenue_amount, model, flow_id, occurred_at, ingested_at, context)
    select r.id, r.account_id, r.customer_id, r.feature_id, r.subscription_id, 'ENTITLEMENT_CHECKED', 'entitlement.check',
      r.idempotency_key, 0, 0, r.model, r.flow_id, r.at, r.at, (${context.docs}::jsonb[])[r.context]
      from unnest(${column('id')}::uuid[], ${column('account_id')}::uuid[], ${column('customer_id')}::uuid[],
                  ${column('feature_id')}::uuid[], ${column('subscription_id')}::uuid[], ${column('event_idempotency_key')}::text[],
                  ${column('model')}::text[], ${column('flow_id')}::text[], ${arr(rows.map((r) => r.at.toISOString()))}::timestamptz[],
                  ${context.index}::int[])
        as r(id, account_id, customer_id, feature_id, subscription_id, idempotency_key, model, flow_id, at, context)`.execute(db);
}

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
    .innerJoin('customers', (j) => j.onRef('customers.account_id', '=', 'usage_events.account_id').onRef('customers.id', '=', 'usage_events.customer_id'))
    .innerJoin('features', (j) => j.onRef('features.account_id', '=', 'usage_events.account_id').onRef('features.id', '=', 'usage_events.feature_id'))
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

export type EventGroupBy = 'customer' | 'feature' | 'eventName' | 'model' | 'day';

const GROUP_KEYS: Record<EventGroupBy, ReturnType<typeof sql<string | null>>> = {
  customer: sql<string>`customers.customer_reference_id`,
  feature: sql<string>`features.key`,
  eventName: sql<string>`usage_events.event_name`,
  model: sql<string | null>`usage_events.model`,
  // The UTC calendar day of occurredAt.
  day: sql<string>`to_char(usage_events.occurred_at at time zone 'UTC', 'YYYY-MM-DD')`,
};

/** Event counts and sums per group (exact decimals as text), groups in key order, at most `limit`. */
export function groupEvents(db: Executor, accountId: string, f: EventFilter, groupBy: EventGroupBy, limit: number) {
  const key = GROUP_KEYS[groupBy];
  return filtered(db, accountId, f)
    .innerJoin('customers', (j) => j.onRef('customers.account_id', '=', 'usage_events.account_id').onRef('customers.id', '=', 'usage_events.customer_id'))
    .innerJoin('features', (j) => j.onRef('features.account_id', '=', 'usage_events.account_id').onRef('features.id', '=', 'usage_events.feature_id'))
    .select([
      key.as('key'),
      sql<string>`count(*)::text`.as('event_count'),
      sql<string>`coalesce(sum(usage_events.usage_units), 0)::text`.as('usage_units'),
      sql<string>`coalesce(sum(usage_events.revenue_amount), 0)::text`.as('revenue_amount'),
      sql<string>`coalesce(sum(usage_events.cost_amount), 0)::text`.as('cost_amount'),
    ])
    .groupBy(key)
    .orderBy(key)
    .limit(limit)
    .execute();
}

export type EventOverviewRow = {
  dimension: 'day' | 'feature' | 'customer';
  key: string;
  event_count: string;
  usage_units: string;
  revenue_amount: string;
  cost_amount: string;
};

/**
 * The overview's three groupings of the account's events with occurredAt in [from, to) in one
 * scan (GROUPING SETS): per UTC day, per feature, per customer, exact sums as text. Events are
 * grouped on their own columns and only the groups are joined to features and customers, so the
 * cost is one pass over usage_events_time_idx's range, not three scans each joined row by row.
 */
export async function overviewEvents(db: Executor, accountId: string, f: { from: Date; to: Date; eventType?: string | undefined }): Promise<EventOverviewRow[]> {
  const result = await sql<EventOverviewRow>`
    with windowed as (
      select (occurred_at at time zone 'UTC')::date as day, feature_id, customer_id, usage_units, revenue_amount, cost_amount
      from usage_events
      where account_id = ${accountId} and occurred_at >= ${f.from} and occurred_at < ${f.to}
        ${f.eventType ? sql`and event_type = ${f.eventType}` : sql``}
    ), grouped as (
      select day, feature_id, customer_id, grouping(day) as no_day, grouping(feature_id) as no_feature,
             count(*) as event_count, coalesce(sum(usage_units), 0) as usage_units,
             coalesce(sum(revenue_amount), 0) as revenue_amount, coalesce(sum(cost_amount), 0) as cost_amount
      from windowed
      group by grouping sets ((day), (feature_id), (customer_id))
    )
    select case when no_day = 0 then 'day' when no_feature = 0 then 'feature' else 'customer' end as dimension,
           coalesce(to_char(grouped.day, 'YYYY-MM-DD'), features.key, customers.customer_reference_id) as key,
           event_count::text as event_count, usage_units::text as usage_units,
           revenue_amount::text as revenue_amount, cost_amount::text as cost_amount
    from grouped
    left join features on features.id = grouped.feature_id and features.account_id = ${accountId}
    left join customers on customers.id = grouped.customer_id and customers.account_id = ${accountId}`.execute(db);
  return result.rows;
}

/**
 * Σ revenue and Σ cost (exact decimals as text; a null cost counts 0) of the given features'
 * CLIENT_TRACKED and ENTITLEMENT_CHECKED events with occurredAt in [from, to), one row per feature
 * that has events. Uses usage_events_feature_time_idx.
 */
export async function sumEventsPerFeature(db: Executor, accountId: string, featureIds: readonly string[], from: Date, to: Date) {
  if (featureIds.length === 0) return [];
  return db
    .selectFrom('usage_events')
    .select([
      'feature_id',
      sql<string>`count(*)::text`.as('event_count'),
      sql<string>`coalesce(sum(revenue_amount), 0)::text`.as('revenue_amount'),
      sql<string>`coalesce(sum(cost_amount), 0)::text`.as('cost_amount'),
    ])
    .where('account_id', '=', accountId)
    .where('feature_id', 'in', featureIds)
    .where('event_type', 'in', ['CLIENT_TRACKED', 'ENTITLEMENT_CHECKED'])
    .where('occurred_at', '>=', from)
    .where('occurred_at', '<', to)
    .groupBy('feature_id')
    .execute();
}
