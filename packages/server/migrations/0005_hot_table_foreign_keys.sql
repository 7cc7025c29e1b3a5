-- Usage events and counters are written on every metered request. Their foreign keys made each
-- insert take a KEY SHARE lock on the referenced account, customer, feature and subscription rows,
-- so every event of an account contended on one accounts row (and its multixact bookkeeping).
-- The service resolves those ids in the same request before writing, features referenced by
-- events cannot be deleted (catalog service), and customers, subscriptions and accounts are never
-- deleted; the ledger audit and the bad-input tests check the rest. See ADR 0003.
alter table usage_events drop constraint usage_events_account_id_fkey;
alter table usage_events drop constraint usage_events_account_id_customer_id_fkey;
alter table usage_events drop constraint usage_events_account_id_feature_id_fkey;
alter table usage_counters drop constraint usage_counters_account_id_fkey;
alter table usage_counters drop constraint usage_counters_account_id_subscription_id_fkey;
-- Ledger rows keep their (account, pool) key to the pool they belong to (that row is locked by the
-- writer anyway); only the bare reference to the hot accounts row goes.
alter table credit_transactions drop constraint credit_transactions_account_id_fkey;
alter table credit_transaction_draws drop constraint credit_transaction_draws_account_id_fkey;
