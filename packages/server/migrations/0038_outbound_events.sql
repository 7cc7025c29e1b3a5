-- Outbound events (issue 33, contract api-contract-events.md, ADR 0035). The outbox: every catalogue
-- event is written by platform/events/outbox.ts in the transaction of the change that causes it,
-- with the exact bytes every attempt will send. The relay (webhooks/relay.ts) fans each event out
-- once (fanned_out_at) to the account's enabled endpoints, then delivers outside any transaction.
-- Tenant tables with foreign keys to tenant tables follow migration 0035's convention (Citus).
create table outbound_events (
  id uuid not null,
  account_id uuid not null references accounts (id),
  type text not null,
  payload text not null,
  created_at timestamptz not null,
  fanned_out_at timestamptz,
  primary key (account_id, id)
);
select tally_distribute('outbound_events');
create index outbound_events_unfanned_idx on outbound_events (created_at) where fanned_out_at is null;
create index outbound_events_log_idx on outbound_events (account_id, created_at, id);
create index outbound_events_type_idx on outbound_events (account_id, type, created_at);

create table webhook_endpoints (
  id uuid not null,
  account_id uuid not null references accounts (id),
  url text not null,
  description text,
  event_types text[] not null default '{}',
  enabled boolean not null default true,
  disabled_reason text check (disabled_reason in ('MANUAL', 'FAILING', 'GONE')),
  disabled_at timestamptz,
  failing_since timestamptz,
  secret_sealed text not null,
  secret_hint text not null,
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  deleted_at timestamptz,
  primary key (account_id, id),
  check (enabled = (disabled_reason is null))
);
select tally_distribute('webhook_endpoints');
create index webhook_endpoints_account_idx on webhook_endpoints (account_id, created_at) where deleted_at is null;

create table webhook_deliveries (
  id uuid not null,
  account_id uuid not null,
  endpoint_id uuid not null,
  event_id uuid not null,
  event_type text not null,
  status text not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED')),
  attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  last_attempt_at timestamptz,
  last_response_status integer,
  last_error text,
  resend boolean not null default false,
  created_at timestamptz not null,
  primary key (account_id, id),
  check ((status = 'PENDING') = (next_attempt_at is not null))
);
select tally_distribute('webhook_deliveries');
alter table webhook_deliveries add foreign key (account_id, endpoint_id) references webhook_endpoints (account_id, id);
alter table webhook_deliveries add foreign key (account_id, event_id) references outbound_events (account_id, id) on delete cascade;
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'PENDING';
create index webhook_deliveries_log_idx on webhook_deliveries (account_id, created_at, id);
create index webhook_deliveries_event_idx on webhook_deliveries (account_id, event_id);
create index webhook_deliveries_endpoint_idx on webhook_deliveries (account_id, endpoint_id, status);

create table webhook_attempts (
  account_id uuid not null,
  delivery_id uuid not null,
  number integer not null check (number >= 1),
  started_at timestamptz not null,
  duration_ms integer not null,
  response_status integer,
  response_body text,
  error text check (error in ('timeout', 'connection_failed', 'url_refused')),
  success boolean not null,
  primary key (account_id, delivery_id, number)
);
select tally_distribute('webhook_attempts');
alter table webhook_attempts add foreign key (account_id, delivery_id) references webhook_deliveries (account_id, id) on delete cascade;
