import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { AgentSignupsTable } from '../tables.js';

/** This account's signups after `since`: how many, and the oldest's time (null when none). */
export async function signupsSince(db: Executor, accountId: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
  const row = await db
    .selectFrom('agent_signups')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min<Date | null>('created_at').as('oldest')])
    .where('account_id', '=', accountId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), oldest: row.oldest === null ? null : new Date(row.oldest) };
}

export async function insertSignup(db: Executor, row: AgentSignupsTable) {
  await db.insertInto('agent_signups').values(row).execute();
}


/**
 * Serialises the signups of one client address for the rest of the transaction (§4.3), across all
 * accounts; taken after the account's settings row lock, never before.
 */
export async function lockClientAddress(tx: Executor, address: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`agent_signup_address:${address}`}, 0))`.execute(tx);
}

/** Signups from this client address after `since`, in every account: how many, and the oldest's time. */
export async function signupsFromAddressSince(db: Executor, address: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
  const row = await db
    .selectFrom('agent_signups')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min<Date | null>('created_at').as('oldest')])
    .where('client_address', '=', address)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), oldest: row.oldest === null ? null : new Date(row.oldest) };
}
