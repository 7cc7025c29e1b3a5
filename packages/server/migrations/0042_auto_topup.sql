-- Auto top-up (issue 34 §2, api-contract-money.md §2). One rule per customer pool; attempts recorded
-- in the draw's own transaction, charged after commit by payments.
--
-- credit_pools.auto_topup_threshold is the rule's threshold while the rule is enabled, null otherwise
-- (kept in step by the rule's writes under the pool's row lock). Every draw already reads the locked
-- pool row, so a pool without an enabled rule costs the draw no statement at all; only a draw that
-- leaves the balance below it reads the rule and tries to record an attempt (ADR 0037).
alter table credit_pools add column auto_topup_threshold numeric(24, 6);

create table credit_auto_topup_rules (
  account_id uuid not null references accounts (id),
  credit_pool_id uuid not null,
  customer_id uuid not null,
  enabled boolean not null,
  threshold numeric(24, 6) not null check (threshold >= 0),
  topup_credits numeric(24, 6) not null check (topup_credits > 0),
  max_monthly_amount numeric(20, 4) check (max_monthly_amount > 0),
  consecutive_failures integer not null default 0,
  retry_after timestamptz,
  disabled_reason text check (disabled_reason in ('MANUAL', 'CONSECUTIVE_FAILURES')),
  created_at timestamptz not null,
  modified_at timestamptz not null,
  primary key (account_id, credit_pool_id)
);
select tally_distribute('credit_auto_topup_rules');
alter table credit_auto_topup_rules add foreign key (account_id, credit_pool_id) references credit_pools (account_id, id);

create table credit_auto_topup_attempts (
  id uuid not null,
  account_id uuid not null references accounts (id),
  credit_pool_id uuid not null,
  customer_id uuid not null,
  status text not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED')),
  credits numeric(24, 6) not null,
  price_per_credit numeric(24, 6) not null,
  amount numeric(20, 4) not null,
  currency text not null,
  balance_at_trigger numeric(24, 6) not null,
  trigger_transaction_id uuid not null,
  payment_method_id text,
  payment_intent_id text,
  grant_id uuid,
  failure_code text,
  failure_message text,
  counted boolean not null default false,
  created_at timestamptz not null,
  completed_at timestamptz,
  primary key (account_id, id)
);
select tally_distribute('credit_auto_topup_attempts');
alter table credit_auto_topup_attempts add foreign key (account_id, credit_pool_id) references credit_pools (account_id, id);
-- At most one PENDING attempt per pool: concurrent draws record one between them (the loser's
-- INSERT … ON CONFLICT DO NOTHING records nothing and its draw commits).
create unique index credit_auto_topup_attempts_one_pending on credit_auto_topup_attempts (account_id, credit_pool_id) where status = 'PENDING';
create index credit_auto_topup_attempts_pool on credit_auto_topup_attempts (account_id, credit_pool_id, created_at desc, id desc);
-- The recovery job's scan across accounts: PENDING attempts only.
create index credit_auto_topup_attempts_pending on credit_auto_topup_attempts (created_at) where status = 'PENDING';
