-- Customer portal links (issue 18 item 6, ADR 0025): a tenant key opens a session for one customer;
-- its link carries an opaque random token (pt_test_…/pt_live_…) of which only the SHA-256 is kept.
-- The token authenticates as that customer with these scopes until expires_at or revoked_at.
-- A reference table on Citus like api_keys (ADR 0023): a request finds its session by the token's
-- hash before the account is known, so the hash's unique index is global; every other key has
-- account_id.
create table portal_sessions (
  id uuid not null,
  account_id uuid not null references accounts (id),
  customer_id uuid not null,
  token_hash text not null,
  token_hint text not null,
  scopes text[] not null check (scopes <@ array['read', 'purchase']::text[] and 'read' = any (scopes)),
  return_url text,
  created_at timestamptz not null,
  expires_at timestamptz not null check (expires_at > created_at),
  revoked_at timestamptz,
  primary key (account_id, id),
  foreign key (account_id, customer_id) references customers (account_id, id)
);
create unique index portal_sessions_token_hash_key on portal_sessions (token_hash);
create index portal_sessions_customer_idx on portal_sessions (account_id, customer_id, created_at);
