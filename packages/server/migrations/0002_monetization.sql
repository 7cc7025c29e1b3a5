-- Monetization core: catalog, customers, subscriptions, invoices, usage events and counters.
-- Money is NUMERIC: invoice amounts and prices at 2 dp, usage units, revenue and cost at full scale.

create table features (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  key text not null,
  name text not null,
  description text,
  feature_type text not null default 'METERED',
  is_enabled boolean not null default true,
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, key),
  unique (account_id, id)
);

create table plans (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  key text not null,
  name text,
  description text,
  price_amount numeric(18, 2),
  currency text not null default 'USD',
  interval_months integer check (interval_months >= 1),
  billing_timing text not null default 'IN_ADVANCE' check (billing_timing in ('IN_ADVANCE', 'IN_ARREARS')),
  status text not null default 'DRAFT' check (status in ('DRAFT', 'ACTIVE', 'ARCHIVED')),
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, key),
  unique (account_id, name),
  unique (account_id, id)
);

create table plan_feature_rules (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  plan_id uuid not null,
  feature_id uuid not null,
  type text not null default 'BASE' check (type = 'BASE'),
  is_enabled boolean not null default true,
  -- Normalised rule value (catalog/rule-value.ts); decimals stored as strings to stay exact.
  value jsonb not null default '{}',
  credit_model_id uuid,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, plan_id, feature_id),
  foreign key (account_id, plan_id) references plans (account_id, id) on delete cascade,
  foreign key (account_id, feature_id) references features (account_id, id)
);

create table customers (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  customer_reference_id text not null,
  email text,
  first_name text,
  last_name text,
  phone_number text,
  address text,
  source text not null default 'MANUAL' check (source in ('MANUAL', 'EVENT_AUTO_CREATED', 'AGENT_SIGNUP', 'STRIPE_IMPORTED')),
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, customer_reference_id),
  unique (account_id, id)
);

alter table api_keys
  add foreign key (account_id, customer_id) references customers (account_id, id);

create table subscriptions (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  customer_id uuid not null,
  plan_id uuid not null,
  is_active boolean not null,
  -- Set while a past-due invoice is unpaid: the subscription stays but its features are denied.
  entitlements_revoked boolean not null default false,
  grace_period_days integer not null default 3 check (grace_period_days >= 0),
  current_period_start timestamptz not null,
  current_period_end timestamptz not null,
  billing_anchor_day integer not null check (billing_anchor_day between 1 and 31),
  cancel_mode text check (cancel_mode in ('END_OF_PERIOD', 'IMMEDIATE')),
  cancel_effective_at timestamptz,
  cancelled_at timestamptz,
  ended_at timestamptz,
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, id),
  foreign key (account_id, customer_id) references customers (account_id, id),
  foreign key (account_id, plan_id) references plans (account_id, id)
);
create index subscriptions_customer_idx on subscriptions (account_id, customer_id, created_at);
create index subscriptions_period_end_idx on subscriptions (current_period_end) where is_active;
create index subscriptions_cancel_idx on subscriptions (cancel_effective_at) where is_active and cancel_effective_at is not null;

create table scheduled_plan_changes (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  subscription_id uuid not null,
  type text not null check (type in ('UPGRADE', 'DOWNGRADE')),
  from_plan_id uuid not null,
  to_plan_id uuid not null,
  status text not null check (status in ('PENDING', 'COMPLETED', 'CANCELLED', 'FAILED')),
  effective_at timestamptz not null,
  created_at timestamptz not null,
  foreign key (account_id, subscription_id) references subscriptions (account_id, id)
);
create index scheduled_plan_changes_due_idx on scheduled_plan_changes (effective_at) where status = 'PENDING';
create unique index scheduled_plan_changes_one_pending on scheduled_plan_changes (account_id, subscription_id) where status = 'PENDING';

create table invoices (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  subscription_id uuid not null,
  customer_id uuid not null,
  status text not null check (status in ('PENDING', 'DUE', 'PAID', 'PAST_DUE', 'VOID', 'CANCELLED', 'CANCELLED_PROCESSED')),
  type text not null check (type in ('IN_ADVANCE_INITIAL', 'REGULAR', 'ADJUSTMENT', 'CREDIT')),
  amount numeric(18, 2) not null,
  currency text not null,
  due_date timestamptz not null,
  period_start timestamptz not null,
  period_end timestamptz not null,
  paid_at timestamptz,
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, id),
  foreign key (account_id, subscription_id) references subscriptions (account_id, id),
  foreign key (account_id, customer_id) references customers (account_id, id)
);
-- One period invoice per subscription and period: the cycle job can run twice without billing twice.
create unique index invoices_one_per_period on invoices (account_id, subscription_id, period_start)
  where type in ('IN_ADVANCE_INITIAL', 'REGULAR');
create index invoices_customer_idx on invoices (account_id, customer_id, created_at desc);
create index invoices_open_idx on invoices (status, due_date) where status in ('PENDING', 'DUE');

create table invoice_items (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  invoice_id uuid not null,
  position integer not null,
  feature_id uuid,
  charge_amount numeric(18, 2) not null,
  description text not null,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  foreign key (account_id, invoice_id) references invoices (account_id, id)
);
create index invoice_items_invoice_idx on invoice_items (account_id, invoice_id);

create table usage_events (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  customer_id uuid not null,
  feature_id uuid not null,
  subscription_id uuid,
  event_type text not null check (event_type in ('CLIENT_TRACKED', 'ENTITLEMENT_CHECKED')),
  event_name text not null,
  event_idempotency_key text not null,
  usage_units numeric not null,
  revenue_amount numeric not null default 0,
  cost_amount numeric,
  model text,
  model_provider text,
  input_tokens bigint,
  output_tokens bigint,
  flow_id text,
  occurred_at timestamptz not null,
  ingested_at timestamptz not null,
  context jsonb not null default '{}',
  meta jsonb,
  unique (account_id, event_idempotency_key),
  foreign key (account_id, customer_id) references customers (account_id, id),
  foreign key (account_id, feature_id) references features (account_id, id)
);
create index usage_events_customer_time_idx on usage_events (account_id, customer_id, occurred_at);
create index usage_events_feature_time_idx on usage_events (account_id, feature_id, occurred_at);
create index usage_events_time_idx on usage_events (account_id, occurred_at);
create index usage_events_flow_idx on usage_events (account_id, flow_id) where flow_id is not null;

-- Per-period usage and revenue per (subscription, feature), updated in the event's transaction so
-- entitlement checks and invoices never sum events. period_start is the subscription period the
-- event fell in.
create table usage_counters (
  account_id uuid not null references accounts (id),
  subscription_id uuid not null,
  feature_id uuid not null,
  period_start timestamptz not null,
  used numeric not null default 0,
  revenue numeric not null default 0,
  primary key (account_id, subscription_id, feature_id, period_start),
  foreign key (account_id, subscription_id) references subscriptions (account_id, id)
);
