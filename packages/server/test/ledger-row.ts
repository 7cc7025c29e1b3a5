import { sql, type RawBuilder } from 'kysely';

/**
 * A ledger row inserted the way credits/ledger.ts writes one (test code only): the row and, in the
 * same statement, its claims in the key tables ((pool, seq), idempotency key, reversal; migration
 * 0036), which refuse a repeat in any month. `values` is the column list and values of the row.
 */
export function ledgerRowWithKeys(columns: RawBuilder<unknown>, values: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    with t as (insert into credit_transactions (${columns}) values (${values}) returning *),
    ks as (insert into credit_transaction_seqs (account_id, credit_pool_id, seq, transaction_id) select account_id, credit_pool_id, seq, id from t),
    ki as (insert into credit_transaction_idempotency_keys (account_id, idempotency_key, transaction_id) select account_id, idempotency_key, id from t where idempotency_key is not null),
    kr as (insert into credit_transaction_reversals (account_id, reversed_transaction_id, transaction_id) select account_id, reversed_transaction_id, id from t where reversed_transaction_id is not null)
    select count(*) from t`;
}
