import type { AppContext } from '../../platform/context.js';
import { JobItems } from '../../platform/jobs/items.js';
import type { Job, JobContext } from '../../platform/jobs/scheduler.js';
import { alertJobs } from './alerts/jobs.js';
import * as connections from './connections/repo.js';
import { purgeOldDeliveries, retryDueDeliveries } from './deliveries/service.js';
import { outcomeJobs } from './outcomes/sources/jobs.js';
import { syncConnection } from './sync/service.js';
import { addDays, DEFAULT_SYNC_DAYS, utcDayOf } from './sync/domain.js';

/** Days the hourly sync pulls again (vendors revise recent days). */
export const HOURLY_SYNC_DAYS = 3;

/**
 * The spend module's scheduled jobs (UTC cron, each slot once across nodes):
 * - `spend-initial-sync`, every minute: a new ACTIVE connection's first 30 days. It works from
 *   `initial_sync_at` (null until done), so a crash or a refused sync loses nothing: the next slot
 *   (or the one after a key replacement) picks the connection up again.
 * - `spend-sync`, hourly at minute 15 (spec §8): the last 3 days of every other ACTIVE connection.
 * - `spend-delivery-retry`, every minute: failed (and never-attempted) alert and digest deliveries,
 *   with backoff, at most 5 attempts (README "Deliveries").
 * - `spend-delivery-purge`, daily at 04:10: finished deliveries older than 30 days.
 * - `spend-outcome-sync`, hourly at minute 45: the last 3 days of every ACTIVE outcome source
 *   (outcomes/sources/jobs.ts; never overlapping itself).
 * - `spend-budget-check`, hourly at minute 30: a budget evaluation per account with spend units
 *   (alerts/jobs.ts).
 * - `spend-weekly-digest`, Monday 08:00: the digest of every account that turned it on (alerts/jobs.ts).
 */
export function jobs(ctx: AppContext): Job[] {
  return [
    { name: 'spend-initial-sync', cron: '* * * * *', run: (job) => syncAll(ctx, job, true) },
    { name: 'spend-sync', cron: '15 * * * *', run: (job) => syncAll(ctx, job, false) },
    { name: 'spend-delivery-retry', cron: '* * * * *', run: async ({ log }) => void (await retryDueDeliveries(ctx, log)) },
    { name: 'spend-delivery-purge', cron: '10 4 * * *', run: async () => void (await purgeOldDeliveries(ctx)) },
    ...outcomeJobs(ctx),
    ...alertJobs(ctx),
  ];
}

async function syncAll(ctx: AppContext, job: JobContext, initial: boolean): Promise<void> {
  const items = new JobItems();
  const to = addDays(utcDayOf(job.now), 1);
  const window = { from: addDays(to, initial ? -DEFAULT_SYNC_DAYS : -HOURLY_SYNC_DAYS), to };
  await items.each(
    initial ? 'spend initial sync' : 'spend sync',
    (after) => connections.pageActiveConnections(ctx.db, after, initial),
    async (row) => {
      await syncConnection(ctx, { accountId: row.account_id, connectionId: row.id, window, log: job.log });
      if (initial) await connections.updateConnection(ctx.db, row.account_id, row.id, { initial_sync_at: ctx.clock.now() });
    },
  );
  items.finish();
}
