-- PROCESSOR_INTEGRATION (contract §5.4–5.5): the processor drives billing. Plans sync to products
-- and prices, subscriptions and invoices mirror back by webhook, and usage not covered by credits
-- goes to the processor's meters through an outbox. As in 0011, no processor call runs inside a
-- transaction: what a call is about is committed first and keys the call (ADR 0008).

-- A plan's product and recurring price at the processor, one row per price the plan has had
-- (price_key = '<unit amount in minor units> <currency> <interval> <interval count>'): a plan whose
-- price changes gets a new processor price; the product stays.
create table processor_products (
  account_id uuid not null references accounts (id),
  plan_id uuid not null,
  price_key text not null,
  processor_product_id text not null,
  processor_price_id text not null,
  created_at timestamptz not null,
  primary key (account_id, plan_id, price_key),
  foreign key (account_id, plan_id) references plans (account_id, id)
);
create index processor_products_price_idx on processor_products (account_id, processor_price_id);

-- Our subscription ↔ the processor's. The row is written before the processor call with the id our
-- subscription will have (the call's idempotency key and the processor subscription's metadata carry
-- it), so the request and the webhooks create that subscription once between them. PENDING: the
-- processor subscription is not known yet (a charge in flight, or an open checkout); LINKED: it is;
-- DECLINED / EXPIRED: the charge was declined or the checkout expired, and nothing was created.
create table processor_subscriptions (
  account_id uuid not null references accounts (id),
  subscription_id uuid not null,
  customer_id uuid not null,
  plan_id uuid not null,
  status text not null check (status in ('PENDING', 'LINKED', 'DECLINED', 'EXPIRED')),
  processor_subscription_id text,
  checkout_session_id uuid,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  primary key (account_id, subscription_id),
  foreign key (account_id, customer_id) references customers (account_id, id)
);
create unique index processor_subscriptions_processor_id_key on processor_subscriptions (account_id, processor_subscription_id);
-- At most one subscribe in flight per customer: two concurrent subscribes cannot both reach the processor.
create unique index processor_subscriptions_one_pending on processor_subscriptions (account_id, customer_id) where status = 'PENDING';
create index processor_subscriptions_checkout_idx on processor_subscriptions (account_id, checkout_session_id);

-- Our invoice mirrored from the processor's (invoice.created and later invoice events).
create table processor_invoices (
  account_id uuid not null references accounts (id),
  processor_invoice_id text not null,
  invoice_id uuid not null,
  created_at timestamptz not null,
  primary key (account_id, processor_invoice_id),
  foreign key (account_id, invoice_id) references invoices (account_id, id)
);

-- The meter outbox: one row per usage event with billable units (not covered by credits), written in
-- the event's ingestion transaction. The stripe-meter-sync job sends PENDING rows with the processor
-- identifier = our event id, so a resend after a lost answer is refused by the processor as a
-- duplicate instead of counted twice. A failed send stays PENDING (attempts, last_error) and is retried.
create table processor_meter_events (
  account_id uuid not null references accounts (id),
  event_id uuid not null,
  customer_id uuid not null,
  feature_id uuid not null,
  event_name text not null,
  units numeric(24, 6) not null check (units > 0),
  occurred_at timestamptz not null,
  status text not null check (status in ('PENDING', 'SENT')),
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null,
  sent_at timestamptz,
  primary key (account_id, event_id)
);
create index processor_meter_events_pending_idx on processor_meter_events (account_id, created_at) where status = 'PENDING';
