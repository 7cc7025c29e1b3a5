-- Monthly partitions, part 3 (issue 19 item 7, ADR 0022): vendor usage buckets, partitioned by
-- range of their day. The primary key already contains the day, so it keeps its exact meaning on
-- the partitioned table and the sync's upsert (on conflict on that key) is unchanged.

alter table spend_usage_buckets rename to spend_usage_buckets_unpartitioned;

-- Same columns, defaults and checks as before (LIKE), so a column another migration added comes along.
create table spend_usage_buckets (like spend_usage_buckets_unpartitioned including defaults including constraints) partition by range (day);
create table spend_usage_buckets_default partition of spend_usage_buckets default;
select tally_initial_partitions('spend_usage_buckets', 'day', 'spend_usage_buckets_unpartitioned');

insert into spend_usage_buckets select * from spend_usage_buckets_unpartitioned;
drop table spend_usage_buckets_unpartitioned;

alter table spend_usage_buckets add constraint spend_usage_buckets_pkey
  primary key (account_id, connection_id, day, model, workspace_id, api_key_id, actor, service_tier);
create index spend_usage_buckets_day_idx on spend_usage_buckets (account_id, day);
alter table spend_usage_buckets add constraint spend_usage_buckets_account_id_connection_id_fkey
  foreign key (account_id, connection_id) references spend_connections (account_id, id);
