-- Checkout expiry and the mandate reservation sweep (api-contract-agent-v2.md §4.6, §7; ADR 0040).

-- When the processor's hosted Checkout Session lapses. The hourly `checkout-expiry` job marks a
-- PENDING session EXPIRED once this instant has passed, for when `checkout.session.expired` never
-- arrived. Null for hosted invoice pages (they do not lapse) and while the processor has not answered.
alter table checkout_sessions add column expires_at timestamptz;

-- Sessions opened before this column: Stripe's default lifetime, 24 hours from creation.
-- Citus refuses a STABLE function (timestamptz + interval) over column references in an UPDATE, so
-- the sum goes through a function declared immutable for this backfill only (24 hours is a fixed
-- length, whatever the time zone), dropped after it (as migration 0041 does).
create function tally_backfill_plus_a_day(t timestamptz) returns timestamptz
  language sql immutable as $$ select t + interval '24 hours' $$;
update checkout_sessions set expires_at = tally_backfill_plus_a_day(created_at)
  where status = 'PENDING' and processor_session_id is not null;
drop function tally_backfill_plus_a_day(timestamptz);

-- The job's scan across accounts: PENDING sessions only.
create index checkout_sessions_pending_expiry on checkout_sessions (expires_at) where status = 'PENDING' and expires_at is not null;

-- The spend reservation sweep's scan of mandate reservations across accounts (§2.6, §7).
create index customer_mandate_spend_pending on customer_mandate_spend (created_at) where state = 'PENDING';
