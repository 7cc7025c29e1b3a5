import type { AppContext } from '../../../../platform/context.js';
import { withAdvisoryLock } from '../../../../platform/db/advisory-lock.js';
import { JobItems } from '../../../../platform/jobs/items.js';
import type { Job, JobContext } from '../../../../platform/jobs/scheduler.js';
import { syncSource } from './service.js';
import { HOURLY_OUTCOME_DAYS } from './domain.js';
import { pageActiveSources } from './repo.js';
import { addDays, utcDayOf } from '../../sync/domain.js';

export const OUTCOME_SYNC_JOB = 'spend-outcome-sync';

/**
 * `spend-outcome-sync`, hourly at minute 45 (spec §8): the last 3 days of every ACTIVE outcome
 * source. The scheduler runs each slot once across nodes; `withoutOverlap` keeps a run that
 * outlasts its hour from overlapping the next slot's (which then skips and says so in the log).
 */
export function outcomeJobs(ctx: AppContext): Job[] {
  return [{ name: OUTCOME_SYNC_JOB, cron: '45 * * * *', run: (job) => syncAllSources(ctx, job) }];
}

async function syncAllSources(ctx: AppContext, job: JobContext): Promise<void> {
  const ran = await withoutOverlap(ctx, OUTCOME_SYNC_JOB, async () => {
    const items = new JobItems();
    const to = addDays(utcDayOf(job.now), 1);
    const window = { from: addDays(to, -HOURLY_OUTCOME_DAYS), to };
    await items.each('outcome source', (after) => pageActiveSources(ctx.db, after), async (row) => {
      const result = await syncSource(ctx, { accountId: row.account_id, sourceId: row.id, window });
      job.log.info({ sourceId: row.id, accountId: row.account_id, ...result }, 'outcome source pulled');
    });
    items.finish();
  });
  if (!ran) job.log.warn({ job: OUTCOME_SYNC_JOB, slot: job.slot }, 'the previous outcome sync is still running: this slot is skipped');
}

const running = new WeakMap<AppContext, Set<string>>();

/**
 * Runs fn unless a run of `name` is in progress (false then). In-process a flag per context; on
 * PostgreSQL also a transaction-scoped advisory try-lock held in an idle transaction of its own
 * while GitHub is called (`withAdvisoryLock`, safe behind a transaction pooler), so another node's
 * run is seen too. PGlite is one process.
 */
export async function withoutOverlap(ctx: AppContext, name: string, fn: () => Promise<void>): Promise<boolean> {
  let names = running.get(ctx);
  if (!names) running.set(ctx, (names = new Set()));
  if (names.has(name)) return false;
  names.add(name);
  try {
    const outcome = await withAdvisoryLock(ctx.database, `job:${name}`, 'try', fn);
    return outcome.acquired;
  } finally {
    names.delete(name);
  }
}
