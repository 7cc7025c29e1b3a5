-- Internal AI spend, part 1 (contract §7.1–7.3, §7.8, §7.9): vendor connections, what their sync
-- pulls (usage buckets, vendor cost lines, coding-assistant per-person metrics), imported invoices
-- and spend settings. Every row carries account_id and every key includes it. Money is cents as
-- NUMERIC (fractional cents allowed, contract §7); token counts are bigint.

-- A vendor admin-API connection. The key is sealed with APP_SECRETS_KEY (context
-- 'spend_connections:<accountId>:<id>:admin_key'); key_hint is its last 4 characters. Delete is
-- soft: deleted_at is set, the sealed key blanked and the pulled rows removed.
create table spend_connections (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  provider text not null check (provider in ('ANTHROPIC', 'OPENAI', 'CURSOR', 'COPILOT', 'LITELLM')),
  label text not null,
  admin_key_sealed text,
  key_hint text not null,
  scope text,
  status text not null check (status in ('ACTIVE', 'ERROR')),
  last_error text,
  last_synced_at timestamptz,
  -- Progress of the running (or last) sync: chunks done of total; null before the first sync.
  sync_chunks_done integer,
  sync_chunks_total integer,
  -- When the first 30 days were pulled in the background (null: not yet).
  initial_sync_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, id)
);
-- Labels are unique per provider among live connections, case folded (contract §7.2).
create unique index spend_connections_label_key on spend_connections (account_id, provider, lower(label)) where deleted_at is null;

-- Daily usage in the vendor's own dimensions. '' stands for "not reported" in the key columns so the
-- primary key can hold them; requests is null where the vendor reports no request count (Anthropic).
-- vendor_cost_cents is the vendor's price for this very row where it gives one (LiteLLM spend logs);
-- cost reports that are not per row go to spend_vendor_costs.
create table spend_usage_buckets (
  account_id uuid not null,
  connection_id uuid not null,
  provider text not null,
  day date not null,
  model text not null,
  workspace_id text not null default '',
  api_key_id text not null default '',
  actor text not null default '',
  service_tier text not null default '',
  uncached_input_tokens bigint not null default 0,
  cache_read_tokens bigint not null default 0,
  cache_write_5m_tokens bigint not null default 0,
  cache_write_1h_tokens bigint not null default 0,
  output_tokens bigint not null default 0,
  requests bigint,
  vendor_cost_cents numeric(30, 10),
  primary key (account_id, connection_id, day, model, workspace_id, api_key_id, actor, service_tier),
  foreign key (account_id, connection_id) references spend_connections (account_id, id)
);
create index spend_usage_buckets_day_idx on spend_usage_buckets (account_id, day);

-- The vendor's own cost lines (Anthropic cost report, OpenAI costs): per day, workspace/project and
-- description; model where the vendor names one (null: not attributable to a model).
create table spend_vendor_costs (
  account_id uuid not null,
  connection_id uuid not null,
  provider text not null,
  day date not null,
  workspace_id text not null default '',
  model text,
  description text not null default '',
  cost_type text,
  amount_cents numeric(30, 10) not null,
  foreign key (account_id, connection_id) references spend_connections (account_id, id)
);
create index spend_vendor_costs_conn_day_idx on spend_vendor_costs (account_id, connection_id, day);
create index spend_vendor_costs_day_idx on spend_vendor_costs (account_id, day);

-- Coding-assistant per-person daily metrics (Claude Code analytics, Cursor, Copilot). Shown under
-- byActor only, never added to the usage totals (contract §7.9). Null = the vendor does not report it.
create table spend_actor_metrics (
  account_id uuid not null,
  connection_id uuid not null,
  provider text not null,
  day date not null,
  actor text not null,
  tool text not null default '',
  model text not null default '',
  uncached_input_tokens bigint,
  cache_read_tokens bigint,
  cache_write_tokens bigint,
  output_tokens bigint,
  total_tokens bigint,
  sessions bigint,
  requests bigint,
  lines_added bigint,
  lines_removed bigint,
  accepted bigint,
  rejected bigint,
  commits bigint,
  pull_requests bigint,
  credits_used numeric(30, 10),
  vendor_cost_cents numeric(30, 10),
  primary key (account_id, connection_id, day, actor, tool, model),
  foreign key (account_id, connection_id) references spend_connections (account_id, id)
);
create index spend_actor_metrics_day_idx on spend_actor_metrics (account_id, day);

-- Imported vendor invoices (contract §7.8): periods are inclusive; amounts in cents.
create table spend_invoices (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  provider text not null check (provider in ('ANTHROPIC', 'OPENAI', 'CURSOR', 'COPILOT', 'LITELLM')),
  period_start date not null,
  period_end date not null,
  currency text not null,
  total_cents numeric(30, 10) not null,
  imported_from text,
  created_at timestamptz not null,
  unique (account_id, id),
  check (period_end >= period_start)
);
create index spend_invoices_period_idx on spend_invoices (account_id, provider, period_start);

create table spend_invoice_lines (
  account_id uuid not null,
  invoice_id uuid not null,
  line_no integer not null,
  description text not null,
  kind text not null check (kind in ('TOKEN', 'SEAT', 'TOOL', 'OTHER')),
  model text,
  quantity numeric(30, 10),
  amount_cents numeric(30, 10) not null,
  primary key (account_id, invoice_id, line_no),
  foreign key (account_id, invoice_id) references spend_invoices (account_id, id) on delete cascade
);

-- Spend settings (contract §7.3), one row per account, created on first write. Secrets are sealed
-- (context 'spend_settings:<accountId>:<field>'); reads say only whether each is configured.
create table spend_settings (
  account_id uuid primary key references accounts (id),
  person_level_enabled boolean not null default false,
  worker_notice text,
  slack_webhook_url_sealed text,
  webhook_url_sealed text,
  webhook_secret_sealed text,
  alert_emails text,
  digest_enabled boolean not null default false,
  created_at timestamptz not null,
  modified_at timestamptz not null
);
