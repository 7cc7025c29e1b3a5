import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import { CITUS_SESSION_SETTINGS, distributeOnCitus, isDistributed } from './citus.js';
import type { Database } from './database.js';
import { splitSqlStatements } from './sql-statements.js';

export const MIGRATIONS_DIR = join(PACKAGE_ROOT, 'migrations/');

/** Advisory-lock key shared by every node, so concurrent starts apply each migration once. */
const MIGRATION_LOCK = 727_001;

type Migration = { version: string; name: string; sql: string };

export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((file) => ({ version: file.slice(0, 4), name: file.slice(5, -4), sql: readFileSync(dir + file, 'utf8') }));
}

/**
 * Applies the numbered SQL migrations not yet recorded, each in its own transaction that first takes
 * a transaction-scoped advisory lock and checks again that the migration is still pending, so nodes
 * starting together apply each once. The lock is `pg_advisory_xact_lock`, never a session lock: behind
 * a transaction pooler (PgBouncer) a session lock would stay on whichever server connection took it
 * and its unlock could land on another (ADR 0021). Forward-only: there are no down scripts.
 */
export async function migrate(database: Database, migrations = readMigrations()): Promise<string[]> {
  return database.withSession(async (exec) => {
    const lock = `select pg_advisory_xact_lock(${MIGRATION_LOCK});`;
    await exec(`begin; ${lock}
      create table if not exists schema_migrations (version text primary key, name text not null, applied_at timestamptz not null default now());
      commit;`);
    const done = new Set((await exec('select version from schema_migrations')).map((r) => String(r.version)));
    const applied: string[] = [];
    // On Citus the coordinator propagates DDL to the workers one statement per query (it refuses a
    // script of several): there each migration is sent statement by statement, in its transaction.
    const distributed = database.kind === 'postgres' && (await isDistributed(exec));
    const run = async (script: string) => {
      if (!distributed) return exec(script);
      // The settings the distribution set for the database, also on a session opened before it.
      for (const setting of CITUS_SESSION_SETTINGS) await exec(`set local ${setting} = on`);
      // DDL on a distributed table and a function command in one transaction: one connection per worker.
      await exec(`set local citus.multi_shard_modify_mode = 'sequential'`);
      for (const statement of splitSqlStatements(script)) await exec(statement);
      return [];
    };
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      try {
        // The version is four digits (readMigrations), safe to inline.
        const pending = await exec(`begin; ${lock} select count(*)::int as n from schema_migrations where version = '${m.version}'`);
        if (Number(pending[0]?.n) > 0) {
          await exec('commit');
          continue;
        }
        await run(`${m.sql}\n;insert into schema_migrations (version, name) values ('${m.version}', '${m.name}');\ncommit;`);
      } catch (err) {
        await exec('rollback').catch(() => {});
        throw new Error(`Migration ${m.version}_${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(`${m.version}_${m.name}`);
    }
    // On a database already distributed on Citus (ADR 0023), what the new migrations created is
    // distributed by the same rule before any node uses it.
    if (applied.length > 0 && distributed) await distributeOnCitus(exec);
    return applied;
  });
}
