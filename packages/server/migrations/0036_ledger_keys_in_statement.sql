-- The ledger's key tables (0029) are filled by the ledger's own statements (credits/ledger.ts, the
-- only writer of credit_transactions): each insert claims its (pool, seq), idempotency key and
-- reversal in a data-modifying CTE of the same statement. The statement trigger with a transition
-- table that did it is dropped: Citus runs the insert on a shard, where the transition table does not
-- exist (ADR 0023). A repeated key still fails the whole statement with the key table's violation.
drop trigger credit_transactions_claim_keys on credit_transactions;
drop function credit_transactions_claim_keys();
