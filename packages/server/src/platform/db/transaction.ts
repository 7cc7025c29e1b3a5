import type { Db, Tx } from './database.js';

/** Where failures of after-commit callbacks are logged (pino's signature; runtime.ts installs the app logger). */
export type AfterCommitLogger = { error(details: object, message: string): void };

type Callback = { name: string; run: () => unknown };

const pending = new WeakMap<Tx, Callback[]>();
let logger: AfterCommitLogger = { error: (details, message) => console.error(message, details) };

/** Installs the logger that after-commit failures go to. */
export function setAfterCommitLogger(next: AfterCommitLogger): void {
  logger = next;
}

/**
 * The one place transactions open. Services call it; repos receive the handle. Row locks taken
 * inside (SELECT … FOR UPDATE) are what make concurrent requests safe on PostgreSQL; on PGlite the
 * single connection serialises transactions anyway.
 *
 * Callbacks registered with `afterCommit(tx, …)` run once the transaction has committed, in the
 * order registered, each awaited; a failing callback is logged and never reaches the caller. If
 * the transaction rolls back they are dropped.
 */
export async function withTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const callbacks: Callback[] = [];
  const result = await db.transaction().execute(async (tx) => {
    pending.set(tx, callbacks);
    try {
      return await fn(tx);
    } finally {
      pending.delete(tx);
    }
  });
  for (const callback of callbacks) {
    try {
      await callback.run();
    } catch (err) {
      logger.error({ err, hook: callback.name }, 'after-commit hook failed');
    }
  }
  return result;
}

/**
 * Runs `run` after the transaction `tx` commits: for effects outside the database (webhooks, mail),
 * which must not happen for a change that rolls back. Throws if `tx` is not a transaction opened by
 * `withTransaction` (a programming error: there would be no commit to wait for).
 */
export function afterCommit(tx: Tx, name: string, run: () => unknown): void {
  const callbacks = pending.get(tx);
  if (!callbacks) throw new Error(`afterCommit(${name}) outside withTransaction`);
  callbacks.push({ name, run });
}
