-- Pool lowBalanceThreshold and the once-only flags of credits.balance_low and credits.depleted
-- (issue 33, api-contract-events.md §E5.6, §E7.1). The flags are read and written under the pool's
-- row lock by the ledger statement that changes the balance, so concurrent draws record each event
-- once per crossing. A new pool starts armed for both; setting the threshold re-arms by the balance.
alter table credit_pools
  add column low_balance_threshold numeric(24, 6),
  add column low_balance_armed boolean not null default true,
  add column depleted_armed boolean not null default true;
