-- When a key last authenticated a request (issue 18: customer keys on the console's customer page).
-- Written at most once a minute per key (accounts/service.ts `resolveApiKey`), so a hot key costs
-- one conditional UPDATE a minute, not one per request; null until first used (ADR 0026).
alter table api_keys add column last_used_at timestamptz;

-- The console's checkout-session list (Admin API), newest first per account (payments README).
create index checkout_sessions_account_created_idx on checkout_sessions (account_id, created_at desc, id desc);
