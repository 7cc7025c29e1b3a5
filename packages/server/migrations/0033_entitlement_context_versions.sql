-- The version of an account's entitlement contexts (issue 16, ADR 0030). An entitlement check reads
-- its context (customer, feature, active subscription, plan, rule, credit model) from a node's memory
-- only when this row's version, read in the same statement as the usage counter, equals the version
-- the context was read with; any change to a row the context is made of bumps it. Nothing is ever
-- served stale, on any node, without notifications or timers.
create table entitlement_context_versions (
  account_id uuid primary key references accounts (id) on delete cascade,
  version bigint not null
);

-- Bumps the version of the changed row's account. Run as a deferred constraint trigger, so the
-- version row is locked at commit, after every other lock of the transaction: a transaction never
-- waits for another's row while holding the version row, so the bump adds no lock cycle.
create function tally_bump_entitlement_context() returns trigger
language plpgsql as $$
begin
  -- (A row deleted with its whole account bumps nothing: the account and its version are gone.)
  insert into entitlement_context_versions as v (account_id, version)
  select a.id, 1 from accounts a where a.id = coalesce(new.account_id, old.account_id)
  on conflict (account_id) do update set version = v.version + 1;
  return null;
end $$;

-- Every table a context is read from. Customers: only a changed reference or a deletion (a new
-- customer has no cached context; events create customers on the hot path, so inserts stay free).
create constraint trigger subscriptions_entitlement_context after insert or update or delete on subscriptions
  deferrable initially deferred for each row execute function tally_bump_entitlement_context();
create constraint trigger plans_entitlement_context after insert or update or delete on plans
  deferrable initially deferred for each row execute function tally_bump_entitlement_context();
create constraint trigger plan_feature_rules_entitlement_context after insert or update or delete on plan_feature_rules
  deferrable initially deferred for each row execute function tally_bump_entitlement_context();
create constraint trigger credit_models_entitlement_context after insert or update or delete on credit_models
  deferrable initially deferred for each row execute function tally_bump_entitlement_context();
create constraint trigger features_entitlement_context after insert or update or delete on features
  deferrable initially deferred for each row execute function tally_bump_entitlement_context();
create constraint trigger customers_entitlement_context after update of customer_reference_id or delete on customers
  deferrable initially deferred for each row execute function tally_bump_entitlement_context();
