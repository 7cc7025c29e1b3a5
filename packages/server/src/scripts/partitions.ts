/**
 * Operator script for the monthly partitions (ADR 0022):
 *   npm run partitions                                    list each table's partitions
 *   npm run partitions -- --ensure                        create this month and the next three now
 *   npm run partitions -- --detach usage_events --month 2025-01
 *                                                         detach a past month to archive and drop
 * On PGlite, run it while the server is stopped (the data directory is locked by a running node).
 */
import { detachMonth, ensureMonthlyPartitions, listPartitions, MONTHLY_PARTITIONED_TABLES } from '../platform/db/partitions.js';
import { parseArgs, runScript } from './cli.js';

const USAGE = 'usage: npm run partitions -- [--ensure] [--detach TABLE --month YYYY-MM]';

await runScript(async (ctx) => {
  const { values } = parseArgs({ options: { ensure: { type: 'boolean' }, detach: { type: 'string' }, month: { type: 'string' } } });
  if (values.detach !== undefined || values.month !== undefined) {
    if (!values.detach || !values.month) {
      console.error(`--detach and --month go together\n${USAGE}`);
      return 2;
    }
    try {
      const name = await detachMonth(ctx.db, values.detach, values.month, ctx.clock.now());
      console.log(`Detached ${name}: archive it (pg_dump --table=${name}), then drop table ${name}.`);
      return 0;
    } catch (err) {
      console.error(err instanceof Error ? err.message : err);
      return 1;
    }
  }
  if (values.ensure) {
    const created = await ensureMonthlyPartitions(ctx.db, ctx.clock.now());
    console.log(created.length > 0 ? `Created ${created.join(', ')}` : 'Every partition already exists');
  }
  for (const { table } of MONTHLY_PARTITIONED_TABLES) {
    console.log(table);
    for (const p of await listPartitions(ctx.db, table)) console.log(`  ${p.name.padEnd(36)} ~${p.rowsEstimate ?? '?'} rows  ${p.bounds}`);
  }
  return 0;
});
