import { sql } from 'kysely';
import type { Executor, Tx } from '../../../platform/db/database.js';
import { AppError } from '../../../platform/errors/app-error.js';
import { gate } from '../../../platform/errors/gate.js';
import { recordEvent } from '../../../platform/events/outbox.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { releaseKeySpend, reserveKeySpend, settleKeySpend } from '../key-budgets/service.js';
import { changedAttributes, toAdminCustomer } from '../service.js';
import type { CustomerRow, MandatePeriod } from '../tables.js';
import { checkMandateCharge, mandateWindow, type ActiveMandate, type MandateRefusal } from './domain.js';
// The table's type joins Kysely's DB through this file (ADR 0031): a program that reaches this service reaches it too.
import type {} from './tables.js';

/**
 * A customer's spend mandate (api-contract-agent-v2.md §4.6): what counts against it, checked and
 * reserved in the charge's transaction under the customer row lock (taken before any key or pool
 * lock), so concurrent charges from any of its keys never pass it (we differ from the original,
 * which sums outside the recording transaction).
 */

export type { ActiveMandate, MandateRefusal } from './domain.js';
export { mandateWindow } from './domain.js';

/** The customer's active mandate, or null (the columns are all set or all null). */
export function activeMandateOf(row: Pick<CustomerRow, 'spend_mandate_amount' | 'spend_mandate_period' | 'spend_mandate_started_at'>): ActiveMandate | null {
  if (row.spend_mandate_amount === null || row.spend_mandate_period === null || row.spend_mandate_started_at === null) return null;
  return { amount: dec(row.spend_mandate_amount), period: row.spend_mandate_period, startedAt: row.spend_mandate_started_at };
}

/** What the customer's keys spent off-session in the mandate's window starting at `windowStart` (reserved included). */
export async function mandateSpentIn(db: Executor, accountId: string, customerId: string, mandate: Pick<ActiveMandate, 'startedAt'>, windowStart: Date): Promise<Decimal> {
  const row = await db
    .selectFrom('customer_mandate_spend')
    .select(sql<string | null>`sum(amount)`.as('spent'))
    .where('account_id', '=', accountId)
    .where('customer_id', '=', customerId)
    .where('window_start', '=', windowStart)
    .where('mandate_started_at', '=', mandate.startedAt)
    .executeTakeFirst();
  return dec(row?.spent ?? '0');
}

export type MandateCharge = { accountId: string; customerId: string; id: string; amount: Decimal; now: Date };

/**
 * A customer-key off-session charge against the customer's mandate (§4.6, §2.6 step 5), inside the
 * charge's reservation transaction: locks the customer row, and either reserves the charge (a
 * PENDING row that counts as spent) and returns null, or returns the refusal (nothing written) for
 * the caller to throw as the gated 403 (`mandateRefusalGate` names the gate). No active mandate:
 * nothing is checked or recorded. Call it before locking the key or any pool.
 */
export async function reserveMandateSpend(tx: Tx, charge: MandateCharge): Promise<MandateRefusal | null> {
  return reserveInLockedWindow(tx, await lockCustomer(tx, charge.accountId, charge.customerId), charge);
}

/** The customer row, locked: the mandate's lock, taken before any key or pool lock. */
const lockCustomer = (tx: Tx, accountId: string, customerId: string) =>
  tx.selectFrom('customers').selectAll().where('account_id', '=', accountId).where('id', '=', customerId).forUpdate().executeTakeFirst();

async function reserveInLockedWindow(tx: Tx, customer: CustomerRow | undefined, charge: MandateCharge): Promise<MandateRefusal | null> {
  const mandate = customer ? activeMandateOf(customer) : null;
  if (!mandate) return null;
  const window = mandateWindow(mandate.startedAt, mandate.period, charge.now);
  const spent = await mandateSpentIn(tx, charge.accountId, charge.customerId, mandate, window.start);
  const refusal = checkMandateCharge(mandate, spent, charge.amount, window);
  if (refusal) return refusal;
  await tx
    .insertInto('customer_mandate_spend')
    .values({ account_id: charge.accountId, id: charge.id, customer_id: charge.customerId, state: 'PENDING', amount: charge.amount.toFixed(), mandate_started_at: mandate.startedAt, window_start: window.start, created_at: charge.now, modified_at: charge.now })
    .execute();
  return null;
}

/**
 * The gate of a mandate refusal (§1.2): above the whole mandate → 403 `spend_cap_exceeded`, action
 * `raise_mandate`, url the spend-mandate endpoint (a path, made absolute by the envelope); past the
 * window → 403 `budget_exceeded`, action `wait`, `retry_after` = seconds to the window's end (≥ 1).
 */
export function mandateRefusalGate(refusal: MandateRefusal, customerReferenceId: string, now: Date) {
  return refusal.kind === 'whole'
    ? { code: 'spend_cap_exceeded' as const, gate: 'budget' as const, action: 'raise_mandate' as const, url: `/api/v1/client/customers/${encodeURIComponent(customerReferenceId)}/spend-mandate`, retryAfter: null }
    : { code: 'budget_exceeded' as const, gate: 'budget' as const, action: 'wait' as const, url: null, retryAfter: Math.max(1, Math.ceil((refusal.resetsAt.getTime() - now.getTime()) / 1000)) };
}

/** A mandate refusal as the Client API's gated 403 (§1.2). */
export function mandateRefusalError(refusal: MandateRefusal, customerReferenceId: string, now: Date): AppError {
  const g = mandateRefusalGate(refusal, customerReferenceId, now);
  return new AppError(g.code, refusal.message, { gate: gate(g.gate, g.action, { url: g.url, retryAfter: g.retryAfter }) });
}

