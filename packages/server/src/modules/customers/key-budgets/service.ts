import type { Executor, Tx } from '../../../platform/db/database.js';
import { afterRollback } from '../../../platform/db/transaction.js';
import { AppError } from '../../../platform/errors/app-error.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { applyBudgetPut, applySpend, checkSpend, toBudgetView, type BudgetAxis, type BudgetPeriod, type BudgetRefusal, type BudgetState, type BudgetView } from './domain.js';
import { recordRefusalAlone, recordRefusalsInGroup } from './events.js';
import * as repo from './repo.js';

/**
 * Per-key budgets (api-contract-agent-v2.md §2). Every spend is checked and recorded in the
 * spender's own transaction under the budget row's lock (`repo.lockBudgets`, key-id order), so
 * concurrent charges or events never take a key past its limit. Lock order across the service:
 * customer, then key budgets, then credit pools. Whether a key has a budget is never taken from
 * memory: the spender's transaction reads the row (no row, no budget), so a budget set on one node
 * binds the next spend on every node (ADR 0043).
 */

export async function getKeyBudget(db: Executor, accountId: string, keyId: string, now: Date): Promise<BudgetView> {
  return toBudgetView(keyId, await repo.findBudget(db, accountId, keyId), now);
}

export type KeyBudgetInput = { period: BudgetPeriod; creditLimit: Decimal | null; amountLimit: Decimal | null; alertThreshold: number | undefined };

/** PUT (§2.2) under the budget row's lock, so it never loses a concurrent spend's count. */
export async function putKeyBudget(tx: Tx, target: { accountId: string; keyId: string; customerId: string }, input: KeyBudgetInput, now: Date): Promise<BudgetView> {
  const existing = (await repo.lockBudgets(tx, target.accountId, [target.keyId])).get(target.keyId) ?? null;
  const next = applyBudgetPut(existing, input, now);
  await repo.upsertBudget(tx, target.accountId, target.keyId, target.customerId, next, now);
  return toBudgetView(target.keyId, next, now);
}

/** DELETE: no budget any more (200 also when there was none). Spend rows stay for the record. */
export async function deleteKeyBudget(tx: Tx, accountId: string, keyId: string): Promise<void> {
  await repo.deleteBudget(tx, accountId, keyId);
}

/** The refusal as the error the Client API answers with its gate (§1.2). */
export function budgetRefusalError(refusal: BudgetRefusal): AppError {
  return new AppError(refusal.code, refusal.message, { gate: refusal.gate });
}

export type MoneySpend = { accountId: string; keyId: string; id: string; amount: Decimal; now: Date };

/**
 * An off-session charge a customer key starts (§2.6 steps 3–4): in the caller's transaction, under
 * the key's budget lock, checks the amount against what is left and reserves it (a PENDING spend
 * row with id `id`, counted as spent). Throws the refusal, and the caller's transaction rolls back
 * on it: its `budget.exceeded` is then recorded in a transaction of its own (`afterRollback`). No
 * budget: nothing to check or count. The caller charges the processor after commit with `id` in
 * the idempotency key, then `settleKeySpend` or `releaseKeySpend`.
 */
export async function reserveKeySpend(tx: Tx, s: MoneySpend): Promise<void> {
  const budget = (await repo.lockBudgets(tx, s.accountId, [s.keyId])).get(s.keyId);
  if (!budget) return;
  const refusal = checkSpend(budget, 'AMOUNT', s.amount, s.now);
  if (refusal) {
    const { accountId, keyId, amount, now } = s;
    afterRollback(tx, 'budget.exceeded', (db) => recordRefusalAlone(db, accountId, { keyId, axis: 'AMOUNT', requested: amount }, now));
    throw budgetRefusalError(refusal);
  }
  const next = applySpend(budget, 'AMOUNT', s.amount, s.now);
  await repo.saveCounters(tx, s.accountId, s.keyId, next, s.now);
  await repo.insertSpends(tx, [spendRow(s, 'OFF_SESSION', 'PENDING', next.countedWindowStart)]);
}

/**
 * A hosted payment a customer key started (§2.5): never refused by the key budget; an OPEN spend
 * row that `settleKeySpend` counts when the payment lands.
 */
export async function openHostedKeySpend(tx: Tx, s: MoneySpend): Promise<void> {
  await repo.insertSpends(tx, [spendRow(s, 'HOSTED', 'OPEN', null)]);
}

/**
 * The payment of spend `id` succeeded: a reservation becomes SETTLED (already counted); a hosted
 * payment is counted now, in the window it lands in (it may take the key past its limit: a human
 * paid). Idempotent; nothing when `id` is not a key's spend.
 */
