-- When a key last authenticated a request (issue 18: customer keys on the console's customer page).
-- Written at most once a minute per key (accounts/service.ts `resolveApiKey`), so a hot key costs
-- one conditional UPDATE a minute, not one per request; null until first used (ADR 0026).
alter table api_keys add column last_used_at timestamptz;
