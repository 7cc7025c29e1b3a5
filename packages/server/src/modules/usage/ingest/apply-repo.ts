import { sql } from 'kysely';
import { arrayLiteral as arr, distinctDocuments } from '../../../platform/db/array-literal.js';
import type { Executor, Tx } from '../../../platform/db/database.js';
import type { CounterKey, NewEvent } from '../repo.js';

/**
 * SQL of the many-event ingestion (apply.ts). Each statement takes its rows as array
 * parameters (`unnest`), so its text is the same whatever the number of events and it stays one
 * named prepared statement per connection; jsonb columns go as their distinct documents
 * (`distinctDocuments`), each parsed once.
 */

export const counterId = (k: CounterKey) => `${k.subscriptionId}|${k.featureId}|${k.periodStart.toISOString()}`;

/**
 * Locks the counter rows (creating missing ones at zero) in one statement, in (subscription,
 * feature, period) order — the order every many-event writer uses — and returns each one's usage.
 * A lone event's upsert locks one counter, so it cannot wait on a batch in the opposite order.
 */
export async function lockCounters(tx: Tx, accountId: string, keys: CounterKey[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const sorted = [...new Map(keys.map((k) => [counterId(k), k])).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, k]) => k);
  const { rows } = await sql<{ subscription_id: string; feature_id: string; period_start: Date; used: string }>`
    insert into usage_counters (account_id, subscription_id, feature_id, period_start, used, revenue)
    select ${accountId}::uuid, v.sub_id, v.feature_id, v.period_start, 0, 0
      from unnest(${arr(sorted.map((k) => k.subscriptionId))}::uuid[], ${arr(sorted.map((k) => k.featureId))}::uuid[],
                  ${arr(sorted.map((k) => k.periodStart.toISOString()))}::timestamptz[]) with ordinality as v(sub_id, feature_id, period_start, n)
     order by v.n
    on conflict (account_id, subscription_id, feature_id, period_start) do update set used = usage_counters.used
    returning subscription_id, feature_id, period_start, used::text as used`.execute(tx);
  return new Map(rows.map((r) => [counterId({ accountId, subscriptionId: r.subscription_id, featureId: r.feature_id, periodStart: new Date(r.period_start) }), r.used]));
}

