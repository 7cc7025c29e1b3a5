-- Platform: accounts, logins, API keys, login throttling, idempotency records, job claims.
-- Tenant tables carry account_id and every tenant unique key includes it. The two global
-- identities (a login's username and a key's hash) are unique across accounts because they are
-- how a request finds its account in the first place.

create table accounts (
  id uuid primary key,
  name text not null,
  created_at timestamptz not null default now()
);

create table users (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  username text not null,
  password_hash text not null,
  role text not null default 'ADMIN' check (role in ('ADMIN')),
  created_at timestamptz not null default now()
);
create unique index users_username_key on users (lower(username));
create index users_account_idx on users (account_id);

-- Tenant keys (sk_) and customer keys (ck_) share one table so a request resolves its principal
-- with one indexed lookup; only the SHA-256 of a key is stored.
create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  kind text not null check (kind in ('TENANT', 'CUSTOMER')),
  customer_id uuid,
  scopes text[] not null default '{}',
  key_hash text not null,
  key_hint text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  check ((kind = 'CUSTOMER') = (customer_id is not null))
);
create unique index api_keys_key_hash_key on api_keys (key_hash);
create index api_keys_account_kind_idx on api_keys (account_id, kind, created_at);

-- Fixed-window counters of failed logins per subject ('user:<name>' or 'ip:<address>'), shared by
-- every node through the database.
create table login_throttle (
  subject text primary key,
  window_start timestamptz not null,
  failures integer not null
);

create table idempotency_records (
  account_id uuid not null references accounts (id),
  scope text not null,
  idempotency_key text not null,
  request_hash text not null,
  state text not null check (state in ('IN_PROGRESS', 'COMPLETED')),
  response_status integer,
  response_content_type text,
  response_body text,
  created_at timestamptz not null,
  primary key (account_id, scope, idempotency_key)
);
create index idempotency_records_created_idx on idempotency_records (created_at);

-- One row per (job, slot): the node whose insert wins runs the slot; the others skip it.
create table job_runs (
  job_name text not null,
  slot timestamptz not null,
  node_id text not null,
  started_at timestamptz not null,
  finished_at timestamptz,
  outcome text check (outcome in ('SUCCEEDED', 'FAILED')),
  error text,
  primary key (job_name, slot)
);
