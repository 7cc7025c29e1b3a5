import type { Executor } from '../../platform/db/database.js';
import { dec } from '../../platform/money.js';
import * as repo from './repo.js';

export type AuditFinding = { poolId: string; problem: string };

/**
 * Recomputes every pool of the account from its ledger and grants and reports any difference:
 * the ledger chain (rows 1…n, each balance_before equal to the previous balance_after, starting at 0),
 * the running totals against the ledger sums by type, the balance identity
 * (granted − consumed − expired + reversed), the grants' remainders against the balance, and
 * negative balances.
 */
export async function auditLedger(db: Executor, accountId: string): Promise<{ poolsChecked: number; discrepancies: AuditFinding[] }> {
  const pools = await repo.listPools(db, accountId);
  const findings: AuditFinding[] = [];
  for (const pool of pools) {
    const report = (problem: string) => findings.push({ poolId: pool.id, problem });
    const rows = await repo.listTransactions(db, accountId, pool.id);
    const sums = { GRANT: dec(0), DEDUCTION: dec(0), EXPIRATION: dec(0), REVERSAL: dec(0) } as Record<string, ReturnType<typeof dec>>;
    let balance = dec(0);
    rows.forEach((row, i) => {
      if (Number(row.seq) !== i + 1) report(`ledger row ${row.id} has seq ${row.seq}, expected ${i + 1}`);
      if (!dec(row.balance_before).eq(balance)) report(`ledger row ${row.seq}: balance_before ${row.balance_before} ≠ previous balance_after ${balance.toFixed()}`);
      balance = dec(row.balance_before).plus(dec(row.amount));
      if (!dec(row.balance_after).eq(balance)) report(`ledger row ${row.seq}: balance_after ${row.balance_after} ≠ before + amount`);
      if (row.transaction_type in sums) sums[row.transaction_type] = sums[row.transaction_type]!.plus(dec(row.amount));
    });
    const totals = {
      balance: dec(pool.balance),
      granted: dec(pool.total_granted),
      consumed: dec(pool.total_consumed),
      expired: dec(pool.total_expired),
      reversed: dec(pool.total_reversed),
    };
    if (!totals.balance.eq(balance)) report(`pool balance ${pool.balance} ≠ ledger ${balance.toFixed()}`);
    if (Number(pool.ledger_seq) !== rows.length) report(`pool ledger_seq ${pool.ledger_seq} ≠ ${rows.length} ledger rows`);
    if (!totals.granted.eq(sums.GRANT!)) report(`total_granted ${pool.total_granted} ≠ ledger grants ${sums.GRANT!.toFixed()}`);
    if (!totals.consumed.eq(sums.DEDUCTION!.neg())) report(`total_consumed ${pool.total_consumed} ≠ ledger deductions ${sums.DEDUCTION!.neg().toFixed()}`);
    if (!totals.expired.eq(sums.EXPIRATION!.neg())) report(`total_expired ${pool.total_expired} ≠ ledger expirations ${sums.EXPIRATION!.neg().toFixed()}`);
    if (!totals.reversed.eq(sums.REVERSAL!)) report(`total_reversed ${pool.total_reversed} ≠ ledger reversals ${sums.REVERSAL!.toFixed()}`);
    const identity = totals.granted.minus(totals.consumed).minus(totals.expired).plus(totals.reversed);
    if (!identity.eq(totals.balance)) report(`balance ${pool.balance} ≠ granted − consumed − expired + reversed = ${identity.toFixed()}`);
    if (totals.balance.isNegative()) report(`negative balance ${pool.balance}`);
    const remaining = (await repo.listGrants(db, accountId, pool.id)).reduce((sum, g) => sum.plus(dec(g.remaining)), dec(0));
    if (!remaining.eq(totals.balance)) report(`grant remainders ${remaining.toFixed()} ≠ balance ${pool.balance}`);
  }
  return { poolsChecked: pools.length, discrepancies: findings };
}
