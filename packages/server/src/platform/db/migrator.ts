import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import type { Database } from './database.js';

export const MIGRATIONS_DIR = join(PACKAGE_ROOT, 'migrations/');

/** Advisory-lock key shared by every node, so concurrent starts migrate once. */
const MIGRATION_LOCK = 727_001;

type Migration = { version: string; name: string; sql: string };

export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((file) => ({ version: file.slice(0, 4), name: file.slice(5, -4), sql: readFileSync(dir + file, 'utf8') }));
}

/**
 * Applies the numbered SQL migrations not yet recorded, each in its own transaction, holding an
 * advisory lock so nodes starting together do not race. Forward-only: there are no down scripts.
 */
export async function migrate(database: Database, migrations = readMigrations()): Promise<string[]> {
  return database.withSession(async (exec) => {
    await exec(`select pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await exec(`create table if not exists schema_migrations (
        version text primary key, name text not null, applied_at timestamptz not null default now())`);
      const done = new Set((await exec('select version from schema_migrations')).map((r) => String(r.version)));
      const applied: string[] = [];
      for (const m of migrations) {
        if (done.has(m.version)) continue;
        try {
          await exec(`begin;\n${m.sql}\n;insert into schema_migrations (version, name) values ('${m.version}', '${m.name}');\ncommit;`);
        } catch (err) {
          await exec('rollback').catch(() => {});
          throw new Error(`Migration ${m.version}_${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(`${m.version}_${m.name}`);
      }
      return applied;
    } finally {
      await exec(`select pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  });
}