/** The stored events among these idempotency keys (key → event id); a statement of its own sees what has committed. */
export async function findStoredKeys(db: Executor, accountId: string, keys: string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{ event_idempotency_key: string; id: string }>`
    select event_idempotency_key, event_id as id from usage_event_keys
     where account_id = ${accountId} and event_idempotency_key = any(${arr([...new Set(keys)])}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.event_idempotency_key, r.id]));
}

/** What the events of a group add to one counter (one row per counter). */
export type CounterDelta = { key: CounterKey; used: string; revenue: string };

/**
 * Claims the events' idempotency keys (usage_event_keys, migration 0028) in key order, so two
 * writers that share keys wait on each other's index entries in one order, inserts the events whose
 * claim it won and returns their keys; a key another transaction stored first is skipped, and the
 * caller decides what that means. In the same statement, and only when every key was claimed (the
 * group commits whole or is decided again), adds each counter's units and revenue (counters the
 * caller locked first).
 */
export async function insertEvents(tx: Tx, accountId: string, rows: NewEvent[], deltas: CounterDelta[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const e = [...rows].sort((a, b) => (a.event_idempotency_key < b.event_idempotency_key ? -1 : a.event_idempotency_key > b.event_idempotency_key ? 1 : 0));
  const col = (f: (r: NewEvent) => string | null) => arr(e.map(f));
  const context = distinctDocuments(e.map((r) => r.context));
  const meta = distinctDocuments(e.map((r) => r.meta));
  const { rows: stored } = await sql<{ event_idempotency_key: string }>`
    with v as (
      select * from unnest(${col((r) => r.id)}::uuid[], ${col((r) => r.account_id)}::uuid[], ${col((r) => r.customer_id)}::uuid[],
                  ${col((r) => r.feature_id)}::uuid[], ${col((r) => r.subscription_id)}::uuid[], ${col((r) => r.event_type)}::text[],
                  ${col((r) => r.event_name)}::text[], ${col((r) => r.event_idempotency_key)}::text[], ${col((r) => r.usage_units)}::numeric[],
                  ${col((r) => r.revenue_amount)}::numeric[], ${col((r) => r.cost_amount)}::numeric[], ${col((r) => r.model)}::text[],
                  ${col((r) => r.model_provider)}::text[], ${col((r) => (r.input_tokens === null ? null : String(r.input_tokens)))}::bigint[],
                  ${col((r) => (r.output_tokens === null ? null : String(r.output_tokens)))}::bigint[], ${col((r) => r.flow_id)}::text[],
                  ${col((r) => r.occurred_at.toISOString())}::timestamptz[], ${col((r) => r.ingested_at.toISOString())}::timestamptz[],
                  ${context.index}::int[], ${meta.index}::int[]) with ordinality
           as v(id, account_id, customer_id, feature_id, subscription_id, event_type, event_name, key, usage_units, revenue_amount, cost_amount,
                model, model_provider, input_tokens, output_tokens, flow_id, occurred_at, ingested_at, context, meta, n)),
    k as (
      insert into usage_event_keys (account_id, event_idempotency_key, event_id, occurred_at)
      select account_id, key, id, occurred_at from v order by n
      on conflict do nothing
      returning event_id),
    c as (
      update usage_counters set used = usage_counters.used + d.used, revenue = usage_counters.revenue + d.revenue
        from unnest(${arr(deltas.map((d) => d.key.subscriptionId))}::uuid[], ${arr(deltas.map((d) => d.key.featureId))}::uuid[],
                    ${arr(deltas.map((d) => d.key.periodStart.toISOString()))}::timestamptz[], ${arr(deltas.map((d) => d.used))}::numeric[],
                    ${arr(deltas.map((d) => d.revenue))}::numeric[]) as d(sub_id, feature_id, period_start, used, revenue)
       where usage_counters.account_id = ${accountId} and usage_counters.subscription_id = d.sub_id
         and usage_counters.feature_id = d.feature_id and usage_counters.period_start = d.period_start
         and (select count(*) from k) = ${rows.length})
    insert into usage_events (id, account_id, customer_id, feature_id, subscription_id, event_type, event_name, event_idempotency_key,
      usage_units, revenue_amount, cost_amount, model, model_provider, input_tokens, output_tokens, flow_id, occurred_at, ingested_at, context, meta)
    select v.id, v.account_id, v.customer_id, v.feature_id, v.subscription_id, v.event_type, v.event_name, v.key,
      v.usage_units, v.revenue_amount, v.cost_amount, v.model, v.model_provider, v.input_tokens, v.output_tokens, v.flow_id, v.occurred_at,
      v.ingested_at, (${context.docs}::jsonb[])[v.context], (${meta.docs}::jsonb[])[v.meta]
      from v where v.id in (select event_id from k)
     order by v.n
    returning event_idempotency_key`.execute(tx);
  return new Set(stored.map((r) => r.event_idempotency_key));
}

/** Deletes events this transaction inserted (a round of applyEvents that lost a key race); each table filtered by the account itself, a router statement on Citus. */
export async function deleteEvents(tx: Tx, accountId: string, ids: string[]) {
  if (ids.length === 0) return;
  await sql`
    with e as (delete from usage_events where account_id = ${accountId} and id = any(${arr(ids)}::uuid[]) returning account_id, event_idempotency_key)
    delete from usage_event_keys k using e where k.account_id = ${accountId} and k.event_idempotency_key = e.event_idempotency_key`.execute(tx);
}

/** A round of `applyEvents` that captures a flow's hold runs under a savepoint, undone if the round is decided again. */
export const savepoint = (tx: Tx) => sql`savepoint apply_events_round`.execute(tx);
export const rollbackToSavepoint = (tx: Tx) => sql`rollback to savepoint apply_events_round`.execute(tx);