export async function settleKeySpend(tx: Tx, accountId: string, id: string, now: Date): Promise<void> {
  const spend = await repo.findSpend(tx, accountId, id);
  if (!spend || spend.state === 'SETTLED') return;
  const budget = (await repo.lockBudgets(tx, accountId, [spend.key_id])).get(spend.key_id);
  const again = await repo.findSpend(tx, accountId, id);
  if (!again || again.state === 'SETTLED') return;
  if (again.state === 'PENDING' || !budget) {
    await repo.settleSpend(tx, accountId, id, again.window_start, now);
    return;
  }
  const next = applySpend(budget, 'AMOUNT', dec(again.amount), now);
  await repo.saveCounters(tx, accountId, again.key_id, next, now);
  await repo.settleSpend(tx, accountId, id, next.countedWindowStart, now);
}

/**
 * The charge of spend `id` was declined or failed (or a hosted page was abandoned): the money was not
 * spent. A reservation gives back what it took from the window it was counted in, if that window is
 * still the counted one. Idempotent.
 */
export async function releaseKeySpend(tx: Tx, accountId: string, id: string, now: Date): Promise<void> {
  const spend = await repo.findSpend(tx, accountId, id);
  if (!spend || spend.state === 'SETTLED') return;
  const budget = (await repo.lockBudgets(tx, accountId, [spend.key_id])).get(spend.key_id);
  const again = await repo.findSpend(tx, accountId, id);
  if (!again || again.state === 'SETTLED') return;
  if (again.state === 'PENDING' && budget && again.window_start?.getTime() === budget.countedWindowStart.getTime()) {
    const left = budget.amountSpent.minus(dec(again.amount));
    await repo.saveCounters(tx, accountId, again.key_id, { ...budget, amountSpent: left.isNegative() ? dec(0) : left }, now);
  }
  await repo.deleteSpend(tx, accountId, id);
}

/** Reservations older than `before` still PENDING (the sweeper settles or releases each against the processor). */
export const listStaleKeySpends = (db: Executor, before: Date, limit: number) => repo.listStalePending(db, before, limit);

/**
 * The credit axis for the ingestion executor (usage's applyEvents): lock the budget rows of the
 * customer keys of a group's credit-backed events (before its counters and pools; a key without a
 * budget has no row and is not checked), then per event `checkCredits` against the state the
 * events before it left, and `recordCredits` for what the group drew and refused, in the same
 * transaction.
 */
export const lockKeyBudgets = (tx: Tx, accountId: string, keyIds: string[]) => repo.lockBudgets(tx, accountId, keyIds);

export function checkCredits(budget: BudgetState, requested: Decimal, now: Date): AppError | null {
  const refusal = checkSpend(budget, 'CREDITS', requested, now);
  return refusal ? budgetRefusalError(refusal) : null;
}

export const countCredits = (budget: BudgetState, drawn: Decimal, now: Date): BudgetState => applySpend(budget, 'CREDITS', drawn, now);

/**
 * What a group's events did to their keys' budgets, in the group's transaction (which commits
 * whatever its events' outcomes): each key's first refusal of its window records `budget.exceeded`
 * (`refused`: the key and the credits each refused event asked, in order), then the counters and
 * marks of the budgets that changed are written, with one SETTLED spend row per event that drew
 * (id = the event's id).
 */
export async function recordCredits(
  tx: Tx,
  accountId: string,
  budgets: Map<string, BudgetState>,
  draws: { keyId: string; eventId: string; credits: Decimal }[],
  refused: { keyId: string; credits: Decimal }[],
  now: Date,
): Promise<void> {
  const marked = refused.length > 0 ? await recordRefusalsInGroup(tx, accountId, budgets, refused.map((r) => ({ keyId: r.keyId, axis: 'CREDITS', requested: r.credits })), now) : new Set<string>();
  for (const keyId of new Set([...draws.map((d) => d.keyId), ...marked])) await repo.saveCounters(tx, accountId, keyId, budgets.get(keyId)!, now);
  if (draws.length === 0) return;
  await repo.insertSpends(
    tx,
    draws.map((d) => ({
      account_id: accountId, id: d.eventId, key_id: d.keyId, axis: 'CREDITS', channel: 'EVENT', state: 'SETTLED', amount: d.credits.toFixed(),
      window_start: budgets.get(d.keyId)!.countedWindowStart, created_at: now, modified_at: now,
    })),
  );
}

function spendRow(s: MoneySpend, channel: 'OFF_SESSION' | 'HOSTED', state: 'PENDING' | 'OPEN', windowStart: Date | null): repo.SpendRow {
  return { account_id: s.accountId, id: s.id, key_id: s.keyId, axis: 'AMOUNT' as BudgetAxis, channel, state, amount: s.amount.toFixed(), window_start: windowStart, created_at: s.now, modified_at: s.now };
}

export type { BudgetPeriod, BudgetState, BudgetView } from './domain.js';
export { BUDGET_PERIODS } from './domain.js';
