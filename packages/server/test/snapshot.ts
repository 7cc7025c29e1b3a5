import { sql } from 'kysely';
import type { TestService } from './harness.js';

/**
 * Every row of each table, as sorted JSON lines: comparing two snapshots proves that nothing was
 * inserted, deleted or updated in between (a row count would miss an update).
 */
export async function snapshotTables(svc: TestService, tables: readonly string[]): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(svc.ctx.db);
    out[table] = rows.map((row) => JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).sort();
  }
  return out;
}
