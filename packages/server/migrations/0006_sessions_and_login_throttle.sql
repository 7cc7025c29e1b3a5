-- A password change ends every session: each login's JWT carries its user's session_version as
-- the `ver` claim, and the Admin API refuses a token whose version is not the user's current one.
-- A version (not a password_changed_at timestamp) because JWT iat has one-second resolution.
alter table users add column session_version integer not null default 0;

-- Login throttling per (username, address) with growing delays counts from the last failure, so
-- each throttle row records when it last failed (see modules/accounts/README.md).
alter table login_throttle add column last_failure_at timestamptz;
update login_throttle set last_failure_at = window_start;
alter table login_throttle alter column last_failure_at set not null;
