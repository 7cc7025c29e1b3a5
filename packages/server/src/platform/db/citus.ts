import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import type { ScriptRunner } from './database.js';

/**
 * Tally on Citus, distributed by account_id (ADR 0023). The plan is a rule, not a list: every table
 * of the schema with an `account_id` column is distributed by it, co-located with `customers`,
 * except the reference tables below (looked up before the account is known, or global) and the
 * coordinator-local ones (platform bookkeeping never joined with tenant tables). A table that has no
 * `account_id` and is named in neither list stops the distribution until it is classified here.
 */
export const CITUS_REFERENCE_TABLES = [
  'accounts',
  'users',
  'api_keys',
  'portal_sessions',
  'operator_sessions',
  'account_settings',
  'spend_price_seed',
  'spend_price_seed_state',
  'node_boots',
] as const;
export const CITUS_LOCAL_TABLES = ['schema_migrations', 'job_runs', 'login_throttle'] as const;
/** Every distributed table is co-located with this one (one shard group per account). */
const COLOCATE_WITH = 'customers';

/**
 * Set on for the database by the distribution: the entitlement-context triggers (migration 0033) and
 * the SET NULL triggers run on the shards and write a co-located table of the same account, a nested
 * single-shard write on the same worker (ADR 0023).
 */
export const CITUS_SESSION_SETTINGS = ['citus.enable_unsafe_triggers', 'citus.allow_nested_distributed_execution'] as const;

/** Advisory-lock key of the distribution (the migrator's is 727_001). */
const DISTRIBUTE_LOCK = 727_002;

export const CITUS_PREPARE_SQL = join(PACKAGE_ROOT, 'citus/prepare.sql');

export type Distribution = { reference: string[]; distributed: string[] };

type Kind = 'reference' | 'distributed' | 'local';

/** How the plan classifies a table of the schema (`undefined`: it cannot, the table must be named). */
export function citusKindOf(table: string, hasAccountId: boolean): Kind | undefined {
  if ((CITUS_REFERENCE_TABLES as readonly string[]).includes(table)) return 'reference';
  if ((CITUS_LOCAL_TABLES as readonly string[]).includes(table)) return 'local';
  return hasAccountId ? 'distributed' : undefined;
}

const quoteLiteral = (s: string) => `'${s.replaceAll("'", "''")}'`;
const quoteIdent = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** True when the connected database has the citus extension. */
export async function hasCitus(exec: ScriptRunner): Promise<boolean> {
  const rows = await exec(`select count(*)::int as n from pg_extension where extname = 'citus'`);
  return Number(rows[0]?.n) > 0;
}

/** True when this schema has been distributed (its `customers` is a Citus distributed table). */
export async function isDistributed(exec: ScriptRunner): Promise<boolean> {
  if (!(await hasCitus(exec))) return false;
  const rows = await exec(`select count(*)::int as n from pg_dist_partition p
     join pg_class c on c.oid = p.logicalrelid join pg_namespace s on s.oid = c.relnamespace
    where s.nspname = current_schema() and c.relname = ${quoteLiteral(COLOCATE_WITH)} and p.partmethod = 'h'`);
  return Number(rows[0]?.n) > 0;
}

/**
 * Prepares and distributes the schema of a migrated database on a Citus coordinator; idempotent
 * (tables already distributed or reference are left alone, so it also picks up the tables a later
 * migration added). In one transaction: citus/prepare.sql (the keys Citus requires), the settings the
 * shard-level triggers need, then, with every foreign key touching a pending table dropped first and
 * added back last (Citus would otherwise turn the referencing tables into coordinator-local tables
 * when their referenced table becomes a reference table), the reference tables and then the
 * distributed ones. A failure leaves the database as it was.
 */
