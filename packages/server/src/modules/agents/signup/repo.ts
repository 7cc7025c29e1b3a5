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

