-- Invoice documents (issue 34, api-contract-money.md §1.1, §1.2, §4). The issuer's fields on the
-- account settings, the customer's billing fields, and on each invoice its number, the moment it was
-- finalised and the copy of issuer and customer taken then (the document prints that copy, §4.5).
alter table account_settings
  add column invoice_number_prefix text not null default 'INV',
  add column legal_name text,
  add column address_lines text[] not null default '{}',
  add column tax_id text,
  add column contact_email text;

alter table customers
  add column billing_address_lines text[] not null default '{}',
  add column tax_id text;

alter table invoices
  add column number text,
  add column finalized_at timestamptz,
  add column document_snapshot jsonb;

-- Numbers are unique per account (a PENDING or never-finalised invoice has none: NULLs are distinct).
create unique index invoices_number_key on invoices (account_id, number);

-- quantity and unit price of a line (§4.2); chargeAmount stays the authoritative amount.
alter table invoice_items
  add column quantity numeric not null default 1,
  add column unit_price numeric;

-- The per-(account, UTC year) sequence of invoice numbers: a row incremented by
-- `insert … on conflict do update … returning` in the finalising transaction, so it is locked until
-- that transaction ends; a rollback gives its value back (never a sequence, which would leave gaps).
create table invoice_number_counters (
  account_id uuid not null references accounts (id),
  year integer not null,
  last_number bigint not null,
  primary key (account_id, year)
);
select tally_distribute('invoice_number_counters');

-- Invoices stored before: lines keep quantity 1 and their amount as unit price, usage lines their
-- units (from the description) and no unit price.
update invoice_items set unit_price = charge_amount where feature_id is null;
update invoice_items
   set quantity = coalesce(substring(description from ': ([0-9]+(?:\.[0-9]+)?) units')::numeric, 1)
 where feature_id is not null;

-- Invoices already past PENDING (VOID ones may never have been finalised: left unnumbered) are
-- numbered in creation order per account and year of creation, finalised at creation, with the
-- issuer and customer as they are now.
-- Citus refuses a STABLE function (jsonb_build_object) over column references in an UPDATE, so the
-- snapshot is built by a function declared immutable for this backfill only (its result depends on
-- its arguments alone), dropped after it.
create function tally_backfill_snapshot(ref text, first_name text, last_name text, email text) returns jsonb
  language sql immutable as $$
    select jsonb_build_object(
      'issuer', jsonb_build_object('legalName', null, 'addressLines', '[]'::jsonb, 'taxId', null, 'contactEmail', null),
      'customer', jsonb_build_object(
        'customerReferenceId', ref, 'firstName', first_name, 'lastName', last_name,
        'email', email, 'billingAddressLines', '[]'::jsonb, 'taxId', null))
  $$;
update invoices i
   set finalized_at = b.created_at,
       number = 'INV-' || b.year::text || '-' || lpad(b.n::text, 6, '0'),
       document_snapshot = tally_backfill_snapshot(c.customer_reference_id, c.first_name, c.last_name, c.email)
  from (
    select account_id, id, customer_id, created_at,
           extract(year from created_at at time zone 'UTC')::integer as year,
           row_number() over (partition by account_id, extract(year from created_at at time zone 'UTC') order by created_at, id) as n
      from invoices
     where status not in ('PENDING', 'VOID')
  ) b
  join customers c on c.account_id = b.account_id and c.id = b.customer_id
 where i.account_id = b.account_id and i.id = b.id;
drop function tally_backfill_snapshot(text, text, text, text);

insert into invoice_number_counters (account_id, year, last_number)
select account_id, extract(year from finalized_at at time zone 'UTC')::integer, count(*)
  from invoices
 where number is not null
 group by account_id, extract(year from finalized_at at time zone 'UTC')::integer;
