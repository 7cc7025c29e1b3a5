-- Monthly partitions, part 2 (issue 19 item 7, ADR 0022): the credit ledger (credit_transactions),
-- partitioned by range of created_at like usage_events (0028). Rows move with their ids.
--
-- Its three unique rules hold across every month, so none can live in a partitioned index (which
-- must contain created_at): one entry per (pool, seq), one per idempotency key, and a transaction
-- reversed at most once. Each lives in a narrow unpartitioned key table, filled by a statement
-- trigger from the inserted rows in the inserting statement, so every writer (ledger.ts,
-- draw-batch.ts) is held to them without knowing; a repeated key fails the statement with a unique
-- violation of the key table, as it failed on the ledger's own index before.

alter table credit_transactions rename to credit_transactions_unpartitioned;

-- Same columns, defaults and checks as before (LIKE), so a column another migration added comes along.
create table credit_transactions (like credit_transactions_unpartitioned including defaults including constraints) partition by range (created_at);
create table credit_transactions_default partition of credit_transactions default;
select tally_initial_partitions('credit_transactions', 'created_at', 'credit_transactions_unpartitioned');

create table credit_transaction_seqs (
  account_id uuid not null,
  credit_pool_id uuid not null,
  seq bigint not null,
  transaction_id uuid not null,
  primary key (account_id, credit_pool_id, seq)
);
create table credit_transaction_idempotency_keys (
  account_id uuid not null,
  idempotency_key text not null,
  transaction_id uuid not null,
  primary key (account_id, idempotency_key)
);
create table credit_transaction_reversals (
  account_id uuid not null,
  reversed_transaction_id uuid not null,
  transaction_id uuid not null,
  primary key (account_id, reversed_transaction_id)
);

insert into credit_transactions select * from credit_transactions_unpartitioned;
insert into credit_transaction_seqs (account_id, credit_pool_id, seq, transaction_id)
select account_id, credit_pool_id, seq, id from credit_transactions_unpartitioned;
insert into credit_transaction_idempotency_keys (account_id, idempotency_key, transaction_id)
select account_id, idempotency_key, id from credit_transactions_unpartitioned where idempotency_key is not null;
insert into credit_transaction_reversals (account_id, reversed_transaction_id, transaction_id)
select account_id, reversed_transaction_id, id from credit_transactions_unpartitioned where reversed_transaction_id is not null;
drop table credit_transactions_unpartitioned;

alter table credit_transactions add constraint credit_transactions_pkey primary key (account_id, id, created_at);
alter table credit_transactions add constraint credit_transactions_account_id_credit_pool_id_fkey
  foreign key (account_id, credit_pool_id) references credit_pools (account_id, id);
-- The pool's ledger in order (what the unique (account_id, credit_pool_id, seq) index served).
create index credit_transactions_pool_seq_idx on credit_transactions (account_id, credit_pool_id, seq);
create index credit_transactions_idempotency_idx on credit_transactions (account_id, idempotency_key) where idempotency_key is not null;
create index credit_transactions_reversed_idx on credit_transactions (account_id, reversed_transaction_id) where reversed_transaction_id is not null;
create index credit_transactions_event_idx on credit_transactions (account_id, event_id) where event_id is not null;
create index credit_transactions_reservation_idx on credit_transactions (account_id, reservation_id) where reservation_id is not null;

-- Statement-level, with the inserted rows as a transition table: one insert per key table per
-- statement whatever the number of rows (the batch ledger writes hundreds in one statement).
create function credit_transactions_claim_keys() returns trigger
language plpgsql as $$
begin
  insert into credit_transaction_seqs (account_id, credit_pool_id, seq, transaction_id)
  select account_id, credit_pool_id, seq, id from new_rows;
  insert into credit_transaction_idempotency_keys (account_id, idempotency_key, transaction_id)
  select account_id, idempotency_key, id from new_rows where idempotency_key is not null;
  insert into credit_transaction_reversals (account_id, reversed_transaction_id, transaction_id)
  select account_id, reversed_transaction_id, id from new_rows where reversed_transaction_id is not null;
  return null;
end $$;
create trigger credit_transactions_claim_keys after insert on credit_transactions
  referencing new table as new_rows for each statement execute function credit_transactions_claim_keys();
