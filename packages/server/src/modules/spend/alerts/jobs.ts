import type { AppContext } from '../../../platform/context.js';
import { JobItems } from '../../../platform/jobs/items.js';
import type { Job, JobContext } from '../../../platform/jobs/scheduler.js';
import { evaluateBudgets } from './service.js';
import { pageSpendAccounts } from './repo.js';
import { enqueueWeeklyDigest } from '../digest/service.js';
import { pageDigestAccounts } from '../settings/repo.js';

export const BUDGET_CHECK_JOB = 'spend-budget-check';
export const WEEKLY_DIGEST_JOB = 'spend-weekly-digest';

/**
 * `spend-budget-check`, hourly at minute 30 (contract §6.6): one evaluation per account that has
 * spend units (without units nothing can fire), each account on its own (JobItems: a failing
 * account is logged and skipped, the others are evaluated). The scheduler runs the slot once across
 * nodes; the account's evaluation lock and the alerts' unique key cover an evaluation after a sync
 * running at the same moment.
 *
 * `spend-weekly-digest`, Monday 08:00 UTC (contract §6.6): the digest of every account whose
 * `digestEnabled` is on, through the delivery outbox (a failed channel is retried by
 * `spend-delivery-retry`), each account on its own.
 */
export function alertJobs(ctx: AppContext): Job[] {
  return [
    { name: BUDGET_CHECK_JOB, cron: '30 * * * *', run: (job) => evaluateAllAccounts(ctx, job) },
    { name: WEEKLY_DIGEST_JOB, cron: '0 8 * * 1', run: (job) => sendWeeklyDigests(ctx, job) },
  ];
}

async function sendWeeklyDigests(ctx: AppContext, job: JobContext): Promise<void> {
  const items = new JobItems();
  await items.each('spend weekly digest', (after) => pageDigestAccounts(ctx.db, after), (account) => enqueueWeeklyDigest(ctx, account.account_id, job.log));
  items.finish();
}

async function evaluateAllAccounts(ctx: AppContext, job: JobContext): Promise<void> {
  const items = new JobItems();
  await items.each('spend budget evaluation', (after) => pageSpendAccounts(ctx.db, after), async (account) => {
    await evaluateBudgets(ctx, account.account_id, job.log);
  });
  items.finish();
}
