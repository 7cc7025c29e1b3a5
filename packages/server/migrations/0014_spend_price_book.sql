-- The spend module's model price book (contract §7.9, issue 14 item 4). Rates are USD per million
-- tokens as NUMERIC; null = no such rate (never read as zero). Rows are dated: a row is in force
-- from its effective_from day (UTC) until the next row of the same model.

-- Seeded rows, instance-wide (not tenant data): written by the service from @pydantic/genai-prices
-- plus the overrides of vendor-apis.md §8.2 (spend/prices-seed.ts), replaced whole when that data
-- changes. effective_from '1970-01-01' stands for "since always" (the package's undated first price).
create table spend_price_seed (
  provider text not null check (provider in ('ANTHROPIC', 'OPENAI')),
  model text not null,
  effective_from date not null,
  input_per_mtok numeric(20, 10),
  output_per_mtok numeric(20, 10),
  cache_read_per_mtok numeric(20, 10),
  cache_write_5m_per_mtok numeric(20, 10),
  cache_write_1h_per_mtok numeric(20, 10),
  source text not null check (source in ('PACKAGE', 'SEED_OVERRIDE')),
  primary key (provider, model, effective_from)
);

-- Which data the seed holds (a hash of the package's provider data and our overrides); one row.
create table spend_price_seed_state (
  id integer primary key check (id = 1),
  data_hash text not null,
  refreshed_at timestamptz
);
insert into spend_price_seed_state (id, data_hash) values (1, '');

-- An operator's rows, per account. They win over seeded rows of the same model from their
-- effective_from on (the seeded row still prices the days before).
create table spend_prices (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  provider text not null check (provider in ('ANTHROPIC', 'OPENAI', 'CURSOR', 'COPILOT', 'LITELLM')),
  model text not null,
  effective_from date not null,
  input_per_mtok numeric(20, 10) not null,
  output_per_mtok numeric(20, 10) not null,
  cache_read_per_mtok numeric(20, 10),
  cache_write_5m_per_mtok numeric(20, 10),
  cache_write_1h_per_mtok numeric(20, 10),
  created_by text,
  created_at timestamptz not null,
  unique (account_id, id)
);
create unique index spend_prices_model_day_key on spend_prices (account_id, provider, model, effective_from);

-- Vendor model name → price-book model, resolved in JS with the package's matcher (reports price in
-- SQL, which cannot run that matcher). Filled for names not yet resolved before a report runs;
-- emptied when the seed's data changes so every name is resolved again. matched = false: neither
-- the package nor the overrides know the name; it is priced only by an operator row of
-- (provider, lower(name)).
create table spend_model_matches (
  account_id uuid not null references accounts (id),
  provider text not null,
  vendor_model text not null,
  price_provider text not null,
  price_model text not null,
  matched boolean not null,
  primary key (account_id, provider, vendor_model)
);
