import type { Executor } from '../../platform/db/database.js';
import { dec, type Decimal } from '../../platform/money.js';
import * as repo from './repo.js';
import { reservationLedgerSums } from './reservations/repo.js';

type AuditFinding = { poolId: string; problem: string };

const TYPES = ['GRANT', 'DEDUCTION', 'EXPIRATION', 'REVERSAL', 'HOLD', 'CAPTURE', 'RELEASE'] as const;

/**
 * Recomputes every pool of the account from its ledger and grants and reports any difference:
 * the ledger chain (rows 1…n, each balance_before equal to the previous balance_after, starting at 0),
 * the running totals against the ledger sums by type, the held total against Σ held_change, the
 * balance identity (granted − consumed − expired + reversed − held), the grants' remainders against
 * the balance, negative balances, and each reservation against its rows (README "Invariants").
 */
export async function auditLedger(db: Executor, accountId: string): Promise<{ poolsChecked: number; discrepancies: AuditFinding[] }> {
  const pools = await repo.listPools(db, accountId);
  const findings: AuditFinding[] = [];
  const reservations = await reservationLedgerSums(db, accountId);
  for (const pool of pools) {
    const report = (problem: string) => findings.push({ poolId: pool.id, problem });
    const rows = await repo.listTransactions(db, accountId, pool.id);
    const sums = Object.fromEntries(TYPES.map((t) => [t, dec(0)])) as Record<string, Decimal>;
    let balance = dec(0);
    let held = dec(0);
    let captured = dec(0);
    rows.forEach((row, i) => {
      if (Number(row.seq) !== i + 1) report(`ledger row ${row.id} has seq ${row.seq}, expected ${i + 1}`);
      if (!dec(row.balance_before).eq(balance)) report(`ledger row ${row.seq}: balance_before ${row.balance_before} ≠ previous balance_after ${balance.toFixed()}`);
      balance = dec(row.balance_before).plus(dec(row.amount));
      if (!dec(row.balance_after).eq(balance)) report(`ledger row ${row.seq}: balance_after ${row.balance_after} ≠ before + amount`);
      if (row.transaction_type in sums) sums[row.transaction_type] = sums[row.transaction_type]!.plus(dec(row.amount));
      const heldChange = dec(row.held_change);
      held = held.plus(heldChange);
      if (held.isNegative()) report(`ledger row ${row.seq}: held total ${held.toFixed()} below zero`);
      // HOLD and RELEASE move credits one for one between balance and held; a CAPTURE only lowers
      // both (it consumes held credits and draws any excess); no other row touches held.
      const moves = row.transaction_type === 'HOLD' || row.transaction_type === 'RELEASE';
      const capture = row.transaction_type === 'CAPTURE';
      if (capture) captured = captured.minus(dec(row.amount)).minus(heldChange);
      const consistent = capture ? !heldChange.gt(0) && !dec(row.amount).gt(0) : moves ? heldChange.eq(dec(row.amount).neg()) : heldChange.isZero();
      if (!consistent) report(`ledger row ${row.seq}: held_change ${row.held_change} does not fit a ${row.transaction_type} of ${row.amount}`);
    });
    const totals = {
      balance: dec(pool.balance),
      granted: dec(pool.total_granted),
      consumed: dec(pool.total_consumed),
      expired: dec(pool.total_expired),
      reversed: dec(pool.total_reversed),
      held: dec(pool.total_held),
    };
    const consumed = sums.DEDUCTION!.neg().plus(captured);
    if (!totals.balance.eq(balance)) report(`pool balance ${pool.balance} ≠ ledger ${balance.toFixed()}`);
    if (Number(pool.ledger_seq) !== rows.length) report(`pool ledger_seq ${pool.ledger_seq} ≠ ${rows.length} ledger rows`);
    if (!totals.granted.eq(sums.GRANT!)) report(`total_granted ${pool.total_granted} ≠ ledger grants ${sums.GRANT!.toFixed()}`);
    if (!totals.consumed.eq(consumed)) report(`total_consumed ${pool.total_consumed} ≠ ledger deductions and captures ${consumed.toFixed()}`);
    if (!totals.expired.eq(sums.EXPIRATION!.neg())) report(`total_expired ${pool.total_expired} ≠ ledger expirations ${sums.EXPIRATION!.neg().toFixed()}`);
    if (!totals.reversed.eq(sums.REVERSAL!)) report(`total_reversed ${pool.total_reversed} ≠ ledger reversals ${sums.REVERSAL!.toFixed()}`);
    if (!totals.held.eq(held)) report(`total_held ${pool.total_held} ≠ ledger held changes ${held.toFixed()}`);
    const identity = totals.granted.minus(totals.consumed).minus(totals.expired).plus(totals.reversed).minus(totals.held);
    if (!identity.eq(totals.balance)) report(`balance ${pool.balance} ≠ granted − consumed − expired + reversed − held = ${identity.toFixed()}`);
    if (totals.balance.isNegative()) report(`negative balance ${pool.balance}`);
    const remaining = (await repo.listGrants(db, accountId, pool.id)).reduce((sum, g) => sum.plus(dec(g.remaining)), dec(0));
    if (!remaining.eq(totals.balance)) report(`grant remainders ${remaining.toFixed()} ≠ balance ${pool.balance}`);
    const open = reservations.filter((r) => r.credit_pool_id === pool.id && r.status === 'HELD').reduce((s, r) => s.plus(dec(r.held_left)), dec(0));
    if (!open.eq(totals.held)) report(`total_held ${pool.total_held} ≠ open reservations' holds ${open.toFixed()}`);
    for (const r of reservations.filter((x) => x.credit_pool_id === pool.id && x.status !== 'HELD' && !dec(x.held_left).isZero())) {
      report(`reservation ${r.reservation_id} is ${r.status} but still holds ${r.held_left}`);
    }
  }
  const byReservation = new Map<string, { row: (typeof reservations)[number]; held: Decimal; captured: Decimal }>();
  for (const r of reservations) {
    const acc = byReservation.get(r.reservation_id) ?? { row: r, held: dec(0), captured: dec(0) };
    byReservation.set(r.reservation_id, { row: r, held: acc.held.plus(dec(r.held)), captured: acc.captured.plus(dec(r.captured)) });
  }
  for (const [id, { row, held, captured }] of byReservation) {
    if (!held.eq(dec(row.amount_held))) findings.push({ poolId: row.credit_pool_id, problem: `reservation ${id}: amount_held ${row.amount_held} ≠ its holds ${held.toFixed()}` });
    if (!captured.eq(dec(row.amount_captured ?? '0'))) findings.push({ poolId: row.credit_pool_id, problem: `reservation ${id}: amount_captured ${row.amount_captured} ≠ its captures ${captured.toFixed()}` });
  }
  return { poolsChecked: pools.length, discrepancies: findings };
}
