-- Spend alerts (contract §7.5): what a budget evaluation fired. An alert fires at most once per
-- (unit, kind, period, window start): the unique key below is the guarantee, whatever evaluations
-- run at once on however many nodes (inserts use ON CONFLICT DO NOTHING). It is recorded in the
-- transaction that writes its delivery outbox rows, so it exists before any delivery is tried, and
-- a delivery never touches it (a failed delivery re-fires nothing).
-- unit_name is the unit's name when the alert fired (the message quotes it); deleting a unit
-- deletes its alerts, as it deletes its rules and budget.
create table spend_alerts (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  spend_unit_id uuid not null,
  unit_name text not null,
  kind text not null check (kind in ('THRESHOLD', 'BREACH', 'SPIKE', 'PROJECTED')),
  period text not null check (period in ('DAY', 'MONTH')),
  -- The UTC day (period DAY) or the first day of the UTC month (period MONTH) the alert is about.
  window_start date not null,
  -- Exact cents (sums of metered spend, fractional cents kept); limit is null for SPIKE.
  spent_cents numeric not null,
  limit_cents numeric,
  message text not null,
  fired_at timestamptz not null,
  acked_at timestamptz,
  acked_by text,
  -- Exact firing order, for listing newest first (one run fires many alerts in one millisecond).
  created_seq bigint generated always as identity,
  unique (account_id, id),
  constraint spend_alerts_once_per_window unique (account_id, spend_unit_id, kind, period, window_start),
  foreign key (account_id, spend_unit_id) references spend_units (account_id, id) on delete cascade,
  check ((kind = 'SPIKE') = (limit_cents is null)),
  check (kind <> 'SPIKE' or period = 'DAY'),
  check (kind <> 'PROJECTED' or period = 'MONTH'),
  check ((acked_at is null) = (acked_by is null))
);
-- GET /alerts: the latest 200, newest first; the unacknowledged ones; the digest's count by time.
create index spend_alerts_recent_idx on spend_alerts (account_id, fired_at desc, created_seq desc);
create index spend_alerts_unacked_idx on spend_alerts (account_id, fired_at desc, created_seq desc) where acked_at is null;

-- Allocation (budget evaluation, reports) matches each usage group to its rules by equality on
-- (provider, kind, value): one index probe per group and kind, whatever the number of rules.
create index spend_rules_match_idx on spend_rules (account_id, provider, match_kind, match_value);
