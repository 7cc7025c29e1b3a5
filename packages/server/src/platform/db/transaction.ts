import type { Db, Tx } from './database.js';

/**
 * The one place transactions open. Services call it; repos receive the handle. Row locks taken
 * inside (SELECT … FOR UPDATE) are what make concurrent requests safe on PostgreSQL; on PGlite the
 * single connection serialises transactions anyway.
 */
export function withTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(fn);
}
