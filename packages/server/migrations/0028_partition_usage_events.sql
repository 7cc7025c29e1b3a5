-- Monthly partitions, part 1 (issue 19 item 7, ADR 0022): usage events, partitioned by range of
-- occurred_at, one partition per UTC month plus a DEFAULT partition for rows no month holds yet.
-- Existing rows move with their ids; the partitions-ahead job (platform/db/partitions.ts) creates
-- the next months through tally_month_partition, the same function this migration uses.

-- Creates the partition of `parent` for the UTC month containing `month` unless it exists, and
-- returns its name (null: it existed). Rows of that month sitting in the DEFAULT partition (an
-- event back-dated, or written while no partition for its month existed) are moved into the new
-- partition: the default is detached, the month created and filled, the default attached again, all
-- in the caller's transaction. `time_column` is the partition key (timestamptz or date).
create function tally_month_partition(parent text, time_column text, month date) returns text
language plpgsql as $$
declare
  first_day date := date_trunc('month', month)::date;
  part text := parent || '_' || to_char(first_day, 'YYYY_MM');
  default_part text := parent || '_default';
  -- Explicit UTC offsets: the bounds do not depend on the session's TimeZone.
  lo text := to_char(first_day, 'YYYY-MM-DD') || ' 00:00:00+00';
  hi text := to_char((first_day + interval '1 month')::date, 'YYYY-MM-DD') || ' 00:00:00+00';
  stray boolean;
begin
  if to_regclass(quote_ident(part)) is not null then
    return null;
  end if;
  execute format('select exists (select 1 from %I where %I >= %L and %I < %L)', default_part, time_column, lo, time_column, hi) into stray;
  if not stray then
    execute format('create table if not exists %I partition of %I for values from (%L) to (%L)', part, parent, lo, hi);
  else
    execute format('alter table %I detach partition %I', parent, default_part);
    execute format('create table %I partition of %I for values from (%L) to (%L)', part, parent, lo, hi);
    execute format('with moved as (delete from %I where %I >= %L and %I < %L returning *) insert into %I select * from moved',
                   default_part, time_column, lo, time_column, hi, part);
    execute format('alter table %I attach partition %I default', parent, default_part);
  end if;
  return part;
end $$;

-- The months a table's existing rows fall in (within three years back; older or absurd client
-- times stay in the DEFAULT partition) and the current month with the next three: a fresh install
-- never lacks this month's partition even before the job first runs.
create function tally_initial_partitions(parent text, time_column text, source text) returns void
language plpgsql as $$
begin
  execute format(
    'select tally_month_partition(%L, %L, m) from (
       select distinct date_trunc(''month'', %I at time zone ''UTC'')::date as m from %I
       union
       select (date_trunc(''month'', now() at time zone ''UTC'') + n * interval ''1 month'')::date from generate_series(0, 3) as n
     ) months
     where m >= (date_trunc(''month'', now() at time zone ''UTC'') - interval ''36 months'')::date
       and m <= (date_trunc(''month'', now() at time zone ''UTC'') + interval ''3 months'')::date
     order by m',
    parent, time_column, time_column, source);
end $$;

alter table usage_events rename to usage_events_unpartitioned;

-- Same columns, defaults and checks as before (LIKE), so a column another migration added comes along.
create table usage_events (like usage_events_unpartitioned including defaults including constraints) partition by range (occurred_at);
create table usage_events_default partition of usage_events default;
select tally_initial_partitions('usage_events', 'occurred_at', 'usage_events_unpartitioned');

-- A unique key of a partitioned table must contain the partition key, and an event's idempotency
-- key is unique per account across every month: that uniqueness lives here, one narrow row per
-- event written in the event's own statement (usage/repo.ts, batch-repo.ts). Its rows stay when a
-- month is detached, so an old key is still a duplicate.
create table usage_event_keys (
  account_id uuid not null,
  event_idempotency_key text not null,
  event_id uuid not null,
  occurred_at timestamptz not null,
  primary key (account_id, event_idempotency_key)
);

insert into usage_events select * from usage_events_unpartitioned;
insert into usage_event_keys (account_id, event_idempotency_key, event_id, occurred_at)
select account_id, event_idempotency_key, id, occurred_at from usage_events_unpartitioned;
drop table usage_events_unpartitioned;

-- Ids are UUIDv7 minted by the server; the key carries the account (Citus, ADR 0023) and the month.
alter table usage_events add constraint usage_events_pkey primary key (account_id, id, occurred_at);
create index usage_events_customer_time_idx on usage_events (account_id, customer_id, occurred_at);
create index usage_events_feature_time_idx on usage_events (account_id, feature_id, occurred_at);
create index usage_events_time_idx on usage_events (account_id, occurred_at);
create index usage_events_flow_idx on usage_events (account_id, flow_id) where flow_id is not null;
