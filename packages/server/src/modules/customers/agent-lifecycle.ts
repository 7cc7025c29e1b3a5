import type { Executor } from '../../platform/db/database.js';
import { recordEvent } from '../../platform/events/outbox.js';
import { toAdminCustomer } from './service.js';
import type { AgentStatus, CustomerRow } from './tables.js';

/**
 * A customer's agent lifecycle (api-contract-agent-v2.md §4.1, §4.5, §4.7): provisional after
 * signup until paid (claimed) or past `agent_expires_at` (expired); its owner e-mail; its spend
 * mandate columns. Customers not made by signup have no status and read `claimed`.
 */

export type { AgentStatus, MandatePeriod } from './tables.js';

/** §4.1: the status a customer reads as, null column = not made by signup = claimed. */
export const agentStatusOf = (row: Pick<CustomerRow, 'agent_status'>): AgentStatus => row.agent_status ?? 'claimed';

/** Marks a just-signed-up customer provisional until `expiresAt`, with its owner e-mail. */
export async function startProvisional(tx: Executor, input: { accountId: string; customerId: string; expiresAt: Date; ownerEmail: string }): Promise<void> {
  await tx
    .updateTable('customers')
    .set({ agent_status: 'provisional', agent_expires_at: input.expiresAt, owner_email: input.ownerEmail })
    .where('account_id', '=', input.accountId)
    .where('id', '=', input.customerId)
    .execute();
}

/**
 * Claims a provisional or expired signup customer (§4.7): status claimed, `claimed_at` = now,
 * no expiry. Idempotent (a claimed customer and a customer not made by signup are left as they
 * are); called in the transaction that records the first positive payment or a completed mandate.
 * Returns whether it claimed. Keys revoked by expiry stay revoked. A claim records `customer.claimed`
 * (api-contract-events.md §E5.11) in the same transaction: once per customer, since the conditional
 * update claims only an unclaimed row and nothing makes a claimed customer unclaimed again.
 */
export async function claimCustomer(tx: Executor, accountId: string, customerId: string, now: Date): Promise<boolean> {
  const claimed = await tx
    .updateTable('customers')
    .set({ agent_status: 'claimed', agent_claimed_at: now, agent_expires_at: null, modified_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .where('agent_status', 'in', ['provisional', 'expired'])
    .returningAll()
    .executeTakeFirst();
  if (!claimed) return false;
  await recordEvent(tx, { accountId, type: 'customer.claimed', object: toAdminCustomer(claimed), now });
  return true;
}

/**
 * Flips one provisional customer past its expiry to expired, conditional on it still being
 * provisional, so a payment that claimed it first wins (§4.7). Returns whether it flipped.
 */
export async function expireProvisional(tx: Executor, accountId: string, customerId: string, now: Date): Promise<boolean> {
  const rows = await tx
    .updateTable('customers')
    .set({ agent_status: 'expired', modified_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .where('agent_status', '=', 'provisional')
    .where('agent_expires_at', '<=', now)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** Provisional customers past their expiry across all accounts, by id after `afterId` (the job's scan). */
export function listExpiredProvisional(db: Executor, now: Date, afterId: string | null, limit: number) {
  let q = db
    .selectFrom('customers')
    .select(['id', 'account_id'])
    .where('agent_status', '=', 'provisional')
    .where('agent_expires_at', '<=', now)
    .orderBy('id')
    .limit(limit);
  if (afterId !== null) q = q.where('id', '>', afterId);
  return q.execute();
}

/**
 * Stores the owner e-mail (§4.5) on the locked customer row; it also becomes the customer's e-mail
 * when it has none. Returns the row after and whether the customer's e-mail changed (then the
 * processor customer is told).
 */
export async function setOwnerEmail(tx: Executor, accountId: string, customerId: string, email: string, now: Date) {
  const row = await tx.selectFrom('customers').selectAll().where('account_id', '=', accountId).where('id', '=', customerId).forUpdate().executeTakeFirstOrThrow();
  const emailChanged = row.email === null || row.email === '';
  if (row.owner_email === email && !emailChanged) return { row, emailChanged: false };
  const after = await tx
    .updateTable('customers')
    .set({ owner_email: email, ...(emailChanged ? { email } : {}), modified_at: now })
    .where('account_id', '=', accountId)
    .where('id', '=', customerId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row: after, emailChanged };
}

/** Locks the customer row (the mandate's lock: taken before any key or pool lock) and returns it. */
export function lockCustomerRow(tx: Executor, accountId: string, customerId: string) {
  return tx.selectFrom('customers').selectAll().where('account_id', '=', accountId).where('id', '=', customerId).forUpdate().executeTakeFirstOrThrow();
}
