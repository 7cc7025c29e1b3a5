-- Payments (contract §4.2, §4.5–4.8, §5.4–5.5): the processor connection, processor customers,
-- checkout sessions, credit purchases and processed webhook events. No processor call runs inside a
-- transaction: the row that describes a call is committed before it (its id is the call's
-- idempotency key at the processor) and completed after it, each step idempotent (ADR 0008).

-- One per account. Secrets are sealed with APP_SECRETS_KEY (platform/security/secrets.ts); the
-- masks (first 4 + 12 '*' + last 4, contract §5.4) are kept beside them so reads never decrypt.
create table processor_connections (
  account_id uuid primary key references accounts (id),
  api_key_sealed text,
  api_key_mask text,
  webhook_endpoint_id text,
  webhook_secret_sealed text,
  webhook_secret_mask text,
  created_at timestamptz not null,
  modified_at timestamptz not null
);

-- The processor's customer for one of ours, created on first need, with the saved default method.
create table processor_customers (
  account_id uuid not null references accounts (id),
  customer_id uuid not null,
  processor_customer_id text not null,
  default_payment_method_id text,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  primary key (account_id, customer_id),
  foreign key (account_id, customer_id) references customers (account_id, id)
);
create unique index processor_customers_processor_id_key on processor_customers (account_id, processor_customer_id);

-- A hosted payment a human must complete (contract §4.6). Written PENDING before the processor
-- object exists; the processor's id and URL are filled in after the call; the webhook completes it.
create table checkout_sessions (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  customer_id uuid not null,
  purpose text not null check (purpose in ('SUBSCRIPTION', 'CREDIT_TOPUP', 'INVOICE')),
  status text not null check (status in ('PENDING', 'COMPLETED', 'EXPIRED')),
  processor_session_id text,
  processor_invoice_id text,
  checkout_url text,
  plan_id uuid,
  subscription_id uuid,
  invoice_id uuid,
  credit_pool_id uuid,
  credits numeric(24, 6),
  price_per_credit numeric(24, 6),
  amount numeric(20, 4),
  currency text,
  grant_id uuid,
  created_at timestamptz not null,
  completed_at timestamptz,
  modified_at timestamptz not null,
  unique (account_id, id),
  foreign key (account_id, customer_id) references customers (account_id, id)
);
create unique index checkout_sessions_processor_session_key on checkout_sessions (account_id, processor_session_id);
create unique index checkout_sessions_processor_invoice_key on checkout_sessions (account_id, processor_invoice_id);
create index checkout_sessions_customer_idx on checkout_sessions (account_id, customer_id, purpose, status);

-- A credit purchase (contract §4.7), written before the charge: its id keys the charge at the
-- processor, so neither the SDK's retries nor a retried request can charge twice.
create table credit_purchases (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  customer_id uuid not null,
  credit_pool_id uuid not null,
  credits numeric(24, 6) not null check (credits > 0),
  price_per_credit numeric(24, 6) not null,
  amount numeric(20, 4) not null,
  currency text not null,
  status text not null check (status in ('PENDING', 'SUCCEEDED', 'DECLINED', 'CHECKOUT')),
  payment_intent_id text,
  grant_id uuid,
  checkout_session_id uuid,
  decline_reason text,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, id),
  foreign key (account_id, customer_id) references customers (account_id, id)
);

-- Webhook events already applied: a delivery whose id is here is acknowledged and ignored. The
-- insert happens in the transaction that applies the event, so "applied" and "recorded" agree.
create table processor_events (
  account_id uuid not null references accounts (id),
  event_id text not null,
  type text not null,
  received_at timestamptz not null,
  primary key (account_id, event_id)
);
