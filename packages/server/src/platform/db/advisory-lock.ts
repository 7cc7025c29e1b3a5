import { sql } from 'kysely';
import type { Database } from './database.js';

export type LockOutcome<T> = { acquired: true; value: T } | { acquired: false };

/**
 * Runs fn holding the cross-node advisory lock named `key` for as long as fn runs (vendor calls and
 * fn's own transactions included), in a form a transaction pooler keeps (ADR 0021): a
 * transaction-scoped lock (`pg_advisory_xact_lock`) in a transaction of its own, left open and idle
 * while fn works on other connections. PgBouncer keeps a client in a transaction on one server
 * connection, and the lock ends with that transaction whatever happens to the node; a session lock
 * (`pg_advisory_lock`) would stay on whichever server connection took it and its unlock could land
 * on another. The holding transaction has no snapshot between statements (READ COMMITTED) and
 * writes nothing, so it holds back no vacuum; it uses one pool connection, as the session did.
 *
 * `wait` queues behind another holder; `try` answers `{ acquired: false }` at once. PGlite is one
 * process with one connection (an open transaction would block fn's own queries): fn runs alone
 * there, callers keep their in-process guard.
 */
export async function withAdvisoryLock<T>(database: Database, key: string, mode: 'wait' | 'try', fn: () => Promise<T>): Promise<LockOutcome<T>> {
  if (database.kind !== 'postgres') return { acquired: true, value: await fn() };
  let done: { value: T } | undefined;
  try {
    await database.db.transaction().execute(async (tx) => {
      if (mode === 'wait') {
        await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(tx);
      } else {
        const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as locked`.execute(tx);
        if (rows[0]?.locked !== true) return;
      }
      done = { value: await fn() };
    });
  } catch (err) {
    // fn finished and only the holding transaction's commit failed (its connection dropped): the
    // lock went with the connection and fn's work stands.
    if (!done) throw err;
  }
  return done ? { acquired: true, value: done.value } : { acquired: false };
}
