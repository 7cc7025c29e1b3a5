-- Internal AI spend, part 2 (contract §7.4): spend units (TEAM / PROJECT / PERSON, nested) and the
-- attribution rules that assign usage to them at report time (so editing a rule re-allocates history).

create table spend_units (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  type text not null check (type in ('TEAM', 'PROJECT', 'PERSON')),
  name text not null,
  email text,
  github_login text,
  parent_id uuid,
  -- PROJECT only: the monetization feature it builds (feature P&L). A deleted feature unlinks it.
  feature_id uuid,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, id),
  foreign key (account_id, parent_id) references spend_units (account_id, id),
  foreign key (account_id, feature_id) references features (account_id, id) on delete set null (feature_id)
);
create index spend_units_parent_idx on spend_units (account_id, parent_id);

create table spend_rules (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  spend_unit_id uuid not null,
  provider text not null check (provider in ('ANTHROPIC', 'OPENAI', 'CURSOR', 'COPILOT', 'LITELLM')),
  match_kind text not null check (match_kind in ('WORKSPACE_ID', 'API_KEY_ID', 'ACTOR')),
  match_value text not null,
  priority integer not null,
  created_at timestamptz not null,
  -- Creation order, exact even for rules created in the same millisecond ("then creation", §7.4).
  created_seq bigint generated always as identity,
  unique (account_id, id),
  unique (account_id, spend_unit_id, provider, match_kind, match_value),
  foreign key (account_id, spend_unit_id) references spend_units (account_id, id) on delete cascade
);
-- Report-time matching walks rules by priority, then creation.
create index spend_rules_order_idx on spend_rules (account_id, priority, created_seq);

-- A unit's budget (contract §7.5): daily and monthly ceilings in cents (null = none), the alert
-- threshold in percent, ALERT or BLOCK for the monthly ceiling, a temporary bump of the monthly
-- ceiling, and the state of gateway enforcement (LiteLLM max_budget) for BLOCK budgets.
create table spend_budgets (
  account_id uuid not null,
  spend_unit_id uuid not null,
  daily_cents numeric(30, 10),
  monthly_cents numeric(30, 10),
  alert_threshold integer not null check (alert_threshold between 1 and 100),
  monthly_mode text not null check (monthly_mode in ('ALERT', 'BLOCK')),
  bump_monthly_cents numeric(30, 10),
  bump_expires_at timestamptz,
  bump_reason text,
  enforcement_target text,
  enforced_at timestamptz,
  enforcement_error text,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  primary key (account_id, spend_unit_id),
  foreign key (account_id, spend_unit_id) references spend_units (account_id, id) on delete cascade,
  check (daily_cents is not null or monthly_cents is not null)
);
