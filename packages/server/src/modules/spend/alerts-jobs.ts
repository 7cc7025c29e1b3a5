import type { AppContext } from '../../platform/context.js';
import { JobItems } from '../../platform/jobs/items.js';
import type { Job, JobContext } from '../../platform/jobs/scheduler.js';
import { evaluateBudgets } from './alerts.js';
import { pageSpendAccounts } from './alerts-repo.js';

export const BUDGET_CHECK_JOB = 'spend-budget-check';

/**
 * `spend-budget-check`, hourly at minute 30 (contract §6.6): one evaluation per account that has
 * spend units (without units nothing can fire), each account on its own (JobItems: a failing
 * account is logged and skipped, the others are evaluated). The scheduler runs the slot once across
 * nodes; the account's evaluation lock and the alerts' unique key cover an evaluation after a sync
 * running at the same moment.
 */
export function alertJobs(ctx: AppContext): Job[] {
  return [{ name: BUDGET_CHECK_JOB, cron: '30 * * * *', run: (job) => evaluateAllAccounts(ctx, job) }];
}

async function evaluateAllAccounts(ctx: AppContext, job: JobContext): Promise<void> {
  const items = new JobItems();
  await items.each('spend budget evaluation', (after) => pageSpendAccounts(ctx.db, after), async (account) => {
    await evaluateBudgets(ctx, account.account_id, job.log);
  });
  items.finish();
}
