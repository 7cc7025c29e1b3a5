-- usage.threshold_reached (issue 33, api-contract-events.md §E5.8, §E7.2). The account setting
-- usageThresholdPercents (default {80,100}; '{}' turns the event off) is read by the ingestion
-- context query with the context (no round trip of its own). A mark per (subscription, feature,
-- window start, percent) makes the event once per key: inserted under the usage counter's row lock
-- by the ingestion that crosses the percent, with the event, in the same transaction.
alter table account_settings add column usage_threshold_percents smallint[] not null default '{80,100}';

create table usage_threshold_marks (
  account_id uuid not null references accounts (id),
  subscription_id uuid not null,
  feature_id uuid not null,
  window_start timestamptz not null,
  percent smallint not null,
  event_id uuid not null,
  created_at timestamptz not null,
  primary key (account_id, subscription_id, feature_id, window_start, percent)
);
select tally_distribute('usage_threshold_marks');
