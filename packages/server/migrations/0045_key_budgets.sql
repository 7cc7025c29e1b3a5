-- Per-key budgets (issue 35, api-contract-agent-v2.md §2). One row per customer key that has a
-- budget: its period, limits on the two axes (null = unlimited), the anchor its windows tile from,
-- and what the key spent in the window it last counted (counted_window_start). The check and the
-- record of a spend run in one transaction under this row's lock (SELECT … FOR UPDATE), so
-- concurrent charges or events never take the key past its limit (we differ from the original,
-- which checks outside the spending transaction).
create table api_key_budgets (
  account_id uuid not null references accounts (id),
  key_id uuid not null,
  customer_id uuid not null,
  period text not null check (period in ('DAY', 'WEEK', 'MONTH', 'TOTAL')),
  credit_limit numeric check (credit_limit >= 0),
  amount_limit numeric check (amount_limit >= 0),
  alert_threshold smallint check (alert_threshold between 1 and 99),
  anchor_at timestamptz not null,
  counted_window_start timestamptz not null,
  credits_spent numeric not null default 0,
  amount_spent numeric not null default 0,
  alerting_since timestamptz,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  primary key (account_id, key_id)
);
select tally_distribute('api_key_budgets');

-- What a budgeted key spent: a money reservation (PENDING, counts as spent) settled when the
-- processor confirms it or deleted when it declines; a hosted payment counted when it lands
-- (SETTLED); a credit draw (SETTLED with its event). `window_start` is the window it was counted
-- in, so deleting a reservation gives back only what the current window still holds. The id of a
-- credit purchase's reservation is the purchase's id (the processor's idempotency key names it).
create table api_key_spend (
  account_id uuid not null references accounts (id),
  id uuid not null,
  key_id uuid not null,
  axis text not null check (axis in ('CREDITS', 'AMOUNT')),
  channel text not null check (channel in ('EVENT', 'OFF_SESSION', 'HOSTED')),
  state text not null check (state in ('OPEN', 'PENDING', 'SETTLED')),
  amount numeric not null check (amount >= 0),
  window_start timestamptz,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  primary key (account_id, id)
);
select tally_distribute('api_key_spend');
create index api_key_spend_pending_idx on api_key_spend (state, created_at) where state = 'PENDING';
create index api_key_spend_key_idx on api_key_spend (account_id, key_id, created_at);
