-- Agent surface (contract §5.1–5.3): per-account settings, the account audit log, agent signups.

-- One row per account, written on the first PATCH; an account without a row has the defaults.
-- The slug is unique across the instance, not per account: like a username or a key hash it is how
-- an unauthenticated request finds its account (public pricing and signup routes).
create table account_settings (
  account_id uuid primary key references accounts (id),
  slug text,
  public_catalog_enabled boolean not null default false,
  agent_signup_enabled boolean not null default false,
  agent_signup_default_plan_id uuid,
  agent_signup_hourly_cap integer not null default 10 check (agent_signup_hourly_cap >= 1),
  -- Cap on one agent-initiated charge in the account currency; null = no cap.
  agent_max_topup_amount numeric(20, 4) check (agent_max_topup_amount > 0),
  stripe_mode text not null default 'NONE' check (stripe_mode in ('NONE', 'PAYMENT_PASS_THROUGH', 'PROCESSOR_INTEGRATION')),
  currency text not null default 'USD',
  stripe_checkout_success_url text,
  stripe_checkout_cancel_url text,
  default_cost_config jsonb,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  -- Deleting the plan clears the default (signup then answers 404 until another is set).
  foreign key (account_id, agent_signup_default_plan_id) references plans (account_id, id)
    on delete set null (agent_signup_default_plan_id)
);
create unique index account_settings_slug_key on account_settings (slug);

-- Who changed what on an account (processor mode changes, and later other sensitive settings).
create table account_audit_log (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  actor text not null,
  action text not null,
  details jsonb not null,
  created_at timestamptz not null
);
create index account_audit_log_account_created_idx on account_audit_log (account_id, created_at);

-- One row per agent signup; the hourly cap counts this account's rows in the rolling hour while
-- holding the account's settings row lock, so concurrent signups cannot pass the cap.
create table agent_signups (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  customer_id uuid not null,
  created_at timestamptz not null,
  foreign key (account_id, customer_id) references customers (account_id, id)
);
create index agent_signups_account_created_idx on agent_signups (account_id, created_at);
