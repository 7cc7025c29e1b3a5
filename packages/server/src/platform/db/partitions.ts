import { sql } from 'kysely';
import type { Db, Executor } from './database.js';
import { withTransaction } from './transaction.js';

/**
 * The tables partitioned by UTC month (migrations 0028–0030, ADR 0022) and their partition key.
 * Each has a DEFAULT partition that takes rows no month holds yet; the partitions-ahead job creates
 * the coming months and moves such rows out of it.
 */
export const MONTHLY_PARTITIONED_TABLES = [
  { table: 'usage_events', column: 'occurred_at', type: 'timestamptz' },
  { table: 'credit_transactions', column: 'created_at', type: 'timestamptz' },
  { table: 'spend_usage_buckets', column: 'day', type: 'date' },
] as const;

/** Months created ahead of the current one (the migrations create the same three). */
export const PARTITION_MONTHS_AHEAD = 3;
/** How far back a row in a DEFAULT partition still gets its month created (older ones stay there). */
const STRAY_MONTHS_BACK = 36;

const monthStart = (d: Date, plusMonths = 0) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + plusMonths, 1));
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Creates the partition of every monthly-partitioned table for the month of `now`, the one before
 * (a vendor sync's first 30 days, a back-dated event) and the `monthsAhead` after it, and for each month (within three years back) that rows in a DEFAULT
 * partition belong to, moving them in. Idempotent: an existing partition is left alone. Each table
 * in a transaction of its own, which waits at most 5 s for its locks (creating a partition locks
 * the parent briefly): a busy table is retried at the next slot. Returns the partitions created.
 */
export async function ensureMonthlyPartitions(db: Db, now: Date, monthsAhead = PARTITION_MONTHS_AHEAD): Promise<string[]> {
  const created: string[] = [];
  const ahead = Array.from({ length: monthsAhead + 2 }, (_, i) => isoDay(monthStart(now, i - 1)));
  for (const { table, column, type } of MONTHLY_PARTITIONED_TABLES) {
    // The month in UTC whatever the session's TimeZone: a date is a UTC day already.
    const utc = type === 'date' ? sql`${sql.ref(column)}::timestamp` : sql`(${sql.ref(column)} at time zone 'UTC')`;
    const from = sql`${isoDay(monthStart(now, -STRAY_MONTHS_BACK))}::timestamp`;
    const to = sql`${isoDay(monthStart(now, monthsAhead + 1))}::timestamp`;
    await withTransaction(db, async (tx) => {
      await sql`set local lock_timeout = '5s'`.execute(tx);
      const { rows: stray } = await sql<{ month: string }>`
        select distinct to_char(date_trunc('month', ${utc}), 'YYYY-MM-DD') as month
          from ${sql.table(`${table}_default`)}
         where ${utc} >= ${from} and ${utc} < ${to}`.execute(tx);
      const months = [...new Set([...stray.map((r) => r.month), ...ahead])].sort();
      for (const month of months) {
        const { rows } = await sql<{ name: string | null }>`select tally_month_partition(${table}, ${column}, ${month}::date) as name`.execute(tx);
        if (rows[0]?.name) created.push(rows[0].name);
      }
    });
  }
  return created;
}

export type PartitionedTable = (typeof MONTHLY_PARTITIONED_TABLES)[number]['table'];
export type MonthlyPartition = { name: string; bounds: string; rowsEstimate: number | null };

/**
 * The partitions of a monthly-partitioned table, by name (the DEFAULT one last), with their bounds
 * and the planner's row estimate (null before the partition was first analyzed).
 */
export async function listPartitions(db: Executor, table: PartitionedTable): Promise<MonthlyPartition[]> {
  const { rows } = await sql<{ name: string; bounds: string; estimate: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bounds, c.reltuples::bigint::text as estimate
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = to_regclass(${table})
     order by c.relname = ${`${table}_default`}, c.relname`.execute(db);
  return rows.map((r) => ({ name: r.name, bounds: r.bounds, rowsEstimate: Number(r.estimate) < 0 ? null : Number(r.estimate) }));
}

/**
 * Detaches one past month of events or vendor buckets from its table (ADR 0022, "Detaching a
 * month"): the partition becomes a plain table `<table>_YYYY_MM` to archive and drop; its rows leave
 * every read, and its event keys stay in usage_event_keys. Refused for the ledger (the audit replays
 * a pool from its first row), for the current or a later month, and for a month that is not a
 * partition. A brief exclusive lock on the table, waited for at most 5 s.
 */
export async function detachMonth(db: Db, table: string, month: string, now: Date): Promise<string> {
  const entry = MONTHLY_PARTITIONED_TABLES.find((t) => t.table === table);
  if (!entry) throw new Error(`${table} is not partitioned by month (one of ${MONTHLY_PARTITIONED_TABLES.map((t) => t.table).join(', ')})`);
  if (entry.table === 'credit_transactions') throw new Error('ledger months stay attached: the audit recomputes every pool from its first row (ADR 0022)');
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new Error(`month must be YYYY-MM, got ${month}`);
  if (`${month}-01` >= isoDay(monthStart(now))) throw new Error(`${month} is not in the past: only months before ${isoDay(monthStart(now)).slice(0, 7)} can be detached`);
  const name = `${table}_${month.replace('-', '_')}`;
  if (!(await listPartitions(db, entry.table)).some((p) => p.name === name)) throw new Error(`${name} is not a partition of ${table}`);
  await withTransaction(db, async (tx) => {
    await sql`set local lock_timeout = '5s'`.execute(tx);
    await sql`alter table ${sql.table(table)} detach partition ${sql.table(name)}`.execute(tx);
  });
  return name;
}
