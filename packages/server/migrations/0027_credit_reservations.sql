-- Credit reservations (issue 16 item 4, ADR 0012): a hold takes credits out of a pool's balance
-- and grants (FIFO, per-grant draws recorded) into `total_held`; a capture moves held credits to
-- `total_consumed` (drawing any excess fresh); a release or expiry gives them back to the grants
-- they came from. Every step is a ledger row (HOLD, CAPTURE, RELEASE) whose `amount` is the change
-- of the balance and whose `held_change` is the change of total_held, so the audit recomputes
--   balance = granted − consumed − expired + reversed − held,  held = Σ held_change.

alter table credit_transactions drop constraint credit_transactions_transaction_type_check;
alter table credit_transactions add constraint credit_transactions_transaction_type_check
  check (transaction_type in ('GRANT', 'DEDUCTION', 'EXPIRATION', 'REVERSAL', 'ADJUSTMENT', 'FREEZE', 'UNFREEZE', 'HOLD', 'CAPTURE', 'RELEASE'));
alter table credit_transactions add column held_change numeric(24, 6) not null default 0;
alter table credit_transactions add column reservation_id uuid;
-- HOLD and RELEASE move credits between the balance and the held total, one for one.
alter table credit_transactions add constraint credit_transactions_held_change_check
  check (case when transaction_type in ('HOLD', 'RELEASE') then held_change = -amount
              when transaction_type = 'CAPTURE' then held_change <= 0 and amount <= 0
              else held_change = 0 end);
create index credit_transactions_reservation_idx on credit_transactions (account_id, reservation_id) where reservation_id is not null;

alter table credit_pools add column total_held numeric(24, 6) not null default 0 check (total_held >= 0);

create table credit_reservations (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  customer_id uuid not null,
  subscription_id uuid not null,
  denomination text not null,
  -- Set when an entitlement evaluate with `reserve: true` opened it: the usage event of the same
  -- flow captures it. At most one HELD reservation per flow.
  flow_id text,
  feature_id uuid,
  -- The client's key (route-created reservations); a repeated key replays the first reservation.
  idempotency_key text,
  request_hash text,
  status text not null check (status in ('HELD', 'CAPTURED', 'RELEASED', 'EXPIRED')),
  amount_requested numeric(24, 6) not null check (amount_requested > 0),
  amount_held numeric(24, 6) not null check (amount_held >= 0),
  -- What the capture asked for and what the pools gave (given < requested only when they ran dry).
  capture_requested numeric(24, 6) check (capture_requested >= 0),
  amount_captured numeric(24, 6) check (amount_captured >= 0),
  event_id uuid,
  expires_at timestamptz not null,
  settled_at timestamptz,
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  -- No foreign keys to customers or subscriptions: a per-request table (ADR 0003, migration 0005).
  unique (account_id, id)
);
create unique index credit_reservations_key on credit_reservations (account_id, idempotency_key) where idempotency_key is not null;
create unique index credit_reservations_open_flow on credit_reservations (account_id, flow_id) where flow_id is not null and status = 'HELD';
create index credit_reservations_expiry_idx on credit_reservations (expires_at, id) where status = 'HELD';
