-- Outbound spend deliveries (contract §7.6): an outbox row per event and configured channel,
-- written in the transaction that records the alert or digest, attempted after commit and retried
-- by the `spend-delivery-retry` job a bounded number of times. A delivery never touches its alert.
create table spend_deliveries (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  event_type text not null check (event_type in ('spend.alert', 'spend.digest', 'spend.test')),
  channel text not null check (channel in ('SLACK', 'WEBHOOK', 'EMAIL')),
  -- The event's object (Alert or Digest as the API shows it); the channel renders it when sending.
  payload jsonb not null,
  -- PENDING: not attempted yet; SENT; FAILED: the last attempt failed (retried while next_attempt_at is set).
  status text not null check (status in ('PENDING', 'SENT', 'FAILED')),
  attempts integer not null default 0,
  last_error text,
  -- When the next attempt is due; while an attempt runs, the end of its lease; null when done or given up.
  next_attempt_at timestamptz,
  created_at timestamptz not null,
  sent_at timestamptz,
  -- Exact creation order, for listing newest first (rows of one event share a millisecond).
  created_seq bigint generated always as identity,
  unique (account_id, id)
);
-- The retry job's scan: due rows only.
create index spend_deliveries_due_idx on spend_deliveries (next_attempt_at) where next_attempt_at is not null;
create index spend_deliveries_account_idx on spend_deliveries (account_id, created_seq);
