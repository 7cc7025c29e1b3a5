-- Citus, step 2 of 2 (ADR 0023): run on the coordinator after prepare.sql, with the citus extension
-- created and the workers added. Referenced tables come before the tables that reference them
-- (test/integration/platform/citus-schema.test.ts checks the order and that every table of the
-- schema is named here exactly once).

-- Reference tables: copied to every node. Global identities (a login's username, a key's or a portal
-- token's hash, an account's public slug) are looked up before the account is known; the price seed
-- is global.
select create_reference_table('accounts');
select create_reference_table('users');
select create_reference_table('api_keys');
select create_reference_table('portal_sessions');
select create_reference_table('account_settings');
select create_reference_table('spend_price_seed');
select create_reference_table('spend_price_seed_state');

-- Local to the coordinator (never joined with tenant tables): schema_migrations, job_runs, login_throttle

-- Distributed by account_id, all co-located with customers: every row of an account on one shard group.
select create_distributed_table('customers', 'account_id');
select create_distributed_table('account_audit_log', 'account_id', colocate_with => 'customers');
select create_distributed_table('entitlement_context_versions', 'account_id', colocate_with => 'customers');
select create_distributed_table('agent_signups', 'account_id', colocate_with => 'customers');
select create_distributed_table('checkout_sessions', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_pools', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_grants', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_models', 'account_id', colocate_with => 'customers');
select create_distributed_table('plans', 'account_id', colocate_with => 'customers');
select create_distributed_table('subscriptions', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_pool_links', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_prices', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_purchases', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_reservations', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_transaction_draws', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_transaction_idempotency_keys', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_transaction_reversals', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_transaction_seqs', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_transactions', 'account_id', colocate_with => 'customers');
select create_distributed_table('features', 'account_id', colocate_with => 'customers');
select create_distributed_table('credit_weights', 'account_id', colocate_with => 'customers');
select create_distributed_table('idempotency_records', 'account_id', colocate_with => 'customers');
select create_distributed_table('invoices', 'account_id', colocate_with => 'customers');
select create_distributed_table('invoice_items', 'account_id', colocate_with => 'customers');
select create_distributed_table('plan_credit_allocations', 'account_id', colocate_with => 'customers');
select create_distributed_table('plan_feature_rules', 'account_id', colocate_with => 'customers');
select create_distributed_table('processor_connections', 'account_id', colocate_with => 'customers');
select create_distributed_table('processor_customers', 'account_id', colocate_with => 'customers');
select create_distributed_table('processor_events', 'account_id', colocate_with => 'customers');
select create_distributed_table('processor_invoices', 'account_id', colocate_with => 'customers');
select create_distributed_table('processor_meter_events', 'account_id', colocate_with => 'customers');
select create_distributed_table('processor_products', 'account_id', colocate_with => 'customers');
select create_distributed_table('processor_subscriptions', 'account_id', colocate_with => 'customers');
select create_distributed_table('scheduled_plan_changes', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_connections', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_actor_metrics', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_units', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_alerts', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_budgets', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_deliveries', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_invoices', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_invoice_lines', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_model_matches', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_outcome_sources', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_outcomes', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_prices', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_rules', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_settings', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_usage_buckets', 'account_id', colocate_with => 'customers');
select create_distributed_table('spend_vendor_costs', 'account_id', colocate_with => 'customers');
select create_distributed_table('usage_counters', 'account_id', colocate_with => 'customers');
select create_distributed_table('usage_event_keys', 'account_id', colocate_with => 'customers');
select create_distributed_table('usage_events', 'account_id', colocate_with => 'customers');
