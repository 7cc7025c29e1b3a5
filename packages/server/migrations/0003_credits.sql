-- Credits: models, plan allocations, pools, links to subscriptions, grants, the ledger.
-- Credit amounts are NUMERIC at 6 dp. The ledger is append-only; balances are running totals kept
-- in the pool row, which every writer locks, and the audit recomputes them from the ledger.

create table credit_models (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  name text not null,
  denomination text not null,
  description text,
  hard_limit boolean not null default false,
  rollover_policy text not null default 'NONE' check (rollover_policy in ('NONE', 'FULL', 'CAPPED')),
  rollover_cap numeric(24, 6),
  metadata jsonb not null default '{}',
  deleted_at timestamptz,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, id)
);
create unique index credit_models_denomination_key on credit_models (account_id, denomination) where deleted_at is null;

alter table plan_feature_rules
  add foreign key (account_id, credit_model_id) references credit_models (account_id, id);

create table plan_credit_allocations (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  plan_id uuid not null,
  credit_model_id uuid not null,
  credit_amount numeric(24, 6) not null check (credit_amount > 0),
  grant_expires_months integer check (grant_expires_months >= 1),
  hard_limit boolean,
  created_at timestamptz not null,
  unique (account_id, plan_id, credit_model_id),
  foreign key (account_id, plan_id) references plans (account_id, id) on delete cascade,
  foreign key (account_id, credit_model_id) references credit_models (account_id, id)
);

create table credit_pools (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  customer_id uuid,
  name text not null,
  denomination text not null,
  currency text,
  hard_limit boolean not null default false,
  rollover_policy text not null default 'NONE' check (rollover_policy in ('NONE', 'FULL', 'CAPPED')),
  rollover_cap numeric(24, 6),
  status text not null default 'ACTIVE' check (status in ('ACTIVE', 'FROZEN', 'DEPLETED', 'ARCHIVED')),
  balance numeric(24, 6) not null default 0,
  total_granted numeric(24, 6) not null default 0,
  total_consumed numeric(24, 6) not null default 0,
  total_expired numeric(24, 6) not null default 0,
  total_reversed numeric(24, 6) not null default 0,
  -- Sequence of the pool's last ledger row: rows are numbered 1, 2, 3 … with no gaps.
  ledger_seq bigint not null default 0,
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, name),
  unique (account_id, id),
  foreign key (account_id, customer_id) references customers (account_id, id)
);
create index credit_pools_customer_idx on credit_pools (account_id, customer_id, denomination);

create table credit_pool_links (
  account_id uuid not null references accounts (id),
  credit_pool_id uuid not null,
  subscription_id uuid not null,
  draw_priority integer not null default 0,
  draw_limit numeric(24, 6) check (draw_limit >= 0),
  total_drawn numeric(24, 6) not null default 0,
  created_at timestamptz not null,
  primary key (account_id, credit_pool_id, subscription_id),
  foreign key (account_id, credit_pool_id) references credit_pools (account_id, id),
  foreign key (account_id, subscription_id) references subscriptions (account_id, id)
);
create index credit_pool_links_subscription_idx on credit_pool_links (account_id, subscription_id, draw_priority);

create table credit_grants (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  credit_pool_id uuid not null,
  subscription_id uuid,
  invoice_id uuid,
  grant_type text not null check (grant_type in ('PLAN_INCLUDED', 'PURCHASED', 'PROMOTIONAL', 'REFUND', 'SYSTEM', 'ROLLOVER', 'MANUAL')),
  amount numeric(24, 6) not null check (amount > 0),
  remaining numeric(24, 6) not null check (remaining >= 0),
  unit_price numeric(24, 6),
  currency text,
  expires_at timestamptz,
  description text,
  voided_at timestamptz,
  -- Plan-included grants: the period they belong to (one grant per subscription, pool and period).
  period_start timestamptz,
  idempotency_key text,
  request_hash text,
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  -- Orders grants created in the same instant (FIFO is by created_at, then this).
  seq bigserial,
  unique (account_id, id),
  unique (account_id, idempotency_key),
  foreign key (account_id, credit_pool_id) references credit_pools (account_id, id)
);
create index credit_grants_pool_fifo_idx on credit_grants (account_id, credit_pool_id, created_at, seq) where remaining > 0 and voided_at is null;
create index credit_grants_expiry_idx on credit_grants (expires_at) where remaining > 0 and voided_at is null and expires_at is not null;
create unique index credit_grants_one_per_period on credit_grants (account_id, subscription_id, credit_pool_id, period_start)
  where grant_type = 'PLAN_INCLUDED' and period_start is not null;

create table credit_transactions (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  credit_pool_id uuid not null,
  seq bigint not null,
  credit_grant_id uuid,
  transaction_type text not null check (transaction_type in ('GRANT', 'DEDUCTION', 'EXPIRATION', 'REVERSAL', 'ADJUSTMENT', 'FREEZE', 'UNFREEZE')),
  amount numeric(24, 6) not null,
  balance_before numeric(24, 6) not null,
  balance_after numeric(24, 6) not null,
  description text,
  reversed_transaction_id uuid,
  subscription_id uuid,
  event_id uuid,
  idempotency_key text,
  request_hash text,
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  check (balance_after = balance_before + amount),
  unique (account_id, credit_pool_id, seq),
  unique (account_id, idempotency_key),
  foreign key (account_id, credit_pool_id) references credit_pools (account_id, id)
);
-- A transaction is reversed at most once.
create unique index credit_transactions_reversed_once on credit_transactions (account_id, reversed_transaction_id) where reversed_transaction_id is not null;
create index credit_transactions_event_idx on credit_transactions (account_id, event_id) where event_id is not null;

-- Which grants a deduction (or expiry) drew from, so a reversal restores exactly those.
create table credit_transaction_draws (
  account_id uuid not null references accounts (id),
  transaction_id uuid not null,
  credit_grant_id uuid not null,
  amount numeric(24, 6) not null check (amount > 0),
  primary key (account_id, transaction_id, credit_grant_id)
);
