-- A team with roles and a console session that survives a reload (issue 32, ADR 0034).
-- Operators: every account has several users with one role each. The login an account was created
-- with (until now the only one, role ADMIN) becomes its OWNER. A disabled user cannot log in and
-- every session of it ends (disabling bumps its session version in the same transaction).
alter table users drop constraint users_role_check;
update users set role = 'OWNER' where role = 'ADMIN';
alter table users alter column role set default 'VIEWER';
alter table users add constraint users_role_check check (role in ('OWNER', 'ADMIN', 'BILLING', 'VIEWER'));
alter table users add column disabled_at timestamptz;

-- Console sessions: an opaque token in an HttpOnly cookie, only its SHA-256 stored. A request finds
-- its session by the hash (a global identity, like an API key's), so the table is a reference table
-- on Citus (platform/db/citus.ts). `session_version` is the user's at sign-in: a password change
-- or disabling ends the session as it ends a JWT. Signing out sets ended_at.
create table operator_sessions (
  id uuid not null,
  account_id uuid not null references accounts (id),
  user_id uuid not null references users (id),
  token_hash text not null,
  session_version integer not null,
  created_at timestamptz not null,
  expires_at timestamptz not null check (expires_at > created_at),
  ended_at timestamptz,
  primary key (account_id, id)
);
create unique index operator_sessions_token_hash_key on operator_sessions (token_hash);
create index operator_sessions_user_idx on operator_sessions (account_id, user_id);
create index operator_sessions_expiry_idx on operator_sessions (expires_at);
