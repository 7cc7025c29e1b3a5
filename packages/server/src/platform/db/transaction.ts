import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db, Executor, Tx } from './database.js';

/** Where failures of after-commit callbacks are logged (pino's signature; runtime.ts installs the app logger). */
export type AfterCommitLogger = { error(details: object, message: string): void };

type Callback = { name: string; run: () => unknown };
type RollbackCallback = { name: string; run: (db: Db) => unknown };

const pending = new WeakMap<Tx, Callback[]>();
const rollbackPending = new WeakMap<Tx, RollbackCallback[]>();
let logger: AfterCommitLogger = { error: (details, message) => console.error(message, details) };

/** Installs the logger that after-commit failures go to. */
export function setAfterCommitLogger(next: AfterCommitLogger): void {
  logger = next;
}

/**
 * Watches the transactions of one unit of work (an HTTP request holding an `Idempotency-Key`, see
 * http/idempotency.ts). Transactions are numbered in the order they open. `record` runs inside the
 * n-th transaction after its work and before COMMIT, so what it writes commits with the work or
 * not at all; it throws to roll the work back (the request no longer owns its key). `recorded`
 * returns what the n-th transaction committed in an earlier attempt of the same work: that
 * transaction is then not run again and its result is returned in its place.
 */
export interface TransactionRecorder {
  /** False once the work has answered: later transactions (background tasks) are not recorded. */
  readonly active: boolean;
  recorded(index: number): { value: unknown } | undefined;
  record(tx: Tx, index: number, value: unknown): Promise<void>;
}

type Scope = { recorder: TransactionRecorder; next: number };
const scopes = new AsyncLocalStorage<Scope>();

/** Runs fn (and everything it starts) with its transactions watched by recorder. */
export function runRecorded<T>(recorder: TransactionRecorder, fn: () => T): T {
  return scopes.run({ recorder, next: 0 }, fn);
}

/**
 * Whether the current work records its transactions (a request holding an `Idempotency-Key`). Work
 * shared by several requests (usage's hot-pool grouping) must not run under one of them.
 */
export function isRecorded(): boolean {
  return activeScope() !== undefined;
}

function activeScope(): Scope | undefined {
  const scope = scopes.getStore();
  return scope?.recorder.active ? scope : undefined;
}

/**
 * The one place transactions open. Services call it; repos receive the handle. Row locks taken
 * inside (SELECT … FOR UPDATE) are what make concurrent requests safe on PostgreSQL; on PGlite the
 * single connection serialises transactions anyway.
 *
 * Callbacks registered with `afterCommit(tx, …)` run once the transaction has committed, in the
 * order registered, each awaited; a failing callback is logged and never reaches the caller. If
 * the transaction rolls back they are dropped.
 *
 * Under a recorder (a request with an `Idempotency-Key`) the recorder's write joins the
 * transaction, and a transaction an earlier attempt already committed returns its recorded result
 * instead of running again (its after-commit callbacks are not run again either). A request's
 * transactions must therefore run one after another (never in parallel), and its reply must be
 * built from what they return (see ADR 0004). After-commit callbacks run outside the recorder:
 * their transactions are not part of the request's record.
 */
export async function withTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const scope = activeScope();
  const index = scope ? scope.next++ : 0;
  const earlier = scope?.recorder.recorded(index);
  if (earlier) return earlier.value as T;
  const callbacks: Callback[] = [];
  const rollbacks: RollbackCallback[] = [];
  let result: T;
  try {
    result = await db.transaction().execute(async (tx) => {
      pending.set(tx, callbacks);
      rollbackPending.set(tx, rollbacks);
      try {
        const value = await fn(tx);
        if (scope) await scope.recorder.record(tx, index, value);
        return value;
      } finally {
        pending.delete(tx);
        rollbackPending.delete(tx);
      }
    });
  } catch (err) {
    for (const callback of rollbacks) {
      try {
        await scopes.exit(() => callback.run(db));
      } catch (hookErr) {
        logger.error({ err: hookErr, hook: callback.name }, 'after-rollback hook failed');
      }
    }
    throw err;
  }
  for (const callback of callbacks) {
    try {
      await scopes.exit(() => callback.run());
    } catch (err) {
      logger.error({ err, hook: callback.name }, 'after-commit hook failed');
    }
  }
  return result;
}

/** Thrown through a preview's transaction to roll it back; never leaves withRolledBackTransaction. */
const ROLLBACK = Symbol('rollback');

/**
 * Runs fn in a transaction that always rolls back, and returns what fn returned: a preview that
 * runs the very code of a change (so the preview and the change cannot disagree) and keeps none of
 * it. Its after-commit and after-rollback callbacks are dropped, and it is never recorded under an
 * Idempotency-Key (it commits nothing). fn must not call the network: nothing it does may outlive
 * the rollback.
 */
export async function withRolledBackTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let result: { value: T } | undefined;
  try {
    await db.transaction().execute(async (tx) => {
      pending.set(tx, []);
      try {
        result = { value: await fn(tx) };
      } finally {
        pending.delete(tx);
      }
      throw ROLLBACK;
    });
  } catch (err) {
    if (err !== ROLLBACK) throw err;
  }
  return result!.value;
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

/**
 * Runs `run` once the transaction `tx` has rolled back (before its error reaches the caller), with
 * the database it ran on: for what a refused change must still leave behind in a transaction of its
 * own, such as the outbound event of a refusal (api-contract-events.md §E5.11 `budget.exceeded`).
 * Dropped if the transaction commits, and in a preview (`withRolledBackTransaction`), whose
 * rollback is no refusal. Runs outside any Idempotency-Key recorder; a failure is logged, never
 * thrown. Throws if `tx` is not a transaction opened by `withTransaction`.
 */
export function afterRollback(tx: Tx, name: string, run: (db: Db) => unknown): void {
  const callbacks = rollbackPending.get(tx);
  if (callbacks) callbacks.push({ name, run });
  else if (!pending.has(tx)) throw new Error(`afterRollback(${name}) outside withTransaction`);
}

/**
 * A write that is one statement (so its own implicit transaction) outside withTransaction: it runs
 * on `db` directly, except under a recorder, where it runs through withTransaction so that the
 * record of it commits with it. fn must do its writing in one statement and build its result from
 * it. Hot paths use it to stay one round trip when no `Idempotency-Key` is sent.
 */
export function withStatement<T>(db: Db, fn: (executor: Executor) => Promise<T>): Promise<T> {
  return activeScope() ? withTransaction(db, fn) : fn(db);
}
