-- Agent onboarding v2 (issue 35, api-contract-agent-v2.md §3, §4; ADR 0040).

-- §3: four account settings. agentSignupPerIpCap null = no per-address cap (0 clears it, like the
-- spend cap); agentMaxMandateAmount null = no mandate may be asked for.
-- Columns first, then each check in a statement of its own: Citus refuses ADD COLUMN with a
-- constraint, and ADD CONSTRAINT beside other subcommands, on a distributed table.
alter table account_settings
  add column agent_provisional_days integer not null default 14,
  add column agent_signup_per_ip_cap integer,
  add column agent_spend_mandate_enabled boolean not null default false,
  add column agent_max_mandate_amount numeric(20, 4);
alter table account_settings add constraint account_settings_agent_provisional_days_check check (agent_provisional_days between 1 and 365);
alter table account_settings add constraint account_settings_agent_signup_per_ip_cap_check check (agent_signup_per_ip_cap >= 1);
alter table account_settings add constraint account_settings_agent_max_mandate_amount_check check (agent_max_mandate_amount > 0);

-- §4.1, §4.5, §4.6: a customer's agent lifecycle, its owner, and its spend mandate (once per
-- customer, shared by its keys; the customer row lock serialises the mandate check and its spend).
-- agent_status null: not made by signup, reads `claimed`.
alter table customers
  add column agent_status text,
  add column agent_expires_at timestamptz,
  add column agent_claimed_at timestamptz,
  add column owner_email text,
  add column spend_mandate_amount numeric(20, 4),
  add column spend_mandate_period text,
  add column spend_mandate_started_at timestamptz;
alter table customers add constraint customers_agent_status_check check (agent_status in ('provisional', 'claimed', 'expired'));
alter table customers add constraint customers_spend_mandate_amount_check check (spend_mandate_amount > 0);
alter table customers add constraint customers_spend_mandate_period_check check (spend_mandate_period in ('day', 'week', 'month'));
-- The daily expiry job's scan across accounts: provisional customers only.
create index customers_provisional_expiry on customers (agent_expires_at) where agent_status = 'provisional';

-- §4.3: the client address of each signup; the per-address cap counts across all accounts.
alter table agent_signups add column client_address text;
create index agent_signups_client_address on agent_signups (client_address, created_at) where client_address is not null;

-- §4.6: a mandate page is a checkout session of purpose SPEND_MANDATE (its amount and currency the
-- max_amount asked for); the period asked for and the key that asked are the page's own row.
alter table checkout_sessions drop constraint checkout_sessions_purpose_check;
alter table checkout_sessions add constraint checkout_sessions_purpose_check
  check (purpose in ('SUBSCRIPTION', 'CREDIT_TOPUP', 'INVOICE', 'PAYMENT_METHOD', 'SPEND_MANDATE'));
create table spend_mandate_pages (
  account_id uuid not null references accounts (id),
  checkout_session_id uuid not null,
  customer_id uuid not null,
  period text not null check (period in ('day', 'week', 'month')),
  api_key_id uuid,
  created_at timestamptz not null,
  primary key (account_id, checkout_session_id)
);
select tally_distribute('spend_mandate_pages');
alter table spend_mandate_pages add foreign key (account_id, checkout_session_id) references checkout_sessions (account_id, id);

-- §4.6: what counts against a customer's mandate: its customer keys' off-session charges. A charge
-- is reserved (PENDING, counts as spent) in the transaction that checks it under the customer row
-- lock, settled when the processor confirms it, deleted when it declines. (`mandate_started_at`,
-- `window_start`) name the mandate window it counts in (a new period restarts the mandate, so its
-- first window never sums an old one's rows); the window's spend is the sum of its rows.
create table customer_mandate_spend (
  account_id uuid not null references accounts (id),
  id uuid not null,
  customer_id uuid not null,
  state text not null check (state in ('PENDING', 'SETTLED')),
  amount numeric(20, 4) not null check (amount > 0),
  mandate_started_at timestamptz not null,
  window_start timestamptz not null,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  primary key (account_id, id)
);
select tally_distribute('customer_mandate_spend');
alter table customer_mandate_spend add foreign key (account_id, customer_id) references customers (account_id, id);
create index customer_mandate_spend_window on customer_mandate_spend (account_id, customer_id, window_start, mandate_started_at);
