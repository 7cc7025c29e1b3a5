-- Credit weight tariff and credit price book: batches of rows sharing effective_from, published for
-- the future, never edited once in effect.

create table credit_weights (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  feature_id uuid not null,
  -- Exact, trimmed model string; null is the feature-default row.
  model text,
  credits_per_unit numeric(24, 6) not null check (credits_per_unit > 0 and credits_per_unit <= 1000000),
  effective_from timestamptz not null,
  created_by text,
  created_at timestamptz not null,
  foreign key (account_id, feature_id) references features (account_id, id)
);
create unique index credit_weights_key on credit_weights (account_id, feature_id, coalesce(model, ''), effective_from);
create index credit_weights_batch_idx on credit_weights (account_id, effective_from);

create table credit_prices (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  denomination text not null,
  currency text not null,
  price_per_credit numeric(24, 6) not null check (price_per_credit > 0 and price_per_credit <= 1000000),
  effective_from timestamptz not null,
  created_by text,
  created_at timestamptz not null,
  unique (account_id, denomination, effective_from)
);
create index credit_prices_batch_idx on credit_prices (account_id, effective_from);