export async function distributeOnCitus(exec: ScriptRunner): Promise<Distribution> {
  // Citus DDL can be chosen as a deadlock victim by DDL running elsewhere in the database (another
  // schema's `drop schema … cascade`, a concurrent distribution). The attempt rolled back whole, so
  // running it again is safe; a few tries, then the error.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await distributeOnce(exec);
    } catch (err) {
      if ((err as { code?: string }).code !== DEADLOCK_DETECTED || attempt >= DEADLOCK_RETRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

const DEADLOCK_DETECTED = '40P01';
const DEADLOCK_RETRIES = 4;

async function distributeOnce(exec: ScriptRunner): Promise<Distribution> {
  if (!(await hasCitus(exec))) throw new Error('the citus extension is not installed in this database: run this on a Citus coordinator');
  const database = String((await exec('select current_database() as d'))[0]!.d);
  // Set for the database, so the workers' sessions (where the shard triggers fire) have them too.
  for (const setting of CITUS_SESSION_SETTINGS) {
    await exec(`alter database ${quoteIdent(database)} set ${setting} = on`);
  }
  await exec('begin');
  try {
    // Nodes starting together after an upgrade distribute once: the second sees nothing pending.
    await exec(`select pg_advisory_xact_lock(${DISTRIBUTE_LOCK})`);
    for (const setting of CITUS_SESSION_SETTINGS) await exec(`set local ${setting} = on`);
    await exec(`set local citus.multi_shard_modify_mode = 'sequential'`);
    await exec(readFileSync(CITUS_PREPARE_SQL, 'utf8'));
    const tables = (await exec(`
      select c.relname as name,
             exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped) as has_account,
             coalesce((select case when p.partmethod = 'h' then 'distributed' when p.repmodel = 't' then 'reference' else 'local' end
                         from pg_dist_partition p where p.logicalrelid = c.oid), 'none') as citus_type
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
       order by c.relname`)) as { name: string; has_account: boolean; citus_type: string }[];
    const plan: Distribution = { reference: [], distributed: [] };
    const unclassified: string[] = [];
    for (const t of tables) {
      const kind = citusKindOf(t.name, t.has_account);
      if (kind === undefined) unclassified.push(t.name);
      else if (kind === 'reference' && t.citus_type !== 'reference') plan.reference.push(t.name);
      else if (kind === 'distributed' && t.citus_type !== 'distributed') plan.distributed.push(t.name);
    }
    if (unclassified.length > 0) {
      throw new Error(`tables with no account_id and no Citus classification (platform/db/citus.ts): ${unclassified.join(', ')}`);
    }
    // The co-location anchor first, whatever order the catalog gives.
    plan.distributed.sort((a, b) => Number(b === COLOCATE_WITH) - Number(a === COLOCATE_WITH));
    const pending = [...plan.reference, ...plan.distributed];
    if (pending.length > 0) {
      const names = `array[${pending.map(quoteLiteral).join(', ')}]::text[]`;
      const fks = (await exec(`
        select t.relname as tbl, f.relname as ref, c.conname as name, pg_get_constraintdef(c.oid) as def
          from pg_constraint c
          join pg_class t on t.oid = c.conrelid join pg_class f on f.oid = c.confrelid
          join pg_namespace n on n.oid = t.relnamespace
         where n.nspname = current_schema() and c.contype = 'f' and c.conparentid = 0
           and (t.relname = any (${names}) or f.relname = any (${names}))
         order by t.relname, c.conname`)) as ForeignKey[];
      for (const fk of fks) await exec(`alter table ${quoteIdent(fk.tbl)} drop constraint ${quoteIdent(fk.name)}`);
      for (const t of plan.reference) await exec(`select create_reference_table(${quoteLiteral(t)})`);
      const anchorReady = !plan.distributed.includes(COLOCATE_WITH);
      for (const t of plan.distributed) {
        const colocate = t === COLOCATE_WITH && !anchorReady ? 'none' : COLOCATE_WITH;
        await exec(`select create_distributed_table(${quoteLiteral(t)}, 'account_id', colocate_with => ${quoteLiteral(colocate)})`);
      }
      for (const fk of fks) for (const statement of readdForeignKey(fk)) await exec(statement);
    }
    // The schema's functions run on the workers too (the shard triggers), whose sessions have the
    // default search_path: each is pinned to this schema so its table names resolve there as here.
    const schema = String((await exec('select current_schema() as s'))[0]!.s);
    const functions = await exec(`select p.oid::regprocedure::text as fn from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = current_schema() and p.prolang = (select oid from pg_language where lanname = 'plpgsql')`);
    for (const { fn } of functions) await exec(`alter function ${String(fn)} set search_path = ${quoteIdent(schema)}`);
    await exec('commit');
    return plan;
  } catch (err) {
    await exec('rollback').catch(() => {});
    throw err;
  }
}

type ForeignKey = { tbl: string; ref: string; name: string; def: string };

/**
 * The statements that put a foreign key back after its tables are distributed. Citus refuses
 * `ON DELETE SET NULL (column)` on a key that includes the distribution column; such a key comes back
 * without the action, and a row trigger on the referenced table does what the action did, before the
 * delete (so the key's end-of-statement check sees no reference left): it clears the column in the
 * same account's referencing rows, a co-located single-shard write.
 */
export function readdForeignKey(fk: ForeignKey): string[] {
  const m = /^FOREIGN KEY \(account_id, (\w+)\) REFERENCES (\w+)\(account_id, (\w+)\) ON DELETE SET NULL \((\w+)\)$/.exec(fk.def);
  if (!m) return [`alter table ${quoteIdent(fk.tbl)} add constraint ${quoteIdent(fk.name)} ${fk.def}`];
  const [, column, , refColumn] = m as unknown as [string, string, string, string];
  const fn = quoteIdent(`${fk.name}_set_null`.slice(0, 63));
  return [
    `alter table ${quoteIdent(fk.tbl)} add constraint ${quoteIdent(fk.name)} foreign key (account_id, ${quoteIdent(column)}) references ${quoteIdent(fk.ref)} (account_id, ${quoteIdent(refColumn)})`,
    `create or replace function ${fn}() returns trigger language plpgsql as $f$
    begin
      update ${quoteIdent(fk.tbl)} set ${quoteIdent(column)} = null where account_id = old.account_id and ${quoteIdent(column)} = old.${quoteIdent(refColumn)};
      return old;
    end $f$`,
    `create trigger ${fn} before delete on ${quoteIdent(fk.ref)} for each row execute function ${fn}()`,
  ];
}