export type OffSessionSpend = MandateCharge & {
  keyId: string;
  /** Names the spend-mandate endpoint in the gate of a refusal above the whole mandate. */
  customerReferenceId: string;
};

/**
 * A customer-key OFF-SESSION charge (api-contract-agent-v2.md §2.6 steps 3–5, §4.6), checked and
 * reserved in the caller's transaction before any processor call, in the one lock order: the
 * customer row (mandate) first, then the key's budget row; the caller locks pools only after.
 * `id` is the charge's (a purchase's, an invoice's): its processor idempotency key names it, and
 * `settleChargeSpend` / `releaseChargeSpend` find both reservations by it. Throws the gated 403 of
 * the first rule that fails in the contract's order (key budget, then mandate); the caller's
 * transaction must roll back on it, so a refusal writes nothing. An earlier unsettled reservation
 * under the same id (a retried charge of the same invoice) is replaced, never counted twice.
 * Hosted pages and tenant-key charges never come here: they are neither checked nor counted.
 */
export async function reserveOffSessionSpend(tx: Tx, s: OffSessionSpend): Promise<void> {
  const customer = await lockCustomer(tx, s.accountId, s.customerId);
  await releaseMandateSpend(tx, s.accountId, s.id);
  const refusal = await reserveInLockedWindow(tx, customer, s);
  await releaseKeySpend(tx, s.accountId, s.id, s.now);
  await reserveKeySpend(tx, s);
  if (refusal) throw mandateRefusalError(refusal, s.customerReferenceId, s.now);
}

export type ChargeRef = { accountId: string; customerId: string; id: string; now: Date };

/**
 * The charge `id` was paid: its mandate reservation and its key's reservation are SETTLED, a key's
 * hosted spend is counted now. Customer row first, then the key (the reservation's order; a claim
 * later in the caller's transaction updates the customer row it already holds). Idempotent; nothing
 * when the charge reserved nothing (a tenant key's).
 */
export async function settleChargeSpend(tx: Tx, c: ChargeRef): Promise<void> {
  await lockCustomer(tx, c.accountId, c.customerId);
  await settleMandateSpend(tx, c.accountId, c.id, c.now);
  await settleKeySpend(tx, c.accountId, c.id, c.now);
}

/** The charge `id` was declined or never reached the processor: both reservations go (same lock order). Idempotent. */
export async function releaseChargeSpend(tx: Tx, c: ChargeRef): Promise<void> {
  await lockCustomer(tx, c.accountId, c.customerId);
  await releaseMandateSpend(tx, c.accountId, c.id);
  await releaseKeySpend(tx, c.accountId, c.id, c.now);
}

/** The processor confirmed charge `id`: its reservation stays counted. Idempotent; nothing when it is not a mandate spend. */
export async function settleMandateSpend(tx: Executor, accountId: string, id: string, now: Date): Promise<void> {
  await tx.updateTable('customer_mandate_spend').set({ state: 'SETTLED', modified_at: now }).where('account_id', '=', accountId).where('id', '=', id).where('state', '=', 'PENDING').execute();
}

/** The processor declined charge `id` (or it never reached it): the money was not spent, the reservation goes. */
export async function releaseMandateSpend(tx: Executor, accountId: string, id: string): Promise<void> {
  await tx.deleteFrom('customer_mandate_spend').where('account_id', '=', accountId).where('id', '=', id).where('state', '=', 'PENDING').execute();
}

/**
 * A completed mandate page (§4.6 activation) on the locked customer row: the new mandate replaces
 * the old one; an unchanged period keeps the running window (what was spent in it still counts),
 * a new period starts a window at now. Returns whether anything changed.
 */
export async function activateMandate(tx: Executor, accountId: string, customerId: string, mandate: { amount: Decimal; period: MandatePeriod }, now: Date): Promise<void> {
  const row = await tx.selectFrom('customers').selectAll().where('account_id', '=', accountId).where('id', '=', customerId).forUpdate().executeTakeFirstOrThrow();
  const keepWindow = row.spend_mandate_period === mandate.period && row.spend_mandate_started_at !== null;
  await tx
    .updateTable('customers')
    .set({
      spend_mandate_amount: mandate.amount.toFixed(),
      spend_mandate_period: mandate.period,
      spend_mandate_started_at: keepWindow ? row.spend_mandate_started_at : now,
      modified_at: now,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .execute();
}

/**
 * Mandate activation (§4.6): a customer with no e-mail gets the one typed on the mandate page
 * (trimmed, lower-cased), with `customer.updated` naming the change; an existing e-mail is kept.
 * Returns whether the e-mail was set (the caller then tells the processor customer, after commit).
 */
export async function fillMissingEmail(tx: Tx, accountId: string, customerId: string, email: string, now: Date): Promise<boolean> {
  const before = await lockCustomer(tx, accountId, customerId);
  const address = email.trim().toLowerCase();
  if (!before || (before.email !== null && before.email !== '') || address === '') return false;
  const after = await tx.updateTable('customers').set({ email: address, modified_at: now }).where('account_id', '=', accountId).where('id', '=', customerId).returningAll().executeTakeFirstOrThrow();
  await recordEvent(tx, { accountId, type: 'customer.updated', object: toAdminCustomer(after), extra: { previousAttributes: changedAttributes(before, after) }, now });
  return true;
}

/** Mandate reservations older than `before` still PENDING, across accounts (the spend reservation sweep settles or deletes each). */
export function listStaleMandateSpends(db: Executor, before: Date, limit: number) {
  return db
    .selectFrom('customer_mandate_spend')
    .select(['account_id', 'id', 'customer_id'])
    .where('state', '=', 'PENDING')
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}
